/** `rein doctor`: every check in order, --json's shape, and the failures a person must hear about, each with what to do. */
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, rein, tempHome } from '../support/cli.js';
import { ScheduleStore } from '../../src-main/core/schedule/store.js';

const NAMES = ['home', 'config', 'model', 'agents', 'mcp', 'schedules', 'daemon', 'accessibility', 'notifications', 'search'];

async function world(extra: Record<string, string> = {}) {
  const { home, cwd } = await tempHome();
  await mkdir(home, { recursive: true, mode: 0o700 });
  await chmod(home, 0o700);
  const env = cleanEnv({ REIN_HOME: home, ANTHROPIC_API_KEY: 'test-key', REIN_SCHEDULE_BACKEND: 'daemon', ...extra });
  return { home, cwd, env };
}

const report = (stdout: string) => JSON.parse(stdout) as { ok: boolean; checks: { name: string; status: string; message: string; hint?: string }[] };
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
    expect(check(r.stdout, 'model')).toMatchObject({ status: 'ok', message: expect.stringContaining('ANTHROPIC_API_KEY') });
    expect(check(r.stdout, 'daemon')).toMatchObject({ status: 'warn', message: 'not running', hint: expect.stringContaining('heartbeats') });
    // The text form: one line a check, the hint under it.
    const text = await rein(['doctor'], w);
    expect(text.stdout).toMatch(/^✓ home {11}\//m);
    expect(text.stdout).toMatch(/^! daemon {9}not running\n {17}→ start the desktop app/m);
  });

  it('fails, naming what to do, for a broken config, a missing key, an MCP entry that cannot work and a schedule without its job', async () => {
    const w = await world({ ANTHROPIC_API_KEY: '', REIN_SCHEDULE_BACKEND: 'launchd', REIN_LAUNCH_AGENTS_DIR: await mkdtemp(join(tmpdir(), 'rein-la-')) });
    await writeFile(join(w.home, 'config.yaml'), 'max_tokens: lots\n');
    let r = await rein(['doctor', '--json'], w);
    expect(r.code).toBe(1);
    expect(check(r.stdout, 'config')).toMatchObject({ status: 'fail', message: expect.stringMatching(/config\.yaml.*max_tokens/) });

    await writeFile(join(w.home, 'config.yaml'), 'mcp_servers:\n  wiki:\n    type: http\n    url: https://wiki.example.com/mcp\n    headers:\n      Authorization: Bearer ${WIKI_TOKEN}\n');
    await new ScheduleStore(w.home).create({ cron: '0 9 * * *', prompt: 'check CI', agent: 'default' });
    await chmod(w.home, 0o755);
    r = await rein(['doctor', '--json'], w);
    expect(r.code).toBe(1);
    expect(check(r.stdout, 'model')).toMatchObject({ status: 'fail', message: expect.stringMatching(/No API key/), hint: expect.stringContaining('keychain') });
    expect(check(r.stdout, 'mcp')).toMatchObject({ status: 'fail', message: expect.stringContaining('WIKI_TOKEN is not set') });
    expect(check(r.stdout, 'schedules')).toMatchObject({ status: 'fail', message: expect.stringMatching(/^no launchd job for [0-9a-f]{8}/), hint: expect.stringContaining('rein schedule') });
    expect(check(r.stdout, 'home')).toMatchObject({ status: 'warn', hint: `chmod 700 ${w.home}: it holds sessions, memory and tokens` });
  });

  it('bad usage exits 2; --help says what it checks', async () => {
    const w = await world();
    expect((await rein(['doctor', '--fix'], w)).code).toBe(2);
    const help = await rein(['doctor', '--help'], w);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Local only: no model call');
  });
});
