/**
 * `rein schedule` as a person (and launchd) uses it: the exact commands and --json shapes, the launchd
 * backend end to end with a stand-in launchctl (REIN_LAUNCH_AGENTS_DIR, REIN_LAUNCHCTL), the daemon
 * backend, runs by hand and from launchd (the due check, the catch-up, headless and handed to a
 * running daemon), logs and next fire times.
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, rein, tempHome } from '../support/cli.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { parsePlist, plistCalendarIntervals } from '../../src-main/core/schedule/launchdPlist.js';
import { GlobalConfig } from '../../src-main/core/config/schema.js';
import { startDaemon, type DaemonHandle } from '../../src-main/core/daemon/daemon.js';

const FAKE_LAUNCHCTL = resolve(__dirname, '../fixtures/schedule/fake-launchctl.mjs');

let fake: FakeAnthropic;
let home: string;
let cwd: string;
let agentsDir: string;
let launchctlDir: string;
let notified: string;
let env: NodeJS.ProcessEnv;
let daemon: DaemonHandle | undefined;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  ({ home, cwd } = await tempHome());
  const root = await mkdtemp(join(tmpdir(), 'rein-launchd-'));
  agentsDir = join(root, 'LaunchAgents');
  launchctlDir = join(root, 'launchctl');
  await mkdir(launchctlDir, { recursive: true });
  // Stand-ins for notify-send (Linux) and osascript (macOS) that write down their arguments: a
  // launchd run made here notifies, and no test shows a real notification.
  const bin = join(root, 'bin');
  notified = join(root, 'notified.txt');
  await mkdir(bin);
  for (const name of ['notify-send', 'osascript']) {
    await writeFile(join(bin, name), `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done >> '${notified}'\n`);
    await chmod(join(bin, name), 0o755);
  }
  env = cleanEnv({
    PATH: `${bin}:${process.env.PATH}`,
    REIN_HOME: home,
    HOME: root,
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: 'test-key',
    REIN_SCHEDULE_BACKEND: 'launchd',
    REIN_LAUNCH_AGENTS_DIR: agentsDir,
    REIN_LAUNCHCTL: FAKE_LAUNCHCTL,
    FAKE_LAUNCHCTL_DIR: launchctlDir,
    FAKE_LAUNCHCTL_LINGER: '1',
  });
});

afterEach(async () => {
  await daemon?.dispose();
  daemon = undefined;
  await fake.close();
});

const json = (s: string) => JSON.parse(s);
const calls = async () =>
  (await readFile(join(launchctlDir, 'calls.jsonl'), 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { args: string[] }).args.slice(0, 1)[0]);

describe('rein schedule on the launchd backend', () => {
  it('create --json prints the schedule with its id; its plist names the job, the program and every fire time', async () => {
    const r = await rein(
      ['schedule', 'create', '--cron', '30 9 * * 1-5', '--prompt', 'check CI and summarise failures', '--json'],
      { env, cwd },
    );
    expect(r.code, r.stderr).toBe(0);
    const s = json(r.stdout);
    expect(s).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{8}$/),
      cron: '30 9 * * 1-5',
      agent: 'default',
      enabled: true,
      backend: 'launchd',
    });
    const plistPath = join(agentsDir, `dev.rein.schedule.${s.id}.plist`);
    const parsed = parsePlist(await readFile(plistPath, 'utf8'));
    const plist = parsed as Record<string, unknown>;
    expect(plist.Label).toBe(`dev.rein.schedule.${s.id}`);
    expect((plist.ProgramArguments as string[]).slice(-4)).toEqual(['schedule', 'run', s.id, '--from-launchd']);
    expect(plist.EnvironmentVariables).toMatchObject({ REIN_HOME: home });
    expect(plist.StandardOutPath).toBe(join(home, 'schedules', s.id, 'launchd.out.log'));
    expect(plistCalendarIntervals(parsed)).toEqual([1, 2, 3, 4, 5].map((d) => ({ Minute: 30, Hour: 9, Weekday: d })));
    expect(await calls()).toEqual(['print', 'bootstrap']);
  });

  it('update rewrites and reloads the job; disable and remove take it away; enable brings it back', async () => {
    const s = json(
      (await rein(['schedule', 'create', '--cron', '@hourly', '--prompt', 'poll', '--json'], { env, cwd })).stdout,
    );
    const plistPath = join(agentsDir, `dev.rein.schedule.${s.id}.plist`);
    expect((await rein(['schedule', 'update', s.id, '--cron', '*/20 * * * *', '--json'], { env, cwd })).code).toBe(0);
    expect(plistCalendarIntervals(parsePlist(await readFile(plistPath, 'utf8')))).toEqual([
      { Minute: 0 },
      { Minute: 20 },
      { Minute: 40 },
    ]);
    expect((await calls()).slice(2)).toEqual(expect.arrayContaining(['bootout', 'bootstrap']));
    expect((await rein(['schedule', 'disable', s.id], { env, cwd })).code).toBe(0);
    await expect(readFile(plistPath)).rejects.toThrow();
    expect((await rein(['schedule', 'enable', s.id], { env, cwd })).code).toBe(0);
    expect(await readFile(plistPath, 'utf8')).toContain(`dev.rein.schedule.${s.id}`);
    const removed = await rein(['schedule', 'remove', s.id], { env, cwd });
    expect(removed.stdout).toContain(`removed schedule ${s.id}`);
    await expect(readFile(plistPath)).rejects.toThrow();
    expect(json((await rein(['schedule', 'list', '--json'], { env, cwd })).stdout)).toEqual([]);
  });

  it('refuses a bad expression or prompt with exit 2 naming the field, and writes nothing', async () => {
    for (const [cron, field] of [
      ['61 * * * *', 'minute'],
      ['0 9 * * FRI-SUN', 'day of week'],
      ['0 9 */2 * 1-5', 'cron'],
      ['@reboot', 'cron'],
    ] as const) {
      const r = await rein(['schedule', 'create', '--cron', cron, '--prompt', 'x'], { env, cwd });
      expect(r.code, cron).toBe(2);
      expect(r.stderr, cron).toContain('cron:');
      expect(r.stderr, cron).toContain(field);
    }
    const blank = await rein(['schedule', 'create', '--cron', '@daily', '--prompt', '  '], { env, cwd });
    expect(blank.code).toBe(2);
    expect(blank.stderr).toContain('prompt');
    await expect(readdir(agentsDir)).rejects.toThrow();
    expect(json((await rein(['schedule', 'list', '--json'], { env, cwd })).stdout)).toEqual([]);
  });

  it('next lists upcoming fire times; show has the schedule whole', async () => {
    const s = json(
      (await rein(['schedule', 'create', '--cron', '0 0 1 * *', '--prompt', 'monthly', '--json'], { env, cwd })).stdout,
    );
    const next = json((await rein(['schedule', 'next', s.id, '--count', '3', '--json'], { env, cwd })).stdout);
    expect(next.next).toHaveLength(3);
    for (const t of next.next) expect(new Date(t).getDate()).toBe(1);
    const text = await rein(['schedule', 'next', s.id, '--count', '2'], { env, cwd });
    expect(text.stdout.trim().split('\n')).toHaveLength(2);
    expect(json((await rein(['schedule', 'show', s.id, '--json'], { env, cwd })).stdout)).toMatchObject({
      id: s.id,
      prompt: 'monthly',
    });
    expect((await rein(['schedule', 'show', 'deadbeef'], { env, cwd })).code).toBe(1);
  });
});

describe('rein schedule run', () => {
  it('runs by hand, headless and unattended: a session of source schedule, a log, the outcome recorded', async () => {
    fake.enqueue(text('CI is green.'));
    const s = json(
      (await rein(['schedule', 'create', '--cron', '@daily', '--prompt', 'check CI', '--json'], { env, cwd })).stdout,
    );
    const r = await rein(['schedule', 'run', s.id, '--json'], { env, cwd });
    expect(r.code, r.stderr).toBe(0);
    const outcome = json(r.stdout);
    expect(outcome).toMatchObject({ status: 'finished', trigger: 'hand', text: 'CI is green.' });
    expect(await readFile(outcome.log, 'utf8')).toContain('CI is green.');
    const session = json(await readFile(join(home, 'sessions', `${outcome.session_id}.json`), 'utf8'));
    expect(session.source).toBe('schedule');
    expect(json((await rein(['schedule', 'show', s.id, '--json'], { env, cwd })).stdout).last_run).toMatchObject({
      status: 'finished',
      session_id: outcome.session_id,
    });
    const logs = await rein(['schedule', 'logs', s.id], { env, cwd });
    expect(logs.stdout).toContain('CI is green.');
    // Searchable by source.
    const found = json(
      (await rein(['sessions', 'search', 'green', '--source', 'schedule', '--json'], { env, cwd })).stdout,
    );
    expect(found[0]).toMatchObject({ session_id: outcome.session_id, source: 'schedule' });
  });

  it('from launchd at a minute the cron does not name (and nothing missed): skips, logs why, runs nothing', async () => {
    const s = json(
      (await rein(['schedule', 'create', '--cron', '0 0 1 1 *', '--prompt', 'new year', '--json'], { env, cwd }))
        .stdout,
    );
    const now = new Date();
    if (now.getMonth() === 0 && now.getDate() === 1 && now.getHours() === 0 && now.getMinutes() === 0) return; // it is due
    const r = await rein(['schedule', 'run', s.id, '--from-launchd'], { env, cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('skipped');
    expect(fake.requests).toHaveLength(0);
    const logs = await readdir(join(home, 'schedules', s.id, 'logs'));
    expect(logs).toHaveLength(1);
  });

  it('from launchd after a missed time (the Mac slept): runs once and says it caught up', async () => {
    fake.enqueue(text('caught up'));
    const s = json(
      (await rein(['schedule', 'create', '--cron', '0 0 1 1 *', '--prompt', 'yearly', '--json'], { env, cwd })).stdout,
    );
    // Pretend the schedule exists since long before its last due time.
    const file = join(home, 'schedules.json');
    const stored = json(await readFile(file, 'utf8'));
    stored.schedules[0].created_at = stored.schedules[0].updated_at = new Date(
      Date.now() - 400 * 86_400_000,
    ).toISOString();
    await writeFile(file, JSON.stringify(stored, null, 2));
    const r = await rein(['schedule', 'run', s.id, '--from-launchd', '--json'], { env, cwd });
    expect(r.code, r.stderr).toBe(0);
    const outcome = json(r.stdout);
    expect(outcome).toMatchObject({ status: 'finished', trigger: 'launchd' });
    expect(await readFile(outcome.log, 'utf8')).toContain('catching up');
    // Nobody watched it: it ends with a system notification, in the app's words.
    expect((await readFile(notified, 'utf8')).trim().split('\n').slice(-2)).toEqual([
      `default: schedule ${s.id} finished`,
      'caught up',
    ]);
  });

  it('from launchd (at login) after an edit: a time missed before the edit is not caught up', async () => {
    const s = json(
      (await rein(['schedule', 'create', '--cron', '0 0 1 1 *', '--prompt', 'yearly', '--json'], { env, cwd })).stdout,
    );
    const now = new Date();
    if (now.getMonth() === 0 && now.getDate() === 1 && now.getHours() === 0 && now.getMinutes() === 0) return; // it is due
    // Created long ago, edited just now (updated_at): nothing was missed since it was last set.
    const file = join(home, 'schedules.json');
    const stored = json(await readFile(file, 'utf8'));
    stored.schedules[0].created_at = new Date(Date.now() - 400 * 86_400_000).toISOString();
    await writeFile(file, JSON.stringify(stored, null, 2));
    const r = await rein(['schedule', 'run', s.id, '--from-launchd', '--json'], { env, cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('no run was missed');
    expect(fake.requests).toHaveLength(0);
  });

  it('hands the run to a running daemon, which runs it unattended and announces it', async () => {
    const s = json(
      (await rein(['schedule', 'create', '--cron', '@daily', '--prompt', 'via the daemon', '--json'], { env, cwd }))
        .stdout,
    );
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
    const seen: string[] = [];
    daemon.service.subscribe((e) => {
      if (e.event.type === 'schedule_run') seen.push(e.event.status);
      if (e.event.type === 'session_start') seen.push(`start:${e.event.origin}`);
    });
    fake.enqueue(text('done by the daemon'));
    const r = await rein(['schedule', 'run', s.id, '--json'], { env, cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({ status: 'finished', trigger: 'hand', text: 'done by the daemon' });
    expect(seen).toEqual(['started', 'start:unattended', 'finished']);
  });
});

describe('rein schedule on the daemon backend', () => {
  it('writes no plist and says which backend it uses', async () => {
    const denv = { ...env, REIN_SCHEDULE_BACKEND: 'daemon' };
    const s = json(
      (await rein(['schedule', 'create', '--cron', '*/5 * * * *', '--prompt', 'tick', '--json'], { env: denv, cwd }))
        .stdout,
    );
    expect(s.backend).toBe('daemon');
    await expect(readdir(agentsDir)).rejects.toThrow();
    expect(await calls()).toEqual([]);
  });
});
