/**
 * A scheduled run, whoever fires it (launchd through `rein schedule run --from-launchd`, the daemon's
 * own cron jobs, or a person with `rein schedule run`): one unattended run of the schedule's prompt for
 * its agent, in a session of its own (source `schedule`, searchable with `--source schedule`), never
 * two at once for one schedule, with a log of its transcript, tool calls and refused calls in
 * `<REIN_HOME>/schedules/<id>/logs/YYYY-MM-DD-HHmmss.log` (`…_2.log` for a second start in that second),
 * its outcome recorded on the schedule and announced on the bus as `schedule_run`. A run stopped on the
 * way (its `signal`: SIGTERM at logout or shutdown, `launchctl bootout`, the daemon closing, a client
 * that went away) is cancelled — the loop saves its session — and recorded as `interrupted`; the guard
 * is released whatever happens.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DaemonEvent, ReinEvent } from '../api/events.js';
import type { MessageResult } from '../api/protocol.js';
import { errorMessage } from '../errors.js';
import { originFor, type RunRequest } from '../runtime/runRequest.js';
import { createRunLog, writeRunLog } from '../schedule/runLogs.js';
import {
  MAX_RUN_LOGS,
  pruneScheduleLogs,
  scheduleDir,
  scheduleLogsDir,
  type LastRun,
  type Schedule,
  type ScheduleStore,
} from '../schedule/store.js';
import type { BusEntry } from '../service/eventBus.js';
import { isProcessAlive } from '../util/processAlive.js';

export type ScheduleTrigger = 'launchd' | 'daemon' | 'hand';

/**
 * How a run is started and awaited: the service's submit, or a daemon reached over HTTP. When `signal`
 * aborts, the run is cancelled and the promise still resolves with its (cancelled) result.
 */
export type SubmitRun = (
  request: RunRequest,
  listener: (event: ReinEvent) => void,
  signal?: AbortSignal,
) => Promise<MessageResult>;

export interface ScheduleRunDeps {
  home: string;
  store: ScheduleStore;
  submit: SubmitRun;
  publish?: (event: DaemonEvent) => void;
  now?: () => Date;
  /** Is this process id alive? (the overlap guard; tests replace it). */
  isAlive?: (pid: number) => boolean;
  /** Stops the run (a signal, shutdown, the client gone): cancelled, its session saved, recorded `interrupted`. */
  signal?: AbortSignal;
}

export interface ScheduleRunOutcome extends LastRun {
  /** The whole answer of the run, when it ran. */
  text?: string;
}

/** `YYYY-MM-DD-HHmmss.log` in local time (`…_2.log` for a second run in the same second: runLogs.ts). */
export { logName } from '../schedule/runLogs.js';

/**
 * Takes the schedule's run guard: `<dir>/run.pid` made exclusively. A file whose process is gone (a run
 * killed mid-way) is taken over. Returns the release, or the pid of the run still going.
 */
async function takeGuard(
  dir: string,
  isAlive: (pid: number) => boolean,
): Promise<{ release: () => Promise<void> } | { busy: number }> {
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

/**
 * Removes the schedule's run guard now, synchronously, if this process holds it: for a process that must
 * exit before its run could end (the stop deadline, cli/stopSignals.ts). A guard of another process (the
 * daemon a run was handed to) is left alone.
 */
export function dropRunGuardSync(home: string, id: string, pid: number = process.pid): void {
  const file = join(scheduleDir(home, id), 'run.pid');
  try {
    if (Number(readFileSync(file, 'utf8').trim()) === pid) rmSync(file, { force: true });
  } catch {
    // No guard (the run already released it), or none readable: nothing to drop.
  }
}

/** One line per event that a person reading the log wants: the answer, tool calls, notices, errors. */
function logLine(ev: ReinEvent): string | undefined {
  switch (ev.type) {
    case 'session_start':
      return `session ${ev.session_id} · agent ${ev.agent} · model ${ev.model} · origin ${ev.origin}`;
    case 'tool_call_start':
      return `▸ ${ev.tool} ${ev.summary}`;
    case 'tool_call_end':
      return ev.ok
        ? `  ✓ ${ev.tool} (${(ev.duration_ms / 1000).toFixed(1)} s)`
        : `  ✗ ${ev.tool}: ${ev.preview.split('\n')[0]}`;
    case 'tool_call_denied':
      // A refused call never starts: the log says what it was and why it did not run.
      return `✗ ${ev.tool} denied (${ev.layer}${ev.by ? `, answered by ${ev.by}` : ''}): ${ev.reason.split('\n')[0]}\n  call: ${ev.summary}`;
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
    case 'retry':
      return `retry ${ev.attempt}/${ev.max_attempts} in ${(ev.delay_ms / 1000).toFixed(1)} s: ${ev.reason}`;
    case 'session_end':
      return `\n--- answer (${ev.stop_reason}, ${ev.iterations} iteration(s), $${ev.usage.cost_usd.toFixed(4)}) ---\n${ev.text}`;
    default:
      return undefined;
  }
}

/** Runs the schedule now. `note` is written at the head of the log (why it runs: a catch-up, by hand). */
export async function runSchedule(
  schedule: Schedule,
  trigger: ScheduleTrigger,
  deps: ScheduleRunDeps,
  note?: string,
): Promise<ScheduleRunOutcome> {
  const now = deps.now ?? (() => new Date());
  const started = now();
  const dir = scheduleDir(deps.home, schedule.id);
  const logs = scheduleLogsDir(deps.home, schedule.id);
  await mkdir(logs, { recursive: true, mode: 0o700 });
  // Bounded: an hourly schedule would otherwise leave 8,760 logs a year.
  await pruneScheduleLogs(deps.home, schedule.id, MAX_RUN_LOGS - 1);
  const announce = (
    status: 'started' | 'finished' | 'failed' | 'skipped' | 'interrupted',
    extra: { session_id?: string; message?: string } = {},
  ) =>
    deps.publish?.({
      type: 'schedule_run',
      at: now().toISOString(),
      schedule_id: schedule.id,
      agent: schedule.agent,
      status,
      ...extra,
    });

  const guard = await takeGuard(dir, deps.isAlive ?? isProcessAlive);
  if ('busy' in guard) {
    const message = `skipped: the previous run of this schedule is still going (pid ${guard.busy})`;
    // A log of its own, made exclusively: a skip in the same second never writes over the running run's log.
    const log = writeRunLog(logs, started, `${started.toISOString()} ${message}\n`);
    const outcome: ScheduleRunOutcome = {
      at: started.toISOString(),
      status: 'skipped',
      ended_at: started.toISOString(),
      message,
      log,
      trigger,
    };
    await deps.store.recordRun(schedule.id, outcome);
    announce('skipped', { message });
    return outcome;
  }
  const lines: string[] = [
    `${started.toISOString()} schedule ${schedule.id} (${schedule.cron}) for agent ${schedule.agent}, started by ${trigger}`,
  ];
  if (note) lines.push(note);
  lines.push(`prompt: ${schedule.prompt}`, '');
  // The log is written as the run goes, so a run that dies midway leaves what it did. It is made
  // exclusively, with a suffix when another run started in the same second (runLogs.ts).
  const { path: log, fd } = createRunLog(logs, started);
  const write = (line: string) => {
    try {
      writeSync(fd, `${line}\n`);
    } catch {
      // A full disk must not end the run; the session file keeps the transcript.
    }
  };
  for (const l of lines) write(l);
  let sessionId: string | undefined;
  const signal = deps.signal;
  /** Why the run was stopped, when its signal did. */
  const stopped = () => (signal?.aborted ? `interrupted: ${errorMessage(signal.reason ?? 'stopped')}` : undefined);
  try {
    await deps.store.recordRun(schedule.id, {
      at: started.toISOString(),
      status: 'started',
      pid: process.pid,
      log,
      trigger,
    });
    announce('started');
    if (stopped()) throw new StoppedBeforeStart();
    const request: RunRequest = {
      agent: schedule.agent,
      text: schedule.prompt,
      source: 'schedule',
      origin: originFor('schedule', 'schedule'),
      entry: 'schedule',
      channel: `schedule-${schedule.id}`,
      sender: 'scheduler',
      // Each run in a session of its own: a schedule never lands in (or cancels) a person's conversation.
      session: { kind: 'ephemeral' },
    };
    let text = '';
    const result = await deps.submit(
      request,
      (ev) => {
        if (ev.type === 'session_start') sessionId = ev.session_id;
        if (ev.type === 'text_delta') text += ev.text;
        const line = logLine(ev);
        if (line !== undefined) write(line);
      },
      signal,
    );
    const ok = !result.injected && result.stop_reason === 'final';
    const interrupted = !ok && !result.injected && result.stop_reason === 'cancelled';
    const answer = result.injected ? '' : result.text;
    const message = ok
      ? firstLine(answer)
      : result.injected
        ? 'the text went into a run already in flight'
        : interrupted
          ? (stopped() ?? `interrupted: ${result.error?.message ?? 'the run was cancelled'}`)
          : (result.error?.message ?? `stopped: ${result.stop_reason}`);
    if (interrupted) write(`\n${now().toISOString()} ${message}; the session is saved`);
    const outcome: ScheduleRunOutcome = {
      at: started.toISOString(),
      status: ok ? 'finished' : interrupted ? 'interrupted' : 'failed',
      ended_at: now().toISOString(),
      ...(result.session_id ? { session_id: result.session_id } : sessionId ? { session_id: sessionId } : {}),
      log,
      message,
      trigger,
      text: answer || text,
    };
    await deps.store.recordRun(schedule.id, stripText(outcome));
    announce(outcome.status as 'finished' | 'failed' | 'interrupted', {
      ...(outcome.session_id ? { session_id: outcome.session_id } : {}),
      message,
    });
    return outcome;
  } catch (e) {
    // Stopped before it could start (or while starting): interrupted, not failed.
    const why = stopped();
    const message = why ?? `the run could not start: ${errorMessage(e)}`;
    write(why ? `${now().toISOString()} ${why}` : `error: ${message}`);
    const status = why ? 'interrupted' : 'failed';
    const outcome: ScheduleRunOutcome = {
      at: started.toISOString(),
      status,
      ended_at: now().toISOString(),
      log,
      message,
      trigger,
      ...(sessionId ? { session_id: sessionId } : {}),
    };
    await deps.store.recordRun(schedule.id, outcome).catch(() => undefined);
    announce(status, { message });
    return outcome;
  } finally {
    closeSync(fd);
    await guard.release();
  }
}

/** Thrown when the stop came before the run was submitted: nothing ran. */
class StoppedBeforeStart extends Error {
  constructor() {
    super('stopped before the run started');
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

/**
 * The service's submit as a SubmitRun: the run's events reach `listener` as they come; `signal` aborts
 * the run's own controller, so the loop ends `cancelled` (saving its session) and `done` still resolves.
 */
export function serviceSubmit(
  submit: (
    request: RunRequest,
    opts: { listener: (entry: BusEntry) => void },
  ) => Promise<
    | { injected: true; result: MessageResult }
    | { injected: false; run: { done: Promise<MessageResult>; controller: AbortController } }
  >,
): SubmitRun {
  return async (request, listener, signal) => {
    const outcome = await submit(request, {
      listener: (entry) => {
        if ('session_id' in entry.event && 'seq' in entry.event) listener(entry.event as ReinEvent);
      },
    });
    if (outcome.injected) return outcome.result;
    const { run } = outcome;
    if (!signal) return run.done;
    const stop = () => run.controller.abort(signal.reason);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    try {
      return await run.done;
    } finally {
      signal.removeEventListener('abort', stop);
    }
  };
}
