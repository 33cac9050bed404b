/**
 * Saves interrupted by a kill: a session is saved by writing `.<id>.json.<pid>.<n>.tmp` (atomicWrite.ts)
 * and renaming it over `<id>.json`. A writer killed in between leaves the temp file, which may be
 * incomplete (killed while writing) or a complete version newer than the session file (killed after the
 * fsync, before the rename). Such a file of a process that is no longer alive is settled, under the
 * session's writer lock, and never left silently:
 *  - complete, valid, the same session and newer than the file (later `updated_at`; or the file is
 *    missing or damaged): it becomes the session file, in one rename; the file it replaces is kept as
 *    `leftovers/<id>.json.replaced-<time>`;
 *  - otherwise (cut short, not valid, another id, not newer): moved to `leftovers/<name without the dot>`.
 * Each is reported once (it is gone from the folder afterwards). Temp files of live processes are
 * writes in progress and are left alone.
 */
import * as fs from 'node:fs';
import { copyFile, link, mkdir, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../errors.js';
import { isProcessAlive } from '../util/processAlive.js';
import { describeIssues } from '../util/zodIssues.js';
import { isSessionId } from './id.js';
import { SessionFile } from './types.js';

/** Beside the session files: what interrupted saves left, kept for a person to look at. */
export const LEFTOVERS_DIR = 'leftovers';

const TEMP_NAME = /^\.(.+)\.json\.(\d+)\.([0-9a-z]+)\.tmp$/;

export interface LeftoverTemp {
  /** The temp file's name in the sessions folder. */
  name: string;
  id: string;
  pid: number;
}

export interface LeftoverNote {
  id: string;
  /** recovered: it is the session file now; older / damaged: moved to leftovers/; unsettled: left, it could not be settled. */
  kind: 'recovered' | 'older' | 'damaged' | 'unsettled';
  /** Where the temp file is now. */
  file: string;
  /** recovered: where the file it replaced is kept (none when there was no file). */
  replaced?: string;
  /** One line for a person. */
  message: string;
}

/** The session temp files among `names` whose writer is no longer alive (of session `id` only, when given). */
export function deadWritersTemps(names: readonly string[], id?: string): LeftoverTemp[] {
  const out: LeftoverTemp[] = [];
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m || !isSessionId(m[1]!) || (id !== undefined && m[1] !== id)) continue;
    const pid = Number(m[2]);
    // This process's own temp files are saves in progress, as are those of any live process.
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || isProcessAlive(pid)) continue;
    out.push({ name, id: m[1]!, pid });
  }
  return out;
}

type Read = { state: 'missing' } | { state: 'damaged'; problem: string } | { state: 'ok'; session: SessionFile };

/** A whole session file, checked as a load checks it; the problem in words when it is not one. */
async function readComplete(file: string, id: string): Promise<Read> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    return { state: 'damaged', problem: `cannot read: ${errorMessage(e)}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (e) {
    return { state: 'damaged', problem: `not valid JSON: ${errorMessage(e)}` };
  }
  const parsed = SessionFile.safeParse(json);
  if (!parsed.success) {
    const p = describeIssues(parsed.error.issues, json)[0];
    return { state: 'damaged', problem: p ? `${p.field}: ${p.message}` : 'not a valid session' };
  }
  if (parsed.data.id !== id) return { state: 'damaged', problem: `id: says ${parsed.data.id}, not ${id}` };
  return { state: 'ok', session: parsed.data };
}

function isNewer(a: SessionFile, b: SessionFile): boolean {
  const ta = Date.parse(a.updated_at);
  const tb = Date.parse(b.updated_at);
  return ta > tb || (ta === tb && a.messages.length > b.messages.length);
}

/**
 * Settles one temp file of a dead writer: recovered as the session, or moved to leftovers/. The caller
 * holds the session's writer lock, so no save of the session runs meanwhile.
 */
export async function settleLeftover(dir: string, t: LeftoverTemp): Promise<LeftoverNote> {
  const tempFile = join(dir, t.name);
  const sessionFile = join(dir, `${t.id}.json`);
  const aside = join(dir, LEFTOVERS_DIR);
  await mkdir(aside, { recursive: true, mode: 0o700 });
  const temp = await readComplete(tempFile, t.id);
  const current = temp.state === 'ok' ? await readComplete(sessionFile, t.id) : undefined;
  if (temp.state === 'ok' && current && (current.state !== 'ok' || isNewer(temp.session, current.session))) {
    let replaced: string | undefined;
    if (current.state !== 'missing') {
      replaced = await freeName(join(aside, `${t.id}.json.replaced-${fileStamp()}`));
      // A second name for the old file (no copy, nothing moved): the rename below then replaces the
      // session file in one step, so no reader ever finds it missing.
      await link(sessionFile, replaced).catch(() => copyFile(sessionFile, replaced!, fs.constants.COPYFILE_EXCL));
    }
    await rename(tempFile, sessionFile);
    await syncDir(dir);
    const was =
      current.state === 'damaged' ? `the damaged file it replaced (${current.problem})` : 'the version it replaced';
    return {
      id: t.id,
      kind: 'recovered',
      file: sessionFile,
      ...(replaced ? { replaced } : {}),
      message: `recovered session ${t.id} from an interrupted save${replaced ? `; ${was} is kept as ${replaced}` : ''}`,
    };
  }
  const kept = await freeName(join(aside, t.name.slice(1)));
  await rename(tempFile, kept);
  await syncDir(dir);
  if (temp.state === 'ok') {
    return {
      id: t.id,
      kind: 'older',
      file: kept,
      message: `kept an older copy of session ${t.id} from an interrupted save as ${kept} (the session file is newer)`,
    };
  }
  const problem = temp.state === 'damaged' ? temp.problem : 'gone';
  return {
    id: t.id,
    kind: 'damaged',
    file: kept,
    message: `kept an incomplete copy of session ${t.id} from an interrupted save as ${kept} (${problem})`,
  };
}

/** `path`, or `path-2`, `path-3`… when it is taken (a pid reused since an earlier leftover). */
async function freeName(path: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? path : `${path}-${n}`;
    try {
      await stat(candidate);
    } catch {
      return candidate;
    }
  }
}

function fileStamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

/** The renames live in the folder: synced so they survive a power cut (best effort, as in atomicWrite.ts). */
async function syncDir(dir: string): Promise<void> {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Some file systems refuse to sync a folder; the files themselves are in place.
  }
}
