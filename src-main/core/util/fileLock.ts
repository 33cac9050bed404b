/**
 * An inter-process lock around a file, for read-modify-write and appends that several Rein processes
 * (the app, the daemon, a CLI run) may do at once. The lock is a `<file>.lock` folder (proper-lockfile),
 * so the file itself need not exist yet; its folder must.
 */
import type * as Lockfile from 'proper-lockfile';
import { ReinError, errorMessage } from '../errors.js';

/** Loaded by the first lock: proper-lockfile brings graceful-fs, signal-exit and assert with it. */
let lockfileModule: Promise<typeof Lockfile> | undefined;
const loadLockfile = () =>
  (lockfileModule ??= import('proper-lockfile').then((m) => (m as { default?: typeof Lockfile }).default ?? m));

export interface FileLockOptions {
  /** How long to keep retrying before giving up (roughly); default 30 s. */
  waitMs?: number;
}

export async function withFileLock<T>(file: string, fn: () => Promise<T>, opts: FileLockOptions = {}): Promise<T> {
  let compromised: Error | undefined;
  const maxTimeout = 50;
  let release: () => Promise<void>;
  try {
    const lockfile = await loadLockfile();
    release = await lockfile.lock(file, {
      realpath: false,
      stale: 10_000,
      retries: {
        retries: Math.max(1, Math.ceil((opts.waitMs ?? 30_000) / maxTimeout)),
        minTimeout: 2,
        maxTimeout,
        randomize: true,
      },
      // The default throws from a timer, which would kill the process; report it at release instead.
      onCompromised: (err) => {
        compromised = err;
      },
    });
  } catch (e) {
    throw new ReinError('internal', `could not lock ${file}: ${errorMessage(e)}`, { file }, { cause: e });
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
    if (compromised) {
      // The work is done; another process may have taken the lock meanwhile. Nothing to undo, but say so.
      console.warn(`rein: the lock on ${file} was lost while held: ${compromised.message}`);
    }
  }
}
