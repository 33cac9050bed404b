/**
 * The files a schedule's runs leave: one log per run in `<REIN_HOME>/schedules/<id>/logs/`, and the
 * stdout/stderr launchd appends to for the job (`launchd.out.log`, `launchd.err.log`).
 *
 * Run logs are named after the start, `YYYY-MM-DD-HHmmss.log` in local time, and made exclusively
 * (`wx`): two runs that start in the same second (a launchd run and one by hand, a catch-up and the
 * due time, a skip beside the run it skips) never write into one file. The second gets `…_2.log`, the
 * third `…_3.log`. `_` sorts after `.`, so a plain listing (`ls`) still shows the runs in the order they
 * started; Rein's own listing and pruning compare the suffix as a number (`_10` after `_9`).
 *
 * launchd opens StandardOutPath/StandardErrorPath for appending each time it starts the job and never
 * trims them. They are rotated at the start of a run from launchd (`rotateLaunchdLogs`): a file over
 * 1 MiB is renamed to `<file>.1` (an older `.1` is replaced). The rename is safe while launchd holds the
 * file open for the current run: its descriptor follows the renamed file, so this run's own output goes
 * on at the end of `.1`, and the next start makes a fresh file. So what is rotated is what the previous
 * runs wrote; at most about 2 MiB and one run's output are kept per stream.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { rename, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** A run log's name: the start (local time), and `_N` for the N-th run that started in that second. */
export const RUN_LOG_NAME = /^(\d{4})-(\d{2})-(\d{2})-(\d{2})(\d{2})(\d{2})(?:_([1-9]\d{0,5}))?\.log$/;

/** Past this many runs in one second something is wrong: the run gives up on a log of its own. */
const MAX_SAME_SECOND = 1_000;

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD-HHmmss.log` in local time (the first run of that second), or `…_N.log` for the N-th. */
export function logName(at: Date, n = 1): string {
  const stamp = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}-${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}`;
  return n > 1 ? `${stamp}_${n}.log` : `${stamp}.log`;
}

/** When the run of a log started (local time, from the name) and its place in that second; undefined for other files. */
export function parseLogName(name: string): { at: Date; n: number } | undefined {
  const m = RUN_LOG_NAME.exec(name);
  if (!m) return undefined;
  const at = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  return { at, n: m[7] ? Number(m[7]) : 1 };
}

/** Oldest first: by the time in the name, then by the suffix as a number. */
export function compareLogNames(a: string, b: string): number {
  const stamp = (s: string) => s.slice(0, 17);
  if (stamp(a) !== stamp(b)) return stamp(a) < stamp(b) ? -1 : 1;
  return (parseLogName(a)?.n ?? 1) - (parseLogName(b)?.n ?? 1);
}

/**
 * Makes a new run log in `dir` for a run that starts at `at`, exclusively: a name another run already
 * has is never reused (the next suffix is tried). The file is open for appending; the caller closes `fd`.
 */
export function createRunLog(dir: string, at: Date): { path: string; name: string; fd: number } {
  for (let n = 1; n <= MAX_SAME_SECOND; n++) {
    const name = logName(at, n);
    const path = join(dir, name);
    try {
      return { path, name, fd: openSync(path, 'wx', 0o600) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  throw new Error(`${MAX_SAME_SECOND} run logs already started at ${logName(at)} in ${dir}`);
}

/** A whole run log at once (a run skipped before it started), under a name of its own. Returns its path. */
export function writeRunLog(dir: string, at: Date, text: string): string {
  const log = createRunLog(dir, at);
  try {
    writeSync(log.fd, text);
  } finally {
    closeSync(log.fd);
  }
  return log.path;
}

/** Over this, a launchd log is rotated when the next run from launchd starts. */
export const LAUNCHD_LOG_MAX_BYTES = 1024 * 1024;

/**
 * Rotates each of `files` that is over `maxBytes`: renamed to `<file>.1`, replacing an older one. Call it
 * at the start of a run launchd started (see the top of this file for why renaming is safe then).
 * Returns the files rotated; never throws (a log that cannot be rotated is no reason not to run).
 */
export async function rotateLaunchdLogs(files: readonly string[], maxBytes = LAUNCHD_LOG_MAX_BYTES): Promise<string[]> {
  const rotated: string[] = [];
  for (const file of files) {
    try {
      const st = await stat(file);
      if (!st.isFile() || st.size <= maxBytes) continue;
      await rename(file, `${file}.1`);
      rotated.push(file);
    } catch {
      // Not there yet (launchd makes it), or not ours to move: left as it is.
    }
  }
  return rotated;
}
