/** `rein doctor`: every check in order, --json's shape, and the failures a person must hear about, each with what to do. */
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, rein, tempHome } from '../support/cli.js';
import { ScheduleStore } from '../../src-main/core/schedule/store.js';
import { startFakeAnthropic, text } from '../support/fakeAnthropic.js';
import { EVERYTHING_BIN } from '../support/mcpPeers.js';

const NAMES = [
  'home',
  'config',
  'model',
  'agents',
  'mcp',
  'watchers',
  'schedules',
  'daemon',
  'accessibility',
  'notifications',
  'search',
  'leftovers',
];

async function world(extra: Record<string, string> = {}) {
  const { home, cwd } = await tempHome();
  await mkdir(home, { recursive: true, mode: 0o700 });
  await chmod(home, 0o700);
  const env = cleanEnv({ REIN_HOME: home, ANTHROPIC_API_KEY: 'test-key', REIN_SCHEDULE_BACKEND: 'daemon', ...extra });
  return { home, cwd, env };
}

const report = (stdout: string) =>
  JSON.parse(stdout) as { ok: boolean; checks: { name: string; status: string; message: string; hint?: string }[] };
const check = (stdout: string, name: string) => report(stdout).checks.find((c) => c.name === name)!;

describe('rein doctor', () => {
  it('checks everything in order; a sound setup exits 0 (a daemon that is not running is only a warning)', async () => {
    const w = await world();
    const r = await rein(['doctor', '--json'], w);
    expect(r.code, r.stderr).toBe(0);
    const out = report(r.stdout);
    expect(out.ok).toBe(true);
    expect(out.checks.map((c) => c.name)).toEqual(NAMES);
    expect(check(r.stdout, 'home')).toMatchObject({ status: 'ok', message: `${w.home} (mode 700)` });
    // A key only in this environment works here, but not for a launchd job or the app: worth a look.
    expect(check(r.stdout, 'model')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining('ANTHROPIC_API_KEY'),
      hint: expect.stringContaining('rein auth set-key'),
    });
    expect(check(r.stdout, 'daemon')).toMatchObject({
      status: 'warn',
      message: 'not running',
      hint: expect.stringContaining('heartbeats'),
    });
    // The text form: one line a check, the hint under it.
    const text = await rein(['doctor'], w);
    expect(text.stdout).toMatch(/^✓ home {11}\//m);
    expect(text.stdout).toMatch(/^! daemon {9}not running\n {17}→ start the desktop app/m);
  });

  it('fails, naming what to do, for a broken config, a missing key, an MCP entry that cannot work and a schedule without its job', async () => {
    const w = await world({
      ANTHROPIC_API_KEY: '',
      REIN_SCHEDULE_BACKEND: 'launchd',
      REIN_LAUNCH_AGENTS_DIR: await mkdtemp(join(tmpdir(), 'rein-la-')),
    });
    await writeFile(join(w.home, 'config.yaml'), 'max_tokens: lots\n');
    let r = await rein(['doctor', '--json'], w);
    expect(r.code).toBe(1);
    expect(check(r.stdout, 'config')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/config\.yaml.*max_tokens/),
    });

    await writeFile(
      join(w.home, 'config.yaml'),
      'mcp_servers:\n  wiki:\n    type: http\n    url: https://wiki.example.com/mcp\n    headers:\n      Authorization: Bearer ${WIKI_TOKEN}\n',
    );
    await new ScheduleStore(w.home).create({ cron: '0 9 * * *', prompt: 'check CI', agent: 'default' });
    await chmod(w.home, 0o755);
    r = await rein(['doctor', '--json'], w);
    expect(r.code).toBe(1);
    expect(check(r.stdout, 'model')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/No API key/),
      hint: expect.stringContaining('rein auth set-key'),
    });
    expect(check(r.stdout, 'mcp')).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('WIKI_TOKEN is not set'),
    });
    expect(check(r.stdout, 'schedules')).toMatchObject({
      status: 'fail',
      message: expect.stringMatching(/^no launchd job for [0-9a-f]{8}/),
      hint: expect.stringContaining('rein schedule'),
    });
    expect(check(r.stdout, 'home')).toMatchObject({
      status: 'warn',
      hint: `chmod 700 ${w.home}: it holds sessions, memory and tokens`,
    });
  });

  it('warns about a schedule whose time passed with no run since (launchd did not start it)', async () => {
    const agents = await mkdtemp(join(tmpdir(), 'rein-la-'));
    const w = await world({ REIN_SCHEDULE_BACKEND: 'launchd', REIN_LAUNCH_AGENTS_DIR: agents });
    const store = new ScheduleStore(w.home);
    const s = await store.create({ cron: '0 9 * * *', prompt: 'check CI', agent: 'default' });
    await writeFile(join(agents, `dev.rein.schedule.${s.id}.plist`), '<plist/>\n');
    // Fresh: nothing missed yet.
    expect(check((await rein(['doctor', '--json'], w)).stdout, 'schedules')).toMatchObject({ status: 'ok' });
    // Set up three days ago and never run since: its 09:00 went by.
    const file = join(w.home, 'schedules.json');
    const stored = JSON.parse(await (await import('node:fs/promises')).readFile(file, 'utf8'));
    stored.schedules[0].created_at = stored.schedules[0].updated_at = new Date(
      Date.now() - 3 * 86_400_000,
    ).toISOString();
    await writeFile(file, JSON.stringify(stored, null, 2));
    const r = await rein(['doctor', '--json'], w);
    // A warning, not a failure (the job's own checks fail: the plist here is a stand-in, not Rein's).
    expect(check(r.stdout, 'schedules')).toMatchObject({
      status: 'warn',
      message: expect.stringContaining(`missed with no run since: ${s.id} (due `),
      hint: expect.stringContaining('rein schedule run ID'),
    });
    expect(check(r.stdout, `schedule ${s.id} program`)).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('is not a plist Rein wrote'),
    });
  });

  it('--online also asks the model once and connects each enabled MCP server, saying which did not come up', async () => {
    const fake = await startFakeAnthropic();
    try {
      fake.fallback = () => text('ok');
      const w = await world({ ANTHROPIC_BASE_URL: fake.url });
      await writeFile(
        join(w.home, 'config.yaml'),
        `mcp_servers:\n  everything:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(EVERYTHING_BIN)}, stdio]\n` +
          `  broken:\n    command: ${JSON.stringify(process.execPath)}\n    args: ["-e", "process.exit(3)"]\n    connect_timeout_seconds: 10\n`,
      );
      // Offline: nothing is started and the model is not asked.
      expect((await rein(['doctor', '--json'], w)).code).toBe(0);
      expect(fake.requests).toHaveLength(0);
      const r = await rein(['doctor', '--online', '--json'], w);
      expect(r.code).toBe(1);
      expect(fake.requests).toHaveLength(1);
      expect(fake.requests[0]!.body.max_tokens).toBe(1);
      expect(check(r.stdout, 'model online')).toMatchObject({
        status: 'ok',
        message: expect.stringMatching(/answered/),
      });
      expect(check(r.stdout, 'mcp everything')).toMatchObject({
        status: 'ok',
        message: expect.stringMatching(/^connected: \d+ tools$/),
      });
      expect(check(r.stdout, 'mcp broken')).toMatchObject({
        status: 'fail',
        message: expect.stringMatching(/^disconnected: .*exited with code 3/),
      });
    } finally {
      await fake.close();
    }
  });

  it('bad usage exits 2; --help says what it checks', async () => {
    const w = await world();
    expect((await rein(['doctor', '--fix'], w)).code).toBe(2);
    const help = await rein(['doctor', '--help'], w);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Local only: no model call');
  });
});
