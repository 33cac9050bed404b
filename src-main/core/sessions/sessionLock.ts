/**
 * One writer per session at a time, across processes: a run holds `<sessions-dir>/<id>.json.lock` (an
 * owner-checked lock folder, util/ownedLock.ts — the very lock an older Rein's heartbeat alert took with
 * proper-lockfile, so the two exclude each other) from the moment it loads or makes the session until its last
 * save. A second writer — `rein run --session S` while the daemon or the app runs a turn of S, or the
 * other way round — waits for it (up to `REIN_SESSION_WAIT_MS`, 30 s by default) and then continues
 * from the file as the first one left it, or is refused with `session_busy` naming the process. A lock
 * left by a process that was killed is taken over at once (its pid is not alive). Between turns no lock
 * is held. Readers (`sessions show`, search, listings) never take it: every save replaces the file in
 * one step.
 */
import { join } from 'node:path';
import { ReinError } from '../errors.js';
import { acquireOwnedLock, describeOwner, type HeldLock, type LockOwner } from '../util/ownedLock.js';
import { describeWriteError, isStorageFailure } from '../util/diskErrors.js';

export const DEFAULT_SESSION_WAIT_MS = 30_000;

/** The wait for a session another process writes: `REIN_SESSION_WAIT_MS` (milliseconds, 0: refuse at once), else 30 s. */
export function sessionWaitMs(env: NodeJS.ProcessEnv): number {
  const raw = env.REIN_SESSION_WAIT_MS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_SESSION_WAIT_MS;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_SESSION_WAIT_MS;
}

export function sessionLockFile(dir: string, id: string): string {
  return join(dir, `${id}.json.lock`);
}

export interface SessionLockOptions {
  /** How long to wait for another writer (default 30 s; see sessionWaitMs). */
  waitMs?: number;
  /** Told once, in words (and who it is), when another writer holds the session and the caller waits for it. */
  onWait?: (message: string, owner: LockOwner | undefined) => void;
  signal?: AbortSignal;
}

/** "session S is in use by the Rein daemon (pid 4242)". */
export function sessionInUse(id: string, owner: LockOwner | undefined): string {
  return `session ${id} is in use by ${owner ? describeOwner(owner) : 'another Rein process'}`;
}

/**
 * Takes the session's writer lock (its folder must exist). Throws `session_busy` when it stays held.
 * Never stale by age: a run holds it for minutes; only a holder that is gone gives it up.
 */
export async function lockSessionFile(dir: string, id: string, opts: SessionLockOptions = {}): Promise<HeldLock> {
  try {
    return await takeSessionLock(dir, id, opts);
  } catch (e) {
    // A full (or failing) disk cannot take the lock's owner record, nor could it take the session: said
    // as the save it stops, naming the session's file (util/diskErrors.ts).
    if (!isStorageFailure(e)) throw e;
    const session = join(dir, `${id}.json`);
    throw describeWriteError(e, session, `save session ${id} to ${session}`);
  }
}

function takeSessionLock(dir: string, id: string, opts: SessionLockOptions): Promise<HeldLock> {
  const waitMs = opts.waitMs ?? DEFAULT_SESSION_WAIT_MS;
  const file = sessionLockFile(dir, id);
  return acquireOwnedLock(file, {
    waitMs,
    ...(opts.signal ? { signal: opts.signal } : {}),
    onWait: (owner) => opts.onWait?.(`${sessionInUse(id, owner)}; waiting…`, owner),
    busyError: (owner) =>
      new ReinError(
        'session_busy',
        waitMs > 0
          ? `${sessionInUse(id, owner)} and was not freed within ${seconds(waitMs)}; try again when its turn is over`
          : `${sessionInUse(id, owner)}; try again when its turn is over`,
        { id, file, ...(owner ? { pid: owner.pid, holder: owner.holder, host: owner.host } : {}) },
      ),
  });
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
