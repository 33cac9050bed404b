/**
 * Schedules as the service offers them to every face (HTTP, the desktop window, the web UI): list with
 * next fire times, create, change, remove, run now, and the run logs. The store and the backend's jobs
 * are core/schedule's; the runs themselves are scheduleRuns.ts's.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ReinError, fieldError } from '../errors.js';
import { checkCron } from '../schedule/cronCheck.js';
import { DEFAULT_CATCH_UP } from '../schedule/catchUp.js';
import { lastRunView, type LastRunView } from '../schedule/lastRunView.js';
import type { Schedules } from '../schedule/schedules.js';
import { compareLogNames, parseLogName, RUN_LOG_NAME } from '../schedule/runLogs.js';
import { scheduleLogsDir, type Schedule } from '../schedule/store.js';

export type ScheduleView = Omit<Schedule, 'last_run' | 'catch_up'> & {
  /** once, skip or within <duration> (the default filled in). */
  catch_up: string;
  last_run?: LastRunView;
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
  const { last_run, catch_up, ...rest } = s;
  return {
    ...rest,
    catch_up: catch_up ?? DEFAULT_CATCH_UP,
    ...(last_run ? { last_run: lastRunView(last_run) } : {}),
    next,
    backend,
  };
}

export type ScheduleLogEntry = {
  name: string;
  /** When the run started (from the name), ISO. */
  at: string;
  size: number;
};

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
    const parsed = parseLogName(name);
    if (!parsed) continue;
    const size = (await stat(join(dir, name)).catch(() => undefined))?.size ?? 0;
    out.push({ name, at: parsed.at.toISOString(), size });
  }
  return out.sort((a, b) => compareLogNames(b.name, a.name));
}

/** One log's text (the newest when `name` is absent); at most 1 MiB, from the end. */
export async function readScheduleLog(
  home: string,
  id: string,
  name?: string,
): Promise<{ name: string; text: string; truncated: boolean }> {
  if (name !== undefined && !RUN_LOG_NAME.test(name))
    throw fieldError(
      'invalid_request',
      'name: expected a log name like 2026-01-05-090000.log (or 2026-01-05-090000_2.log)',
      'name',
    );
  const chosen = name ?? (await scheduleLogs(home, id))[0]?.name;
  if (!chosen) throw new ReinError('not_found', `schedule ${id} has no run logs yet`);
  let text: string;
  try {
    text = await readFile(join(scheduleLogsDir(home, id), chosen), 'utf8');
  } catch {
    throw new ReinError('not_found', `no log ${chosen} for schedule ${id}`);
  }
  const max = 1024 * 1024;
  return text.length > max
    ? { name: chosen, text: text.slice(-max), truncated: true }
    : { name: chosen, text, truncated: false };
}

export async function listScheduleViews(schedules: Schedules): Promise<ScheduleView[]> {
  return (await schedules.list()).map((s) => scheduleView(s, schedules.backend));
}
