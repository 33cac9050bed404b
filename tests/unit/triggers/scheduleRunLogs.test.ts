/**
 * The files a schedule's runs leave: run logs that never share a name (two starts in one second), listed
 * and pruned in the order the runs started; refused tool calls in the log; launchd's logs rotated.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReinEvent } from '../../../src-main/core/api/events.js';
import type { MessageResult } from '../../../src-main/core/api/protocol.js';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import {
  compareLogNames,
  createRunLog,
  logName,
  parseLogName,
  rotateLaunchdLogs,
} from '../../../src-main/core/schedule/runLogs.js';
import {
  pruneScheduleLogs,
  scheduleDir,
  scheduleLogsDir,
  ScheduleStore,
} from '../../../src-main/core/schedule/store.js';
import { ReinService } from '../../../src-main/core/service/reinService.js';
import { runSchedule, type SubmitRun } from '../../../src-main/core/triggers/scheduleRuns.js';
import { readScheduleLog, scheduleLogs } from '../../../src-main/core/service/schedules.js';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';

const usage = {
  input_tokens: 1,
  output_tokens: 1,
  cache_read_tokens: 0,
  cache_creation_tokens: 0,
  cost_usd: 0,
  requests: 1,
};
const SESSION = '2026-01-05-0123456789ab';

async function setup() {
  const home = await mkdtemp(join(tmpdir(), 'rein-run-logs-'));
  const store = new ScheduleStore(home);
  const schedule = await store.create({ cron: '0 9 * * *', prompt: 'tidy up', agent: 'default' });
  return { home, store, schedule };
}

/** A submit that ends at once with `answer`, or when `hold` resolves. */
function submitter(answer: string, hold?: Promise<void>): SubmitRun {
  return async (_request, listener) => {
    const base = { session_id: SESSION, at: new Date().toISOString() };
    listener({
      ...base,
      seq: 0,
      type: 'session_start',
      agent: 'default',
      source: 'schedule',
      origin: 'unattended',
      model: 'm',
      resumed: false,
      cwd: '/',
    });
    await hold;
    listener({ ...base, seq: 1, type: 'session_end', stop_reason: 'final', text: answer, usage, iterations: 1 });
    const result: MessageResult = {
      injected: false,
      route: 'once:x',
      agent: 'default',
      session_id: SESSION,
      text: answer,
      stop_reason: 'final',
      usage,
      iterations: 1,
    };
    return result;
  };
}

describe('run log names', () => {
  it('two runs that start in the same second get two logs: the second is _2, and both list in start order', async () => {
    const t = await setup();
    const second = new Date(2026, 0, 5, 9, 0, 0, 0);
    const now = () => new Date(second.getTime() + 300);
    const a = await runSchedule(t.schedule, 'launchd', {
      home: t.home,
      store: t.store,
      submit: submitter('first answer'),
      now,
    });
    const b = await runSchedule(t.schedule, 'hand', {
      home: t.home,
      store: t.store,
      submit: submitter('second answer'),
      now,
    });
    expect(a.log!.endsWith('/2026-01-05-090000.log')).toBe(true);
    expect(b.log!.endsWith('/2026-01-05-090000_2.log')).toBe(true);
    expect(await readFile(a.log!, 'utf8')).toContain('first answer');
    expect(await readFile(a.log!, 'utf8')).not.toContain('second answer');
    expect(await readFile(b.log!, 'utf8')).toContain('second answer');
    expect((await scheduleLogs(t.home, t.schedule.id)).map((l) => l.name)).toEqual([
      '2026-01-05-090000_2.log',
      '2026-01-05-090000.log',
    ]);
    expect((await readScheduleLog(t.home, t.schedule.id)).text).toContain('second answer');
    expect((await readScheduleLog(t.home, t.schedule.id, '2026-01-05-090000_2.log')).name).toBe(
      '2026-01-05-090000_2.log',
    );
  });

  it('a run skipped beside the one still going, in the same second, writes its own log and leaves the running one alone', async () => {
    const t = await setup();
    const now = () => new Date(2026, 0, 5, 9, 0, 0, 0);
    let release!: () => void;
    const hold = new Promise<void>((ok) => (release = ok));
    const running = runSchedule(t.schedule, 'launchd', {
      home: t.home,
      store: t.store,
      submit: submitter('the real answer', hold),
      now,
    });
    // Wait for the first run to hold its guard and its log.
    while (!existsSync(join(scheduleDir(t.home, t.schedule.id), 'run.pid')))
      await new Promise((ok) => setTimeout(ok, 5));
    const skipped = await runSchedule(t.schedule, 'hand', {
      home: t.home,
      store: t.store,
      submit: submitter('never'),
      now,
    });
    release();
    const done = await running;
    expect(skipped.status).toBe('skipped');
    expect(skipped.log).not.toBe(done.log);
    expect(await readFile(skipped.log!, 'utf8')).toContain('skipped: the previous run of this schedule is still going');
    const log = await readFile(done.log!, 'utf8');
    expect(log).toContain('prompt: tidy up');
    expect(log).toContain('the real answer');
    expect(log).not.toContain('skipped');
  });

  it('sorts by time, then by the suffix as a number; ls order (bytes) agrees up to _9', () => {
    const names = [
      '2026-01-05-090001.log',
      '2026-01-05-090000_10.log',
      '2026-01-05-090000_2.log',
      '2026-01-05-090000.log',
      '2026-01-05-090000_9.log',
    ];
    expect([...names].sort(compareLogNames)).toEqual([
      '2026-01-05-090000.log',
      '2026-01-05-090000_2.log',
      '2026-01-05-090000_9.log',
      '2026-01-05-090000_10.log',
      '2026-01-05-090001.log',
    ]);
    const few = names.filter((n) => !n.includes('_10'));
    expect([...few].sort()).toEqual([...few].sort(compareLogNames));
    expect(logName(new Date(2026, 0, 5, 9, 0, 0), 3)).toBe('2026-01-05-090000_3.log');
    expect(parseLogName('2026-01-05-090000_3.log')).toEqual({ at: new Date(2026, 0, 5, 9, 0, 0), n: 3 });
    expect(parseLogName('2026-01-05-090000_0.log')).toBeUndefined();
    expect(parseLogName('notes.txt')).toBeUndefined();
  });

  it('creation is exclusive: an existing name is never reused or truncated, the next suffix is taken', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rein-run-logs-'));
    const at = new Date(2026, 0, 5, 9, 0, 0);
    await writeFile(join(dir, '2026-01-05-090000.log'), 'an earlier run\n');
    await writeFile(join(dir, '2026-01-05-090000_2.log'), 'another\n');
    const log = createRunLog(dir, at);
    expect(log.name).toBe('2026-01-05-090000_3.log');
    expect(await readFile(join(dir, '2026-01-05-090000.log'), 'utf8')).toBe('an earlier run\n');
    expect((await stat(log.path)).mode & 0o777).toBe(0o600);
  });

  it('pruning keeps the newest by start order, suffixes counted', async () => {
    const t = await setup();
    const dir = scheduleLogsDir(t.home, t.schedule.id);
    await mkdir(dir, { recursive: true });
    for (const n of [
      '2026-01-05-090000.log',
      '2026-01-05-090000_2.log',
      '2026-01-05-090000_10.log',
      '2026-01-05-090001.log',
    ])
      await writeFile(join(dir, n), 'x');
    expect(await pruneScheduleLogs(t.home, t.schedule.id, 2)).toBe(2);
    expect((await readdir(dir)).sort(compareLogNames)).toEqual(['2026-01-05-090000_10.log', '2026-01-05-090001.log']);
  });
});

describe('launchd logs', () => {
  it('a log over the limit is renamed to .1 (replacing an older one); smaller and missing ones are left alone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rein-launchd-logs-'));
    const out = join(dir, 'launchd.out.log');
    const err = join(dir, 'launchd.err.log');
    await writeFile(out, 'x'.repeat(2048));
    await writeFile(`${out}.1`, 'the oldest');
    await writeFile(err, 'small');
    expect(await rotateLaunchdLogs([out, err, join(dir, 'absent.log')], 1024)).toEqual([out]);
    expect(existsSync(out)).toBe(false);
    expect(await readFile(`${out}.1`, 'utf8')).toBe('x'.repeat(2048));
    expect(await readFile(err, 'utf8')).toBe('small');
    expect(existsSync(`${err}.1`)).toBe(false);
  });
});

describe('refused tool calls in the run log', () => {
  let fake: FakeAnthropic | undefined;
  let service: ReinService | undefined;
  afterEach(async () => {
    await service?.dispose();
    await fake?.close();
    service = undefined;
    fake = undefined;
  });

  it('a call the unattended run may not make is logged as denied, with its layer and why; it did not run', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rein-denied-log-'));
    const cwd = await mkdtemp(join(tmpdir(), 'rein-denied-cwd-'));
    fake = await startFakeAnthropic();
    fake.enqueue(tools([toolCall('bash', { command: 'touch notes.txt' })]), text('I could not write the notes.'));
    service = await ReinService.create({
      home,
      cwd,
      env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'test-key', REIN_SCHEDULE_BACKEND: 'daemon' },
      config: GlobalConfig.parse({}),
      version: 'test',
    });
    const events: ReinEvent[] = [];
    service.subscribe((e) => {
      if ('seq' in e.event) events.push(e.event);
    });
    const schedule = await new ScheduleStore(home).create({
      cron: '0 9 * * *',
      prompt: 'write the notes',
      agent: 'default',
    });
    const outcome = await service.runScheduleNow(schedule.id, 'hand');
    expect(outcome.status).toBe('finished');
    const log = await readFile(outcome.log!, 'utf8');
    expect(log).toMatch(
      /^✗ bash denied \(origin\): nobody is watching this schedule run, so a call that needs approval is not run.*$/m,
    );
    expect(log).toContain('  call: $ touch notes.txt');
    expect(log).not.toContain('▸ bash');
    expect(existsSync(join(cwd, 'notes.txt'))).toBe(false);
    // On the bus (the app, the daemon's streams) as the event, with no start or end of the call.
    expect(events.filter((e) => e.type === 'tool_call_denied')).toEqual([
      expect.objectContaining({
        type: 'tool_call_denied',
        tool: 'bash',
        summary: '$ touch notes.txt',
        layer: 'origin',
        reason: expect.stringContaining('nobody is watching'),
      }),
    ]);
    expect(events.some((e) => e.type === 'tool_call_start' || e.type === 'tool_call_end')).toBe(false);
  });
});
