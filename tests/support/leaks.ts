/**
 * Finds what a test left behind: child processes still running and open handles (servers, sockets, pipes,
 * watchers, timers) that were not there when it started. A leak in one test shows up as a flaky failure
 * in another, or as a test run that never exits; this names the culprit at the test that caused it.
 *
 * `useLeakCheck()` at the top of a test file checks every test: the baseline is taken in its beforeEach
 * (so what beforeAll made, and whatever earlier tests of the file legitimately keep, is part of it), and
 * the check runs from onTestFinished, i.e. after every afterEach and beforeEach cleanup of the file has
 * run. So a resource a file's beforeEach makes must be gone by its afterEach.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { beforeEach } from 'vitest';

/**
 * Kinds that come and go on their own or belong to the terminal: in-flight fs requests and immediates finish
 * by themselves, and vitest's worker keeps its IPC pipes and a hook timer in both snapshots anyway.
 */
export const DEFAULT_IGNORED_HANDLES: readonly string[] = ['TTYWrap', 'Immediate', 'FSReqCallback', 'FSReqPromise'];

/**
 * Children inherit this, so on Linux a process that left our tree (a background job whose shell exited,
 * reparented to init) is still recognised as ours.
 */
const OWNER_ENV = 'REIN_LEAK_CHECK_OWNER';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  command: string;
}

export interface ResourceSnapshot {
  /** Keyed by pid plus start time, so a reused pid is a different process. */
  readonly processes: ReadonlyMap<string, ProcessInfo>;
  readonly handles: ReadonlyMap<string, number>;
}

export interface LeakedHandle {
  kind: string;
  before: number;
  after: number;
}

export interface LeakReport {
  processes: ProcessInfo[];
  handles: LeakedHandle[];
  /** Empty when nothing leaked; otherwise names every process (pid, command line) and handle kind (counts). */
  message: string;
}

export interface LeakCheckOptions {
  /** Handle kinds not to count, on top of DEFAULT_IGNORED_HANDLES. */
  ignoreHandles?: readonly string[];
  /** How long leaks may take to go away (a child dying after SIGTERM, a socket closing) before they count. */
  settleMs?: number;
}

export function snapshotResources(): ResourceSnapshot {
  process.env[OWNER_ENV] ??= String(process.pid);
  return { processes: ownProcesses(), handles: countHandles() };
}

/** One look: what exists now that did not in `before`. */
export function leakedSince(before: ResourceSnapshot, opts: Pick<LeakCheckOptions, 'ignoreHandles'> = {}): LeakReport {
  const ignored = new Set([...DEFAULT_IGNORED_HANDLES, ...(opts.ignoreHandles ?? [])]);
  const processes = [...ownProcesses()].filter(([key]) => !before.processes.has(key)).map(([, p]) => p);
  const handles: LeakedHandle[] = [];
  for (const [kind, after] of countHandles()) {
    const was = before.handles.get(kind) ?? 0;
    if (after > was && !ignored.has(kind)) handles.push({ kind, before: was, after });
  }
  return { processes, handles, message: describeLeaks(processes, handles) };
}

/** Polls until nothing is left or `settleMs` (2 s by default) passed; returns the last report. */
export async function waitForLeaks(before: ResourceSnapshot, opts: LeakCheckOptions = {}): Promise<LeakReport> {
  const deadline = Date.now() + (opts.settleMs ?? 2_000);
  for (;;) {
    const report = leakedSince(before, opts);
    if (report.message === '' || Date.now() >= deadline) return report;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Fails every test of the calling file that leaves a process or handle behind. Call once, at the top. */
export function useLeakCheck(opts: LeakCheckOptions = {}): void {
  beforeEach((ctx) => {
    const before = snapshotResources();
    ctx.onTestFinished(async () => {
      const report = await waitForLeaks(before, opts);
      if (report.message) throw new Error(report.message);
    });
  });
}

function describeLeaks(processes: ProcessInfo[], handles: LeakedHandle[]): string {
  if (processes.length === 0 && handles.length === 0) return '';
  const lines = ['the test left resources behind:'];
  for (const p of processes) lines.push(`  process ${p.pid} (parent ${p.ppid}): ${p.command}`);
  for (const h of handles)
    lines.push(`  handle ${h.kind}: ${h.before} before, ${h.after} after (+${h.after - h.before})`);
  return lines.join('\n');
}

function countHandles(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** Live (not zombie) processes descended from this one, or on Linux carrying our owner tag. */
function ownProcesses(): Map<string, ProcessInfo> {
  return process.platform === 'linux' ? fromProc() : fromPs();
}

interface Row extends ProcessInfo {
  key: string;
  zombie: boolean;
}

function fromProc(): Map<string, ProcessInfo> {
  const rows = new Map<number, Row>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // After the parenthesised command name: state ppid pgrp session tty tpgid flags … starttime (field 22).
      const close = stat.lastIndexOf(')');
      const f = stat.slice(close + 2).split(' ');
      const pid = Number(name);
      rows.set(pid, {
        pid,
        ppid: Number(f[1]),
        key: `${pid}:${f[19]}`,
        zombie: f[0] === 'Z',
        command: stat.slice(stat.indexOf('(') + 1, close),
      });
    } catch {
      // Exited while we looked.
    }
  }
  const out = new Map<string, ProcessInfo>();
  for (const row of rows.values()) {
    if (row.zombie || row.pid === process.pid) continue;
    if (!descends(row, rows) && !taggedAsOurs(row.pid)) continue;
    out.set(row.key, { pid: row.pid, ppid: row.ppid, command: commandLine(row.pid) ?? row.command });
  }
  return out;
}

function descends(row: Row, rows: Map<number, Row>): boolean {
  const seen = new Set<number>();
  for (let p: Row | undefined = row; p && !seen.has(p.pid); p = rows.get(p.ppid)) {
    if (p.ppid === process.pid) return true;
    seen.add(p.pid);
  }
  return false;
}

function taggedAsOurs(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`${OWNER_ENV}=${process.pid}`);
  } catch {
    return false; // not ours to read, or gone
  }
}

function commandLine(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replaceAll('\0', ' ');
    return text || undefined;
  } catch {
    return undefined;
  }
}

function fromPs(): Map<string, ProcessInfo> {
  const r = spawnSync('ps', ['-A', '-o', 'pid=,ppid=,stat=,lstart=,command='], { encoding: 'utf8' });
  const rows = new Map<number, Row>();
  for (const line of (r.stdout ?? '').split('\n')) {
    // lstart is five words: "Mon Jan  1 10:00:00 2026".
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\S+\s+\S+\s+\d+\s+\S+\s+\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === r.pid) continue; // ps itself
    rows.set(pid, { pid, ppid: Number(m[2]), zombie: m[3]!.startsWith('Z'), key: `${pid}:${m[4]}`, command: m[5]! });
  }
  const out = new Map<string, ProcessInfo>();
  for (const row of rows.values()) {
    if (!row.zombie && row.pid !== process.pid && descends(row, rows))
      out.set(row.key, { pid: row.pid, ppid: row.ppid, command: row.command });
  }
  return out;
}
