/** One scheduled run: unattended request, its own session, a log as it goes, the outcome recorded, never two at once. */
import { mkdtemp, readFile, readdir, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DaemonEvent, ReinEvent } from '../../../src-main/core/api/events.js';
import type { MessageResult } from '../../../src-main/core/api/protocol.js';
import type { RunRequest } from '../../../src-main/core/runtime/runRequest.js';
import {
  MAX_RUN_LOGS,
  pruneScheduleLogs,
  scheduleDir,
  scheduleLogsDir,
  ScheduleStore,
} from '../../../src-main/core/schedule/store.js';
import { lastRunView } from '../../../src-main/core/schedule/lastRunView.js';
import { runSchedule, type SubmitRun } from '../../../src-main/core/triggers/scheduleRuns.js';

const usage = {
  input_tokens: 1,
  output_tokens: 1,
  cache_read_tokens: 0,
  cache_creation_tokens: 0,
  cost_usd: 0.001,
  requests: 1,
};
const base = { session_id: '2026-01-05-0123456789ab', at: '2026-01-05T09:00:00.000Z' };

async function setup() {
  const home = await mkdtemp(join(tmpdir(), 'rein-sched-runs-'));
  const store = new ScheduleStore(home);
  const schedule = await store.create({ cron: '0 9 * * *', prompt: 'summarise the failures', agent: 'ops' });
  const requests: RunRequest[] = [];
  const published: DaemonEvent[] = [];
  const submit: SubmitRun = async (request, listener) => {
    requests.push(request);
    const events: ReinEvent[] = [
      {
        ...base,
        seq: 0,
        type: 'session_start',
        agent: 'ops',
        source: 'schedule',
        origin: 'unattended',
        model: 'm',
        resumed: false,
        cwd: '/',
      },
      {
        ...base,
        seq: 1,
        type: 'tool_call_start',
        call_id: 'c',
        tool: 'bash',
        input: { command: 'gh run list' },
        summary: '$ gh run list',
      },
      { ...base, seq: 2, type: 'tool_call_end', call_id: 'c', tool: 'bash', ok: true, preview: 'ok', duration_ms: 120 },
      { ...base, seq: 3, type: 'text_delta', text: 'Two jobs failed.' },
      { ...base, seq: 4, type: 'session_end', stop_reason: 'final', text: 'Two jobs failed.', usage, iterations: 2 },
    ];
    for (const e of events) listener(e);
    const result: MessageResult = {
      injected: false,
      route: 'once:x',
      agent: 'ops',
      session_id: base.session_id,
      text: 'Two jobs failed.',
      stop_reason: 'final',
      usage,
      iterations: 2,
    };
    return result;
  };
  return { home, store, schedule, requests, published, submit };
}

describe('runSchedule', () => {
  it('runs unattended in a session of its own, logs the tool calls and the answer, records and announces the outcome', async () => {
    const t = await setup();
    const outcome = await runSchedule(t.schedule, 'daemon', {
      home: t.home,
      store: t.store,
      submit: t.submit,
      publish: (e) => void t.published.push(e),
    });
    expect(t.requests[0]).toMatchObject({
      agent: 'ops',
      text: 'summarise the failures',
      source: 'schedule',
      origin: 'unattended',
      entry: 'schedule',
      session: { kind: 'ephemeral' },
    });
    expect(outcome).toMatchObject({
      status: 'finished',
      session_id: base.session_id,
      message: 'Two jobs failed.',
      trigger: 'daemon',
    });
    const log = await readFile(outcome.log!, 'utf8');
    expect(log).toContain('▸ bash $ gh run list');
    expect(log).toContain('Two jobs failed.');
    expect(outcome.log).toMatch(/logs\/\d{4}-\d{2}-\d{2}-\d{6}\.log$/);
    expect((await t.store.get(t.schedule.id)).last_run).toMatchObject({
      status: 'finished',
      session_id: base.session_id,
    });
    expect(t.published.map((e) => e.type === 'schedule_run' && e.status)).toEqual(['started', 'finished']);
    // The guard is released: nothing left in the schedule's folder but its logs.
    expect(await readdir(scheduleDir(t.home, t.schedule.id))).toEqual(['logs']);
  });

  it('keeps the newest run logs only: with the cap reached, a run drops the oldest', async () => {
    const t = await setup();
    const dir = scheduleLogsDir(t.home, t.schedule.id);
    await mkdir(dir, { recursive: true });
    // MAX_RUN_LOGS old runs, a day apart in 2020, plus a file that is not a run log.
    const old = Array.from({ length: MAX_RUN_LOGS }, (_, i) => {
      const d = new Date(Date.UTC(2020, 0, 1) + i * 86_400_000);
      return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}-${String(d.getUTCDate()).padStart(2, '0')}-090000.log`;
    });
    for (const n of old) await writeFile(join(dir, n), 'old run\n');
    await writeFile(join(dir, 'notes.txt'), 'mine\n');
    const outcome = await runSchedule(t.schedule, 'daemon', { home: t.home, store: t.store, submit: t.submit });
    const left = (await readdir(dir)).sort();
    expect(left.filter((n) => n.endsWith('.log'))).toHaveLength(MAX_RUN_LOGS);
    expect(left).not.toContain(old[0]);
    expect(left).toContain(old[1]);
    expect(left).toContain(outcome.log!.split('/').pop());
    expect(left).toContain('notes.txt');
    expect(await pruneScheduleLogs(t.home, t.schedule.id, 3)).toBe(MAX_RUN_LOGS - 3);
    expect((await readdir(dir)).filter((n) => n.endsWith('.log'))).toEqual(
      [...old.slice(-2), outcome.log!.split('/').pop()].sort(),
    );
  });

  it('skips while the previous run of the same schedule is alive, and says so', async () => {
    const t = await setup();
    await mkdir(scheduleDir(t.home, t.schedule.id), { recursive: true });
    await writeFile(join(scheduleDir(t.home, t.schedule.id), 'run.pid'), '4242\n');
    const outcome = await runSchedule(t.schedule, 'launchd', {
      home: t.home,
      store: t.store,
      submit: t.submit,
      isAlive: (pid) => pid === 4242,
    });
    expect(outcome).toMatchObject({ status: 'skipped', message: expect.stringContaining('still going (pid 4242)') });
    expect(t.requests).toEqual([]);
    expect(await readFile(outcome.log!, 'utf8')).toContain('skipped');
  });

  it('takes over the guard of a run that died, and records a run that could not start as failed', async () => {
    const t = await setup();
    await mkdir(scheduleDir(t.home, t.schedule.id), { recursive: true });
    await writeFile(join(scheduleDir(t.home, t.schedule.id), 'run.pid'), '4242\n');
    const failing: SubmitRun = async () => {
      throw new Error('agent "ops" not found');
    };
    const outcome = await runSchedule(t.schedule, 'hand', {
      home: t.home,
      store: t.store,
      submit: failing,
      isAlive: () => false,
    });
    expect(outcome).toMatchObject({ status: 'failed', message: expect.stringContaining('agent "ops" not found') });
    expect((await t.store.get(t.schedule.id)).last_run?.status).toBe('failed');
  });
});

describe('a scheduled run that is stopped (SIGTERM, shutdown, a client gone)', () => {
  /** A submit whose run goes on until its signal aborts, then ends `cancelled` as the loop does. */
  const stallUntilStopped: SubmitRun = (request, listener, signal) =>
    new Promise<MessageResult>((ok) => {
      listener({
        ...base,
        seq: 0,
        type: 'session_start',
        agent: request.agent,
        source: 'schedule',
        origin: 'unattended',
        model: 'm',
        resumed: false,
        cwd: '/',
      });
      signal?.addEventListener('abort', () => {
        listener({ ...base, seq: 1, type: 'session_end', stop_reason: 'cancelled', text: '', usage, iterations: 1 });
        ok({
          injected: false,
          route: 'once:x',
          agent: request.agent,
          session_id: base.session_id,
          text: '',
          stop_reason: 'cancelled',
          usage,
          iterations: 1,
        });
      });
    });

  it('is recorded interrupted with its end time and session, logs why, and leaves no run.pid', async () => {
    const t = await setup();
    const stop = new AbortController();
    const running = runSchedule(t.schedule, 'launchd', {
      home: t.home,
      store: t.store,
      submit: stallUntilStopped,
      publish: (e) => void t.published.push(e),
      signal: stop.signal,
    });
    // While it runs: `started`, claimed by this process, which is alive: the view says running.
    for (let i = 0; i < 100 && (await t.store.get(t.schedule.id)).last_run?.status !== 'started'; i++)
      await new Promise((r) => setTimeout(r, 5));
    const during = (await t.store.get(t.schedule.id)).last_run!;
    expect(during).toMatchObject({ status: 'started', pid: process.pid });
    expect(lastRunView(during)).toMatchObject({ status: 'running', ended_at: null });
    expect(await readdir(scheduleDir(t.home, t.schedule.id))).toContain('run.pid');
    stop.abort(new Error('stopped by SIGTERM'));
    const outcome = await running;
    expect(outcome).toMatchObject({
      status: 'interrupted',
      session_id: base.session_id,
      message: 'interrupted: stopped by SIGTERM',
      ended_at: expect.any(String),
    });
    const view = lastRunView((await t.store.get(t.schedule.id)).last_run!);
    expect(view).toMatchObject({
      status: 'interrupted',
      started_at: outcome.at,
      ended_at: outcome.ended_at,
      error: 'interrupted: stopped by SIGTERM',
      session: base.session_id,
      session_id: base.session_id,
    });
    expect(await readFile(outcome.log!, 'utf8')).toContain('interrupted: stopped by SIGTERM; the session is saved');
    expect(await readdir(scheduleDir(t.home, t.schedule.id))).toEqual(['logs']);
    expect(t.published.map((e) => e.type === 'schedule_run' && e.status)).toEqual(['started', 'interrupted']);
  });

  it('stopped before it was submitted: nothing runs, it is interrupted (not failed)', async () => {
    const t = await setup();
    const stop = new AbortController();
    stop.abort(new Error('stopped by SIGHUP'));
    const outcome = await runSchedule(t.schedule, 'hand', {
      home: t.home,
      store: t.store,
      submit: t.submit,
      signal: stop.signal,
    });
    expect(t.requests).toEqual([]);
    expect(outcome).toMatchObject({ status: 'interrupted', message: 'interrupted: stopped by SIGHUP' });
    expect(await readdir(scheduleDir(t.home, t.schedule.id))).toEqual(['logs']);
  });
});

describe('lastRunView (the last_run of `schedule show --json` and the API)', () => {
  const at = '2026-01-05T09:00:00.000Z';
  it('keeps the stored fields and adds started_at, ended_at, error and session', () => {
    expect(
      lastRunView({
        at,
        status: 'finished',
        ended_at: '2026-01-05T09:01:00.000Z',
        session_id: 's1',
        message: 'all green',
        log: '/l',
        trigger: 'launchd',
      }),
    ).toEqual({
      at,
      status: 'finished',
      started_at: at,
      ended_at: '2026-01-05T09:01:00.000Z',
      session: 's1',
      session_id: 's1',
      message: 'all green',
      log: '/l',
      trigger: 'launchd',
    });
    expect(lastRunView({ at, status: 'failed', ended_at: at, message: 'No API key' })).toMatchObject({
      status: 'failed',
      error: 'No API key',
    });
    expect(lastRunView({ at, status: 'skipped', message: 'still going' })).toMatchObject({
      status: 'skipped',
      ended_at: at,
    });
    expect(lastRunView({ at, status: 'skipped', message: 'x' })).not.toHaveProperty('error');
  });

  it('a started run reads running while its process lives, interrupted once it is gone (killed -9)', () => {
    expect(lastRunView({ at, status: 'started', pid: 4242 }, (pid) => pid === 4242)).toMatchObject({
      status: 'running',
      ended_at: null,
    });
    const gone = lastRunView({ at, status: 'started', pid: 4242 }, () => false);
    expect(gone).toMatchObject({ status: 'interrupted', ended_at: null, error: expect.stringContaining('pid 4242') });
    expect(gone).not.toHaveProperty('pid');
    // A record from before pids were kept: nobody can claim it still runs.
    expect(lastRunView({ at, status: 'started' })).toMatchObject({ status: 'interrupted' });
  });
});
