/**
 * A scheduled run, whoever fires it (launchd through `rein schedule run --from-launchd`, the daemon's
 * own cron jobs, or a person with `rein schedule run`): one unattended run of the schedule's prompt for
 * its agent, in a session of its own (source `schedule`, searchable with `--source schedule`), never
 * two at once for one schedule, with a log of its transcript and tool calls in
 * `<REIN_HOME>/schedules/<id>/logs/YYYY-MM-DD-HHmmss.log`, its outcome recorded on the schedule and
 * announced on the bus as `schedule_run`.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DaemonEvent, ReinEvent } from '../api/events.js';
import type { MessageResult } from '../api/protocol.js';
import { errorMessage } from '../errors.js';
import type { RunRequest } from '../runtime/runRequest.js';
import { MAX_RUN_LOGS, pruneScheduleLogs, scheduleDir, scheduleLogsDir, type LastRun, type Schedule, type ScheduleStore } from '../schedule/store.js';
import type { BusEntry } from './eventBus.js';
import { isProcessAlive } from '../util/processAlive.js';

export type ScheduleTrigger = 'launchd' | 'daemon' | 'hand';

/** How a run is started and awaited: the service's submit, or a daemon reached over HTTP. */
export type SubmitRun = (request: RunRequest, listener: (event: ReinEvent) => void) => Promise<MessageResult>;

export interface ScheduleRunDeps {
  home: string;
  store: ScheduleStore;
  submit: SubmitRun;
  publish?: (event: DaemonEvent) => void;
  now?: () => Date;
  /** Is this process id alive? (the overlap guard; tests replace it). */
  isAlive?: (pid: number) => boolean;
}

export interface ScheduleRunOutcome extends LastRun {
  /** The whole answer of the run, when it ran. */
  text?: string;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** `YYYY-MM-DD-HHmmss` in local time: logs list in order and read naturally. */
export function logName(at: Date): string {
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}-${pad(at.getHours())}${pad(at.getMinutes())}${pad(at.getSeconds())}.log`;
}

/**
 * Takes the schedule's run guard: `<dir>/run.pid` made exclusively. A file whose process is gone (a run
 * killed mid-way) is taken over. Returns the release, or the pid of the run still going.
 */
async function takeGuard(dir: string, isAlive: (pid: number) => boolean): Promise<{ release: () => Promise<void> } | { busy: number }> {
  const file = join(dir, 'run.pid');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return { release: () => rm(file, { force: true }) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return { busy: pid };
      await rm(file, { force: true });
    }
  }
  return { busy: -1 };
}

/** One line per event that a person reading the log wants: the answer, tool calls, notices, errors. */
function logLine(ev: ReinEvent): string | undefined {
  switch (ev.type) {
    case 'session_start':
      return `session ${ev.session_id} · agent ${ev.agent} · model ${ev.model} · origin ${ev.origin}`;
    case 'tool_call_start':
      return `▸ ${ev.tool} ${ev.summary}`;
    case 'tool_call_end':
      return ev.ok ? `  ✓ ${ev.tool} (${(ev.duration_ms / 1000).toFixed(1)} s)` : `  ✗ ${ev.tool}: ${ev.preview.split('\n')[0]}`;
    case 'approval_request':
      return `? approval asked for ${ev.tool}: ${ev.summary}`;
    case 'approval_response':
      return `  approval: ${ev.decision} (${ev.by})`;
    case 'notice':
      return `${ev.level}: ${ev.message}`;
    case 'error':
      return `error (${ev.code}): ${ev.message}`;
    case 'loop_nudge':
      return `loop: ${ev.detector} ${ev.action}`;
    case 'session_end':
      return `\n--- answer (${ev.stop_reason}, ${ev.iterations} iteration(s), $${ev.usage.cost_usd.toFixed(4)}) ---\n${ev.text}`;
    default:
      return undefined;
  }
}

/** Runs the schedule now. `note` is written at the head of the log (why it runs: a catch-up, by hand). */
export async function runSchedule(schedule: Schedule, trigger: ScheduleTrigger, deps: ScheduleRunDeps, note?: string): Promise<ScheduleRunOutcome> {
  const now = deps.now ?? (() => new Date());
  const started = now();
  const dir = scheduleDir(deps.home, schedule.id);
  const logs = scheduleLogsDir(deps.home, schedule.id);
  await mkdir(logs, { recursive: true, mode: 0o700 });
  const log = join(logs, logName(started));
  // Bounded: an hourly schedule would otherwise leave 8,760 logs a year.
  await pruneScheduleLogs(deps.home, schedule.id, MAX_RUN_LOGS - 1);
  const announce = (status: 'started' | 'finished' | 'failed' | 'skipped', extra: { session_id?: string; message?: string } = {}) =>
    deps.publish?.({ type: 'schedule_run', at: now().toISOString(), schedule_id: schedule.id, agent: schedule.agent, status, ...extra });

  const guard = await takeGuard(dir, deps.isAlive ?? isProcessAlive);
  if ('busy' in guard) {
    const message = `skipped: the previous run of this schedule is still going (pid ${guard.busy})`;
    await writeFile(log, `${started.toISOString()} ${message}\n`, { mode: 0o600 });
    const outcome: ScheduleRunOutcome = { at: started.toISOString(), status: 'skipped', message, log, trigger };
    await deps.store.recordRun(schedule.id, outcome);
    announce('skipped', { message });
    return outcome;
  }
  const lines: string[] = [`${started.toISOString()} schedule ${schedule.id} (${schedule.cron}) for agent ${schedule.agent}, started by ${trigger}`];
  if (note) lines.push(note);
  lines.push(`prompt: ${schedule.prompt}`, '');
  // The log is written as the run goes, so a run that dies midway leaves what it did.
  const fd = openSync(log, 'a', 0o600);
  const write = (line: string) => {
    try {
      writeSync(fd, `${line}\n`);
    } catch {
      // A full disk must not end the run; the session file keeps the transcript.
    }
  };
  for (const l of lines) write(l);
  let sessionId: string | undefined;
  try {
    await deps.store.recordRun(schedule.id, { at: started.toISOString(), status: 'started', log, trigger });
    announce('started');
    const request: RunRequest = {
      agent: schedule.agent,
      text: schedule.prompt,
      source: 'schedule',
      origin: 'unattended',
      entry: 'schedule',
      channel: `schedule-${schedule.id}`,
      sender: 'scheduler',
      // Each run in a session of its own: a schedule never lands in (or cancels) a person's conversation.
      session: { kind: 'ephemeral' },
    };
    let text = '';
    const result = await deps.submit(request, (ev) => {
      if (ev.type === 'session_start') sessionId = ev.session_id;
      if (ev.type === 'text_delta') text += ev.text;
      const line = logLine(ev);
      if (line !== undefined) write(line);
    });
    const ok = !result.injected && result.stop_reason === 'final';
    const answer = result.injected ? '' : result.text;
    const message = ok ? firstLine(answer) : result.injected ? 'the text went into a run already in flight' : (result.error?.message ?? `stopped: ${result.stop_reason}`);
    const outcome: ScheduleRunOutcome = {
      at: started.toISOString(),
      status: ok ? 'finished' : 'failed',
      ...(result.session_id ? { session_id: result.session_id } : sessionId ? { session_id: sessionId } : {}),
      log,
      message,
      trigger,
      text: answer || text,
    };
    await deps.store.recordRun(schedule.id, stripText(outcome));
    announce(outcome.status as 'finished' | 'failed', { ...(outcome.session_id ? { session_id: outcome.session_id } : {}), message });
    return outcome;
  } catch (e) {
    const message = `the run could not start: ${errorMessage(e)}`;
    write(`error: ${message}`);
    const outcome: ScheduleRunOutcome = { at: started.toISOString(), status: 'failed', log, message, trigger, ...(sessionId ? { session_id: sessionId } : {}) };
    await deps.store.recordRun(schedule.id, outcome).catch(() => undefined);
    announce('failed', { message });
    return outcome;
  } finally {
    closeSync(fd);
    await guard.release();
  }
}

function stripText(o: ScheduleRunOutcome): LastRun {
  const { text: _text, ...rest } = o;
  return rest;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** The service's submit as a SubmitRun: the run's events reach `listener` as they come. */
export function serviceSubmit(submit: (request: RunRequest, opts: { listener: (entry: BusEntry) => void }) => Promise<{ injected: true; result: MessageResult } | { injected: false; run: { done: Promise<MessageResult> } }>): SubmitRun {
  return async (request, listener) => {
    const outcome = await submit(request, {
      listener: (entry) => {
        if ('session_id' in entry.event && 'seq' in entry.event) listener(entry.event as ReinEvent);
      },
    });
    return outcome.injected ? outcome.result : outcome.run.done;
  };
}
