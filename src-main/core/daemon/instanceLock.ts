/**
 * One daemon per REIN_HOME. The lock is `<REIN_HOME>/daemon.pid` holding the owner's pid; taking it
 * is a check-and-write done under a short inter-process file lock, so two daemons starting at once
 * cannot both win. A pid file whose process is gone (a crash, a kill -9) is stale and taken over at
 * once, without waiting for any timeout.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { withFileLock } from '../util/fileLock.js';
import { isProcessAlive } from '../util/processAlive.js';

export const pidFile = (home: string): string => join(home, 'daemon.pid');

/** Homes whose lock this process holds (a second in-process daemon on the same home is refused too). */
const heldHere = new Set<string>();

export class DaemonAlreadyRunning extends Error {
  constructor(
    readonly pid: number,
    readonly file: string,
  ) {
    super(`another Rein daemon (pid ${pid}) already runs for this home (${file}); stop it with \`rein daemon stop\``);
  }
}

export interface InstanceLock {
  file: string;
  release(): Promise<void>;
}

export async function acquireInstanceLock(home: string): Promise<InstanceLock> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  const file = pidFile(home);
  await withFileLock(
    file,
    async () => {
      const owner = await readPid(file);
      if (owner !== undefined && isAlive(owner) && (owner !== process.pid || heldHere.has(home))) {
        throw new DaemonAlreadyRunning(owner, file);
      }
      await atomicWriteFile(file, `${process.pid}\n`, { mode: 0o600 });
      heldHere.add(home);
    },
    { waitMs: 5_000 },
  );
  let released = false;
  return {
    file,
    release: async () => {
      if (released) return;
      released = true;
      heldHere.delete(home);
      await withFileLock(
        file,
        async () => {
          if ((await readPid(file)) === process.pid) await rm(file, { force: true });
        },
        { waitMs: 5_000 },
      ).catch(() => undefined);
    },
  };
}

/** The pid in the lock file when its process is alive; undefined otherwise. */
export async function lockOwner(home: string): Promise<number | undefined> {
  const pid = await readPid(pidFile(home));
  return pid !== undefined && isAlive(pid) ? pid : undefined;
}

async function readPid(file: string): Promise<number | undefined> {
  try {
    const n = Number((await readFile(file, 'utf8')).trim());
    return Number.isInteger(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

export const isAlive = isProcessAlive;
