/**
 * An inter-process lock that knows its holder, so a lock left by a process that died (kill -9, a crash,
 * a power cut) is taken over at once instead of after a timeout. The lock is a folder (callers name it
 * `<file>.lock`) made with one mkdir, exactly as proper-lockfile (fileLock.ts) makes it, so a Rein that
 * still locks the same file that way excludes this one and the other way round. It holds `owner.json`:
 * the holder's pid, host, process start time (Linux), a nonce and who it is (`holder`).
 *
 * A lock is stale, and taken over, when its holder is on this host and is gone: the pid is not alive, is
 * a zombie, or is alive but started at another time (the pid was reused). A holder on another host (a
 * REIN_HOME on a shared disk) cannot be checked: its lock goes stale only by age, when the caller gives
 * `staleMs`. A folder without `owner.json` is an older Rein's (proper-lockfile refreshes its mtime while
 * held) or one being made this instant: stale after 10 s without a refresh, as proper-lockfile has it.
 *
 * Taking over is serialised by a second folder, `<lock>.break`, held for a few system calls: the
 * breaker checks that the lock is still the one it judged stale before removing it, so two processes
 * that find the same stale lock never both end up holding the new one.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ReinError, errorMessage } from '../errors.js';
import { isProcessAlive } from './processAlive.js';

const OWNER_FILE = 'owner.json';
/** How long a lock folder without an owner stays live: proper-lockfile's `stale` (fileLock.ts). */
export const UNOWNED_STALE_MS = 10_000;
/** The break folder is held for a few system calls; one older than this was left by a breaker that died. */
const BREAK_STALE_MS = 5_000;
/** Stale locks broken in one acquire before giving up (something keeps leaving them, or they cannot be removed). */
const MAX_BREAKS = 50;
const DEFAULT_WAIT_MS = 30_000;

const LockOwnerSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  /** The process's start time (Linux: clock ticks since boot, /proc/<pid>/stat), to tell a reused pid. */
  start: z.string().optional(),
  nonce: z.string().min(1),
  /** ISO time the lock was taken. */
  since: z.string(),
  /** Who holds it, for messages: `the Rein daemon`, `rein run`, … */
  holder: z.string().optional(),
});
export type LockOwner = z.infer<typeof LockOwnerSchema>;

export interface OwnedLockOptions {
  /** Who holds it, recorded in the lock and shown to whoever finds it held (default: this process, see lockHolderName). */
  holder?: string;
  /** How long to wait for a live holder before giving up (default 30 s; 0: try once). */
  waitMs?: number;
  /**
   * A lock older than this is stale even when its holder looks alive (or cannot be checked: another
   * host). Only for locks held briefly; a lock held for a whole run must not set it.
   */
  staleMs?: number;
  signal?: AbortSignal;
  /** Told once, when the lock is found held by a live process and the caller starts waiting. */
  onWait?: (owner: LockOwner | undefined) => void;
  /** The error thrown when the wait is over and the lock is still held (default: `unavailable`, naming the holder). */
  busyError?: (owner: LockOwner | undefined) => Error;
  /** Clock and pause between tries (tests inject them). */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface HeldLock {
  /** The lock folder. */
  readonly lock: string;
  readonly owner: LockOwner;
  /** Removes the lock if it is still this one; returns whether it was (false: it was taken over meanwhile). */
  release(): Promise<boolean>;
}

/** Locks this process holds, by nonce: a lock of our own pid with another nonce is a dead predecessor's. */
const heldHere = new Map<string, Promise<void>>();

let ownStart: string | undefined | null = null;
const ownStartTime = (): string | undefined =>
  ownStart === null ? (ownStart = procStat(process.pid)?.start) : ownStart;

/** Takes the lock folder `lock` (its parent folder must exist), waiting for a live holder up to `waitMs`. */
export async function acquireOwnedLock(lock: string, opts: OwnedLockOptions = {}): Promise<HeldLock> {
  const dir = lock;
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? defaultSleep;
  const deadline = now() + Math.max(0, opts.waitMs ?? DEFAULT_WAIT_MS);
  const start = ownStartTime();
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    ...(start !== undefined ? { start } : {}),
    nonce: randomBytes(9).toString('base64url'),
    since: new Date(now()).toISOString(),
    holder: opts.holder ?? lockHolderName(),
  };
  let waiting = false;
  let breaks = 0;
  for (let attempt = 0; ; attempt++) {
    if (opts.signal?.aborted)
      throw new ReinError(
        'internal',
        `gave up taking the lock ${dir}: the run was stopped`,
        { lock: dir },
        { cause: opts.signal.reason },
      );
    let made = false;
    try {
      await mkdir(dir, { mode: 0o700 });
      made = true;
      await writeFile(join(dir, OWNER_FILE), JSON.stringify(owner), { mode: 0o600, flag: 'wx' });
      return hold(dir, owner);
    } catch (e) {
      if (made) {
        // Could not say who holds it (a full disk): leave no ownerless lock behind for 10 s.
        await removeLock(dir).catch(() => undefined);
        throw lockError(dir, e);
      }
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw lockError(dir, e);
    }
    const seen = await inspect(dir, now);
    if (!seen) continue; // released meanwhile: try again at once
    if (isStale(seen, opts.staleMs)) {
      if (++breaks > MAX_BREAKS)
        throw new ReinError('internal', `could not take the lock ${dir}: it keeps being left behind stale`, {
          lock: dir,
        });
      try {
        await breakStale(dir, seen, now);
      } catch (e) {
        throw lockError(dir, e);
      }
      continue;
    }
    if (now() >= deadline) {
      throw (
        opts.busyError?.(seen.owner) ??
        new ReinError('unavailable', `the lock ${dir} is held by ${describeOwner(seen.owner)}`, {
          lock: dir,
          ...(seen.owner ? { owner: seen.owner } : {}),
        })
      );
    }
    if (!waiting) {
      waiting = true;
      opts.onWait?.(seen.owner);
    }
    // A holder in this process says when it is done; others are polled, soon at first, then every 50 ms.
    const pause = Math.min(50, 2 + attempt * 4) * (0.5 + Math.random() / 2);
    const mine = seen.owner && seen.owner.pid === process.pid ? heldHere.get(seen.owner.nonce) : undefined;
    await (mine ? Promise.race([mine, sleep(pause)]) : sleep(pause));
  }
}

/** Runs `fn` holding the lock folder `lock`; warns (does not throw) when the lock was taken over meanwhile. */
export async function withOwnedLock<T>(lock: string, fn: () => Promise<T>, opts: OwnedLockOptions = {}): Promise<T> {
  const held = await acquireOwnedLock(lock, opts);
  try {
    return await fn();
  } finally {
    const kept = await held.release().catch(() => true);
    if (!kept) console.warn(`rein: the lock ${lock} was taken over while held (it looked stale)`);
  }
}

/** Who holds the lock folder `lock` now, if anyone says so (an older Rein's lock names nobody). */
export async function readLockOwner(lock: string): Promise<LockOwner | undefined> {
  return readOwner(lock);
}

/** `rein run (pid 123)`, `the Rein daemon (pid 4242 on mac.local)`, for messages. */
export function describeOwner(owner: LockOwner | undefined): string {
  if (!owner) return 'another Rein process (an older Rein, or one taking the lock this moment)';
  const elsewhere = owner.host !== hostname() ? ` on ${owner.host}` : '';
  return `${owner.holder ?? 'a Rein process'} (pid ${owner.pid}${elsewhere})`;
}

let holderName: string | undefined;
/** Who this process is, for locks it takes: set by the process's entry point, else guessed from its arguments. */
export function setLockHolderName(name: string): void {
  holderName = name;
}
export function lockHolderName(): string {
  if (holderName) return holderName;
  if (process.versions.electron) return 'the Rein app';
  const words = process.argv
    .slice(2)
    .filter((a) => /^[a-z][a-z-]*$/.test(a))
    .slice(0, 2);
  if (words[0] === 'daemon') return 'the Rein daemon';
  return words.length > 0 ? `rein ${words.join(' ')}` : 'a Rein process';
}

// --- inside -------------------------------------------------------------------------------------------

interface Seen {
  owner: LockOwner | undefined;
  ageMs: number;
}

function hold(dir: string, owner: LockOwner): HeldLock {
  let done: () => void = () => undefined;
  heldHere.set(owner.nonce, new Promise<void>((r) => (done = r)));
  let released: Promise<boolean> | undefined;
  return {
    lock: dir,
    owner,
    release: () =>
      (released ??= (async () => {
        try {
          // Only our own: a lock taken over (judged stale by age) is the new holder's now.
          if ((await readOwner(dir))?.nonce !== owner.nonce) return false;
          await removeLock(dir);
          return true;
        } finally {
          heldHere.delete(owner.nonce);
          done();
        }
      })()),
  };
}

async function inspect(dir: string, now: () => number): Promise<Seen | undefined> {
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(dir)).mtimeMs;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return { owner: await readOwner(dir), ageMs: now() - mtimeMs };
}

async function readOwner(dir: string): Promise<LockOwner | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, OWNER_FILE), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = LockOwnerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // cut short (a full disk): judged like a lock naming nobody
  }
}

function isStale(seen: Seen, staleMs: number | undefined): boolean {
  const { owner, ageMs } = seen;
  const old = staleMs !== undefined && ageMs > staleMs;
  if (!owner) return ageMs > UNOWNED_STALE_MS || old;
  if (owner.host !== hostname()) return old;
  // Our own pid: ours only while we hold it; any other nonce was a dead process's that had our pid.
  if (owner.pid === process.pid) return !heldHere.has(owner.nonce);
  if (!isProcessAlive(owner.pid)) return true;
  const now = procStat(owner.pid);
  if (now?.state === 'Z') return true; // dead, not yet reaped by its parent
  if (owner.start !== undefined && now?.start !== undefined && now.start !== owner.start) return true; // pid reused
  return old;
}

/** Removes the lock `seen` described, if it is still that one (see the module comment). */
async function breakStale(dir: string, seen: Seen, now: () => number): Promise<void> {
  const breaker = `${dir}.break`;
  try {
    await mkdir(breaker, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    // Another process is breaking it; one that died doing so left its break folder: clear it.
    const age = await stat(breaker).then(
      (s) => now() - s.mtimeMs,
      () => 0,
    );
    if (age > BREAK_STALE_MS) await rmdir(breaker).catch(() => undefined);
    return;
  }
  try {
    const again = await inspect(dir, now);
    if (!again || again.owner?.nonce !== seen.owner?.nonce) return; // changed hands meanwhile: judge anew
    if (!seen.owner && again.ageMs <= UNOWNED_STALE_MS) return; // a fresh ownerless one: someone is taking it
    await removeLock(dir);
  } finally {
    await rmdir(breaker).catch(() => undefined);
  }
}

async function removeLock(dir: string): Promise<void> {
  await unlink(join(dir, OWNER_FILE)).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw e;
  });
  await rmdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw e;
  });
}

/** Linux's view of a process: its state letter and start time; undefined elsewhere or when it is gone. */
function procStat(pid: number): { state: string; start: string } | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: the fields that follow start after the last ')'.
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const state = rest[0];
    const start = rest[19]; // field 22, starttime
    return state && start ? { state, start } : undefined;
  } catch {
    return undefined;
  }
}

function lockError(lock: string, e: unknown): ReinError {
  return new ReinError('internal', `could not take the lock ${lock}: ${errorMessage(e)}`, { lock }, { cause: e });
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
