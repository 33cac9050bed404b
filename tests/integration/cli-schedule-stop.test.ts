/**
 * A scheduled run as a real `rein` child process, told to stop (issue 24): SIGTERM — logout, shutdown,
 * `launchctl bootout` — mid-stream cancels it, saves its session, records `interrupted` and leaves no
 * run.pid, also with a second SIGTERM right behind and when the run was handed to a daemon; a run killed
 * outright reads `interrupted` once its process is gone. An unattended run that cannot reach the model
 * (the network not back after a wake) waits for it; an attended one fails at once. And `catch_up`
 * through the CLI.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GlobalConfig } from '../../src-main/core/config/schema.js';
import { startDaemon, type DaemonHandle } from '../../src-main/core/daemon/daemon.js';
import { cleanEnv, rein, startRein, tempHome } from '../support/cli.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { lateListener, type LateListener } from '../support/lateListener.js';

let fake: FakeAnthropic;
let late: LateListener | undefined;
let daemon: DaemonHandle | undefined;
let home: string;
let cwd: string;
let env: NodeJS.ProcessEnv;
const children: ReturnType<typeof startRein>[] = [];

beforeEach(async () => {
  fake = await startFakeAnthropic();
  ({ home, cwd } = await tempHome());
  env = cleanEnv({
    REIN_HOME: home,
    HOME: cwd,
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: 'test-key',
    REIN_SCHEDULE_BACKEND: 'daemon',
  });
});

afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
    await c.done;
  }
  await daemon?.dispose();
  daemon = undefined;
  await late?.close();
  late = undefined;
  await fake.close();
});

const json = (s: string) => JSON.parse(s);
const until = async <T>(what: string, fn: () => T | undefined | Promise<T | undefined>): Promise<T> => {
  for (let i = 0; i < 400; i++) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
};
const create = async (extra: string[] = [], cron = '* * * * *') =>
  json(
    (await rein(['schedule', 'create', '--cron', cron, '--prompt', 'check CI', ...extra, '--json'], { env, cwd }))
      .stdout,
  ) as { id: string };
const show = async (id: string) => json((await rein(['schedule', 'show', id, '--json'], { env, cwd })).stdout);
const runPid = (id: string) => join(home, 'schedules', id, 'run.pid');
const start = (args: string[], e = env) => {
  const c = startRein(args, { env: e, cwd });
  children.push(c);
  return c;
};
const newestLog = async (id: string) => {
  const dir = join(home, 'schedules', id, 'logs');
  const names = (await readdir(dir).catch(() => [] as string[])).sort();
  return names.length ? readFile(join(dir, names.at(-1)!), 'utf8') : '';
};

describe('rein schedule run, stopped by a signal', () => {
  it('SIGTERM mid-stream: cancelled, session saved, recorded interrupted, no run.pid; shown running until then', async () => {
    const s = await create();
    fake.enqueue({ kind: 'stall' });
    const c = start(['schedule', 'run', s.id, '--json']);
    await until('the model request', () => fake.requests.length === 1);
    const during = (await show(s.id)).last_run;
    expect(during).toMatchObject({ status: 'running', ended_at: null, started_at: expect.any(String) });
    expect(existsSync(runPid(s.id))).toBe(true);

    c.child.kill('SIGTERM');
    // The stall never ends on its own: exiting at all is the process stopping by itself, not the model.
    const r = await c.done;
    expect(r.code, r.stderr).toBe(143);
    const outcome = json(r.stdout);
    expect(outcome).toMatchObject({ status: 'interrupted', message: 'interrupted: stopped by SIGTERM' });

    const last = (await show(s.id)).last_run;
    expect(last).toMatchObject({
      status: 'interrupted',
      error: 'interrupted: stopped by SIGTERM',
      session: outcome.session_id,
      session_id: outcome.session_id,
      trigger: 'hand',
    });
    expect(Date.parse(last.ended_at)).toBeGreaterThanOrEqual(Date.parse(last.started_at));
    expect(existsSync(runPid(s.id))).toBe(false);
    const session = json(await readFile(join(home, 'sessions', `${outcome.session_id}.json`), 'utf8'));
    expect(session).toMatchObject({ source: 'schedule' });
    expect(session.messages[0]).toMatchObject({ role: 'user' });
    expect(await newestLog(s.id)).toContain('interrupted: stopped by SIGTERM; the session is saved');
  });

  it('SIGTERM after SIGTERM (launchd at logout): none of them kills it before it has recorded the run', async () => {
    const s = await create();
    fake.enqueue({ kind: 'stall' });
    const c = start(['schedule', 'run', s.id, '--from-launchd']);
    await until('the model request', () => fake.requests.length === 1);
    // One every few milliseconds until it is gone, so several land while it cancels, saves and records.
    const storm = setInterval(() => c.child.kill('SIGTERM'), 3);
    const r = await c.done.finally(() => clearInterval(storm));
    // Killed early it would have left `started` and its run.pid: it recorded the run and cleaned up first.
    expect((await show(s.id)).last_run, r.stderr).toMatchObject({
      status: 'interrupted',
      trigger: 'launchd',
      ended_at: expect.any(String),
      session: expect.any(String),
    });
    expect(existsSync(runPid(s.id))).toBe(false);
    expect(r.stderr.match(/stopping the run/g)).toHaveLength(1);
    // It exits with its own code — unless a signal lands in the last instant of its exit, after all that.
    if (c.child.signalCode === null) expect(r.code).toBe(143);
  });

  it('SIGKILL (nothing can record it): last_run reads interrupted once the process is gone, and the next run takes over', async () => {
    const s = await create();
    fake.enqueue({ kind: 'stall' });
    const c = start(['schedule', 'run', s.id]);
    await until('the model request', () => fake.requests.length === 1);
    c.child.kill('SIGKILL');
    await c.done;
    expect(JSON.parse(await readFile(join(home, 'schedules.json'), 'utf8')).schedules[0].last_run.status).toBe(
      'started',
    );
    expect((await show(s.id)).last_run).toMatchObject({
      status: 'interrupted',
      ended_at: null,
      error: expect.stringContaining('ended without recording'),
    });
    fake.enqueue(text('green again'));
    const again = await rein(['schedule', 'run', s.id, '--json'], { env, cwd });
    expect(again.code, again.stderr).toBe(0);
    expect((await show(s.id)).last_run).toMatchObject({ status: 'finished', message: 'green again' });
  });

  it('handed to a running daemon: SIGTERM to the command stops the daemon’s run too, recorded interrupted', async () => {
    // Not due now: the daemon's own clock must not start it as well.
    const s = await create([], '0 0 1 1 *');
    daemon = await startDaemon({
      home,
      cwd,
      port: 0,
      host: '127.0.0.1',
      env: { ...env, REIN_RETRY_BASE_MS: '1' },
      config: GlobalConfig.parse({}),
      warn: () => undefined,
      shutdownGraceMs: 200,
    });
    fake.enqueue({ kind: 'stall' });
    const c = start(['schedule', 'run', s.id]);
    await until('the model request', () => fake.requests.length === 1);
    c.child.kill('SIGTERM');
    const r = await c.done;
    expect(r.code, r.stdout + r.stderr).toBe(143);
    expect(r.stdout).toContain('interrupted');
    const last = await until('the daemon to record the run', async () => {
      const l = (await show(s.id)).last_run;
      return l?.status === 'interrupted' ? l : undefined;
    });
    expect(last).toMatchObject({ error: expect.stringContaining('interrupted'), session: expect.any(String) });
    expect(existsSync(runPid(s.id))).toBe(false);
  });
});

describe('rein run, stopped alike', () => {
  it('SIGTERM after SIGTERM mid-stream: cancelled, the session saved, exit 1 — never killed first', async () => {
    fake.enqueue({ kind: 'stall' });
    const c = start(['run', '--json', 'wait for it']);
    await until('the model request', () => fake.requests.length === 1);
    const storm = setInterval(() => c.child.kill('SIGTERM'), 3);
    const r = await c.done.finally(() => clearInterval(storm));
    const end = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((e) => e.type === 'session_end');
    expect(end, r.stderr).toMatchObject({ stop_reason: 'cancelled' });
    const session = json(await readFile(join(home, 'sessions', `${end.session_id}.json`), 'utf8'));
    expect(session.messages[0]).toMatchObject({ role: 'user' });
    if (c.child.signalCode === null) expect(r.code).toBe(1);
  });
});

describe('waiting for the network (a wake before Wi-Fi is back)', () => {
  it('an unattended run whose model host refuses connections waits, logs it, and succeeds once it answers', async () => {
    late = await lateListener(fake.url);
    const e = { ...env, ANTHROPIC_BASE_URL: late.url, REIN_NETWORK_WAIT_MS: '120000' };
    const s = await create();
    fake.enqueue(text('back online'));
    const c = start(['schedule', 'run', s.id, '--json'], e);
    await until('the run log to say it waits', async () => (await newestLog(s.id)).includes('waiting for the network'));
    expect(fake.requests).toHaveLength(0);
    await late.start();
    const r = await c.done;
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ status: 'finished', text: 'back online' });
    expect(await newestLog(s.id)).toMatch(/retry \d+\/\d+ in 2\.0 s: waiting for the network \(ECONNREFUSED\)/);
  });

  it('with the wait used up it fails, saying it waited for the network', async () => {
    late = await lateListener(fake.url);
    const s = await create();
    const r = await rein(['schedule', 'run', s.id, '--json'], {
      env: { ...env, ANTHROPIC_BASE_URL: late.url, REIN_NETWORK_WAIT_MS: '1500' },
      cwd,
    });
    expect(r.code).toBe(1);
    const outcome = json(r.stdout);
    expect(outcome.status).toBe('failed');
    expect(outcome.message).toMatch(/could not be reached \(ECONNREFUSED\) after waiting \d+ s for the network/);
    expect((await show(s.id)).last_run).toMatchObject({ status: 'failed', error: outcome.message });
  });

  it('an attended run does not wait: today’s quick failure', async () => {
    late = await lateListener(fake.url);
    const r = await rein(['run', 'hello'], {
      env: { ...env, ANTHROPIC_BASE_URL: late.url, REIN_NETWORK_WAIT_MS: '120000' },
      cwd,
    });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toContain('ECONNREFUSED');
    expect(r.stdout + r.stderr).not.toContain('waiting for the network');
  });
});

describe('catch_up through the CLI', () => {
  /** Makes the schedule look as if it existed long before its last due time (the Mac was off). */
  const backdate = async () => {
    const file = join(home, 'schedules.json');
    const stored = json(await readFile(file, 'utf8'));
    stored.schedules[0].created_at = stored.schedules[0].updated_at = new Date(
      Date.now() - 400 * 86_400_000,
    ).toISOString();
    await writeFile(file, JSON.stringify(stored, null, 2));
  };
  const yearly = '0 0 1 1 *';
  const dueNow = () => {
    const n = new Date();
    return n.getMonth() === 0 && n.getDate() === 1 && n.getHours() === 0 && n.getMinutes() === 0;
  };

  it('create and update take --catch-up; show has it (once by default); a bad value exits 2 naming catch_up', async () => {
    const plain = await create([], '@daily');
    expect((await show(plain.id)).catch_up).toBe('once');
    const s = await create(['--catch-up', 'within 2h'], '@daily');
    expect((await show(s.id)).catch_up).toBe('within 2h');
    const bad = await rein(['schedule', 'create', '--cron', '@daily', '--prompt', 'x', '--catch-up', 'sometimes'], {
      env,
      cwd,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('catch_up:');
    const updated = await rein(['schedule', 'update', s.id, '--catch-up', 'skip', '--json'], { env, cwd });
    expect(json(updated.stdout).catch_up).toBe('skip');
    expect((await rein(['schedule', 'list'], { env, cwd })).stdout).toContain('catch-up skip');
  });

  it('from launchd after a missed time: skip runs nothing; within 2h of a time missed long ago runs nothing; once runs', async () => {
    if (dueNow()) return;
    for (const [setting, runs] of [
      ['skip', false],
      ['within 2h', false],
      ['once', true],
    ] as const) {
      ({ home, cwd } = await tempHome());
      env = { ...env, REIN_HOME: home, HOME: cwd };
      await create(['--catch-up', setting], yearly);
      const id = json((await rein(['schedule', 'list', '--json'], { env, cwd })).stdout)[0].id as string;
      await backdate();
      const before = fake.requests.length;
      if (runs) fake.enqueue(text('caught up'));
      const r = await rein(['schedule', 'run', id, '--from-launchd'], { env, cwd });
      expect(r.code, `${setting}: ${r.stderr}`).toBe(0);
      expect(fake.requests.length - before, setting).toBe(runs ? 1 : 0);
      const log = await newestLog(id);
      if (runs) expect(log).toContain('catching up');
      else expect(log, setting).toContain(`catch_up: ${setting}`);
    }
  });
});
