/**
 * launchctl behind an interface, and a schedule's launchd job installed, updated and removed with it.
 *
 * - create / enable: write the plist, `launchctl bootstrap gui/<uid> <plist>`;
 * - update: `bootout gui/<uid>/<label>`, wait until `launchctl print gui/<uid>/<label>` no longer finds
 *   the job (bootout returns while the job is still being torn down, and a bootstrap then fails with
 *   "5: Input/output error"), rewrite the plist, bootstrap;
 * - disable / remove: bootout, wait until gone, delete the plist — a plist left in
 *   ~/Library/LaunchAgents would be loaded again at the next login, so a disabled schedule has none.
 *
 * The binary is `REIN_LAUNCHCTL` when set (tests use a stand-in that records its arguments), else
 * /bin/launchctl; it runs through core/process's runProcess. The folder is `REIN_LAUNCH_AGENTS_DIR`
 * when set, else ~/Library/LaunchAgents. Changes to one job are serialised: in this process by a queue,
 * between processes by a lock in the schedule's folder (`<REIN_HOME>/schedules/<id>/launchd.lock`).
 */
import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ReinError, errorMessage } from '../errors.js';
import { runProcess } from '../process/subprocess.js';
import { withFileLock } from '../util/fileLock.js';
import type { ParsedCron } from './cron.js';
import {
  buildLaunchdPlist,
  launchdLabel,
  launchdLogPaths,
  launchdPlistPath,
  writeLaunchdPlist,
} from './launchdPlist.js';

export const DEFAULT_LAUNCHCTL = '/bin/launchctl';
/** How long an update waits for a booted-out job to go. */
export const DEFAULT_GONE_TIMEOUT_MS = 10_000;

export interface Launchd {
  /** `gui/<uid>`. */
  readonly domain: string;
  /** Loads the job in the plist into the domain. Throws LaunchctlError when launchctl refuses. */
  bootstrap(plistPath: string): Promise<void>;
  /** Starts unloading the job; resolves (without waiting for it to be gone) whether or not it was loaded. */
  bootout(label: string): Promise<void>;
  /** `launchctl print` of the job, or undefined when the domain has no such job. */
  print(label: string): Promise<string | undefined>;
  isLoaded(label: string): Promise<boolean>;
  /** Polls `print` until the job is gone; throws LaunchctlError after timeoutMs. */
  waitUntilGone(label: string, timeoutMs?: number): Promise<void>;
}

export class LaunchctlError extends ReinError {
  constructor(
    message: string,
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super('unavailable', message, { command: 'launchctl', args: [...args], exitCode, stderr });
  }
}

export interface LaunchctlOptions {
  /** Where REIN_LAUNCHCTL is read from, and the child's environment; process.env when absent. */
  env?: NodeJS.ProcessEnv;
  /** Overrides REIN_LAUNCHCTL. */
  binary?: string;
  /** The user whose gui domain is used; the current user by default. */
  uid?: number;
  /** Per launchctl call; default 30 s. */
  timeoutMs?: number;
  /** Between two `print` calls while waiting; default 50 ms. */
  pollMs?: number;
}

export function launchctlBinary(env: NodeJS.ProcessEnv = process.env): string {
  return env.REIN_LAUNCHCTL?.trim() || DEFAULT_LAUNCHCTL;
}

export function resolveLaunchAgentsDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.REIN_LAUNCH_AGENTS_DIR?.trim();
  return fromEnv ? resolve(fromEnv) : join(homedir(), 'Library', 'LaunchAgents');
}

export function createLaunchctl(opts: LaunchctlOptions = {}): Launchd {
  const env = opts.env ?? process.env;
  const file = opts.binary ?? launchctlBinary(env);
  const uid = opts.uid ?? process.getuid?.();
  if (uid === undefined) throw new ReinError('unavailable', 'launchd jobs need a user id (macOS)');
  const domain = `gui/${uid}`;
  const pollMs = opts.pollMs ?? 50;

  const run = async (args: string[]) => {
    const r = await runProcess({
      file,
      args,
      env,
      timeoutMs: opts.timeoutMs ?? 30_000,
      output: { mode: 'separate', stdoutMaxBytes: 1 << 20, stderrMaxBytes: 64 << 10 },
    });
    if (r.kind === 'spawn_failed')
      throw new LaunchctlError(`could not run ${file}: ${r.error.message}`, args, null, '');
    if (r.kind === 'timed_out')
      throw new LaunchctlError(`${file} ${args.join(' ')} did not finish in time`, args, null, r.stderr);
    return r;
  };
  const failure = (args: string[], r: { exitCode: number | null; stderr: string; stdout: string }) =>
    new LaunchctlError(
      `launchctl ${args.join(' ')} failed (exit ${r.exitCode ?? 'by signal'}): ${(r.stderr || r.stdout).trim() || 'no message'}`,
      args,
      r.exitCode,
      r.stderr,
    );

  const print = async (label: string): Promise<string | undefined> => {
    const r = await run(['print', `${domain}/${label}`]);
    // 113 "Could not find service"; any other refusal means there is no job to speak of either.
    return r.exitCode === 0 ? r.stdout : undefined;
  };
  const isLoaded = async (label: string) => (await print(label)) !== undefined;

  return {
    domain,
    async bootstrap(plistPath) {
      const args = ['bootstrap', domain, plistPath];
      const r = await run(args);
      if (r.exitCode !== 0) throw failure(args, r);
    },
    async bootout(label) {
      const args = ['bootout', `${domain}/${label}`];
      const r = await run(args);
      // "3: No such process" when it was not loaded: that is the state asked for.
      if (r.exitCode !== 0 && (await isLoaded(label))) throw failure(args, r);
    },
    print,
    isLoaded,
    async waitUntilGone(label, timeoutMs = DEFAULT_GONE_TIMEOUT_MS) {
      const deadline = Date.now() + timeoutMs;
      while (await isLoaded(label)) {
        if (Date.now() >= deadline) {
          throw new LaunchctlError(
            `launchd job ${label} was still loaded ${timeoutMs} ms after bootout`,
            ['print', `${domain}/${label}`],
            0,
            '',
          );
        }
        await new Promise((r) => setTimeout(r, pollMs));
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// A schedule's job

export interface LaunchdJobTarget {
  id: string;
  /** For the lock (and, on install, the logs): `<reinHome>/schedules/<id>/`. */
  reinHome: string;
  /** REIN_LAUNCH_AGENTS_DIR, else ~/Library/LaunchAgents. */
  launchAgentsDir?: string;
  /** createLaunchctl() when absent. */
  launchd?: Launchd;
  waitTimeoutMs?: number;
}

export interface LaunchdJobSpec extends LaunchdJobTarget {
  cron: string | ParsedCron;
  /** What starts Rein, before `schedule run <id> --from-launchd` (see LaunchdPlistSpec). */
  programPrefix: readonly string[];
  /** More environment for the job; REIN_HOME is always reinHome. */
  env?: Readonly<Record<string, string>>;
  /** RunAtLoad (see LaunchdPlistSpec); default true. */
  runAtLoad?: boolean;
}

export interface LaunchdJobResult {
  label: string;
  plistPath: string;
  /** created: there was no job; updated: the job was replaced; unchanged: the loaded job already matched. */
  action: 'created' | 'updated' | 'unchanged';
  intervals: number;
}

export interface LaunchdRemoveResult {
  label: string;
  plistPath: string;
  /** A loaded job was booted out. */
  wasLoaded: boolean;
  /** A plist file was deleted. */
  removedFile: boolean;
}

/** Per plist path: the change in progress, so two changes in one process never interleave. */
const queues = new Map<string, Promise<unknown>>();

async function serialised<T>(target: LaunchdJobTarget, plistPath: string, fn: () => Promise<T>): Promise<T> {
  const previous = queues.get(plistPath) ?? Promise.resolve();
  const mine = previous
    .catch(() => undefined)
    .then(async () => {
      const dir = launchdLogPaths(target.reinHome, target.id).dir;
      await mkdir(dir, { recursive: true, mode: 0o700 });
      return withFileLock(join(dir, 'launchd'), fn);
    });
  queues.set(plistPath, mine);
  try {
    return await mine;
  } finally {
    if (queues.get(plistPath) === mine) queues.delete(plistPath);
  }
}

const readIfThere = (path: string): Promise<string | undefined> => readFile(path, 'utf8').catch(() => undefined);

/** Temp files a killed writer left next to the plist (`.<file>.<pid>.<n>.tmp` with a dead pid). */
async function removeStaleTemps(dir: string, fileName: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const m = name.startsWith(`.${fileName}.`) ? /\.(\d+)\.[0-9a-z]+\.tmp$/.exec(name) : null;
    if (!m) continue;
    const pid = Number(m[1]);
    let alive = pid === process.pid;
    if (!alive) {
      try {
        process.kill(pid, 0);
        alive = true;
      } catch (e) {
        alive = (e as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
    if (!alive) await unlink(join(dir, name)).catch(() => undefined);
  }
}

/**
 * Makes the schedule's job exist, loaded, and match the spec: for create, update and enable. An
 * expression launchd cannot run throws ReinError `invalid_input` (field `cron`) before anything is
 * written or booted out. A loaded job whose plist already has these bytes is left alone.
 */
export async function installLaunchdJob(spec: LaunchdJobSpec): Promise<LaunchdJobResult> {
  const plist = buildLaunchdPlist({
    id: spec.id,
    cron: spec.cron,
    programPrefix: spec.programPrefix,
    reinHome: spec.reinHome,
    ...(spec.env ? { env: spec.env } : {}),
    ...(spec.runAtLoad !== undefined ? { runAtLoad: spec.runAtLoad } : {}),
  });
  const dir = spec.launchAgentsDir ?? resolveLaunchAgentsDir();
  const plistPath = launchdPlistPath(dir, spec.id);
  const launchd = spec.launchd ?? createLaunchctl();
  return serialised(spec, plistPath, async () => {
    await mkdir(dir, { recursive: true });
    await removeStaleTemps(dir, plist.fileName);
    const existing = await readIfThere(plistPath);
    const loaded = await launchd.isLoaded(plist.label);
    const result = (action: LaunchdJobResult['action']): LaunchdJobResult => ({
      label: plist.label,
      plistPath,
      action,
      intervals: plist.intervals.length,
    });
    if (loaded && existing === plist.xml) return result('unchanged');
    if (loaded) await bootoutAndWait(launchd, plist.label, spec.waitTimeoutMs);
    await writeLaunchdPlist(plistPath, plist.xml);
    try {
      try {
        await launchd.bootstrap(plistPath);
      } catch (e) {
        // Someone loaded it between our look and our bootstrap (another process, a login): replace theirs.
        if (!(await launchd.isLoaded(plist.label))) throw e;
        await bootoutAndWait(launchd, plist.label, spec.waitTimeoutMs);
        await launchd.bootstrap(plistPath);
      }
    } catch (e) {
      // A plist launchd refused would still be loaded at the next login and fire at every time with
      // nobody to run it for: a job that cannot be loaded has no file either.
      await unlink(plistPath).catch(() => undefined);
      throw refusedBootstrap(spec.id, e);
    }
    return result(existing === undefined && !loaded ? 'created' : 'updated');
  });
}

/** Makes the schedule have no job: for disable and remove. Idempotent. */
export async function removeLaunchdJob(target: LaunchdJobTarget): Promise<LaunchdRemoveResult> {
  const label = launchdLabel(target.id);
  const dir = target.launchAgentsDir ?? resolveLaunchAgentsDir();
  const plistPath = launchdPlistPath(dir, target.id);
  const launchd = target.launchd ?? createLaunchctl();
  return serialised(target, plistPath, async () => {
    const wasLoaded = await launchd.isLoaded(label);
    if (wasLoaded) await bootoutAndWait(launchd, label, target.waitTimeoutMs);
    let removedFile = false;
    try {
      await unlink(plistPath);
      removedFile = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new ReinError(
          'unavailable',
          `could not delete ${plistPath}: ${errorMessage(e)}`,
          { path: plistPath },
          { cause: e },
        );
      }
    }
    await removeStaleTemps(dir, `${label}.plist`);
    return { label, plistPath, wasLoaded, removedFile };
  });
}

/**
 * launchctl's refusal, saying what it means for the schedule. macOS 13 and later refuse with
 * "Bootstrap failed: 5: Input/output error" when Rein may not run in the background (Login Items).
 */
function refusedBootstrap(id: string, e: unknown): unknown {
  if (!(e instanceof LaunchctlError)) return e;
  const hint =
    e.exitCode === 5
      ? ' If "Allow in the Background" is off for Rein in System Settings → General → Login Items, turn it on and try again.'
      : '';
  return new LaunchctlError(
    `launchd would not load the job of schedule ${id}, so its plist was removed: ${e.message}.${hint}`,
    e.args,
    e.exitCode,
    e.stderr,
  );
}

async function bootoutAndWait(launchd: Launchd, label: string, timeoutMs: number | undefined): Promise<void> {
  await launchd.bootout(label);
  await launchd.waitUntilGone(label, timeoutMs ?? DEFAULT_GONE_TIMEOUT_MS);
}
