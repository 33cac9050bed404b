/**
 * Schedules as the service offers them to every face (HTTP, the desktop window, the web UI): list with
 * next fire times, create, change, remove, run now, and the run logs. The store and the backend's jobs
 * are core/schedule's; the runs themselves are scheduleRuns.ts's.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ReinError, fieldError } from '../errors.js';
import { checkCron } from '../schedule/cronCheck.js';
import type { Schedules } from '../schedule/schedules.js';
import { scheduleLogsDir, type Schedule } from '../schedule/store.js';

export type ScheduleView = Schedule & {
  /** The next fire times (ISO), for an enabled schedule. */
  next: string[];
  backend: string;
};

export function scheduleView(s: Schedule, backend: string, count = 3, from = new Date()): ScheduleView {
  let next: string[] = [];
  if (s.enabled) {
    try {
      next = checkCron(s.cron)
        .next(from, count)
        .map((d) => d.toISOString());
    } catch {
      next = [];
    }
  }
  return { ...s, next, backend };
}

export type ScheduleLogEntry = {
  name: string;
  /** When the run started (from the name), ISO. */
  at: string;
  size: number;
};

const LOG_NAME = /^(\d{4})-(\d{2})-(\d{2})-(\d{2})(\d{2})(\d{2})\.log$/;

/** The schedule's run logs, newest first. */
export async function scheduleLogs(home: string, id: string): Promise<ScheduleLogEntry[]> {
  const dir = scheduleLogsDir(home, id);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const out: ScheduleLogEntry[] = [];
  for (const name of names) {
    const m = LOG_NAME.exec(name);
    if (!m) continue;
    const at = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])).toISOString();
    const size = (await stat(join(dir, name)).catch(() => undefined))?.size ?? 0;
    out.push({ name, at, size });
  }
  return out.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
}

/** One log's text (the newest when `name` is absent); at most 1 MiB, from the end. */
export async function readScheduleLog(home: string, id: string, name?: string): Promise<{ name: string; text: string; truncated: boolean }> {
  if (name !== undefined && !LOG_NAME.test(name)) throw fieldError('invalid_request', 'name: expected a log name like 2026-01-05-090000.log', 'name');
  const chosen = name ?? (await scheduleLogs(home, id))[0]?.name;
  if (!chosen) throw new ReinError('not_found', `schedule ${id} has no run logs yet`);
  let text: string;
  try {
    text = await readFile(join(scheduleLogsDir(home, id), chosen), 'utf8');
  } catch {
    throw new ReinError('not_found', `no log ${chosen} for schedule ${id}`);
  }
  const max = 1024 * 1024;
  return text.length > max ? { name: chosen, text: text.slice(-max), truncated: true } : { name: chosen, text, truncated: false };
}

export async function listScheduleViews(schedules: Schedules): Promise<ScheduleView[]> {
  return (await schedules.list()).map((s) => scheduleView(s, schedules.backend));
}
