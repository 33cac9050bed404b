/**
 * Commands start children of their own (pipelines, `npm test` → node → workers). Killing only the leader
 * leaves those running, so children run as the leader of a new process group (`detached: true`) and are
 * stopped by signalling the whole group: SIGTERM first so they can clean up, SIGKILL for whatever lingers.
 */
import { readdirSync, readFileSync } from 'node:fs';

const POLL_MS = 25;

/** Signals every member of the group; 0 only asks whether the group exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (e) {
    // EPERM: the group exists but a member is not ours to signal; still "alive".
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether any non-zombie process is still in the group. kill(-pgid, 0) also succeeds for zombies, which linger
 * when PID 1 does not reap (containers), so on Linux the process table is checked for live members.
 */
export function processGroupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return true;
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // Fields after the parenthesised command name: state ppid pgrp …
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
  }
  return false;
}

/** Polls until the group has no live member; false when `ms` passed first. */
export async function waitUntilGroupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!processGroupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * SIGTERM the group, SIGKILL it after `graceMs` if anything survives. Resolves once the group is gone (true)
 * or, when even SIGKILL left a member for a second (stuck in the kernel, or not ours), given up on (false).
 */
export async function killProcessGroup(pgid: number, graceMs = 2_000): Promise<boolean> {
  if (!signalGroup(pgid, 'SIGTERM')) return true;
  if (await waitUntilGroupGone(pgid, graceMs)) return true;
  signalGroup(pgid, 'SIGKILL');
  return waitUntilGroupGone(pgid, 1_000);
}
