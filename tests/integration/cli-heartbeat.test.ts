/** `rein heartbeat run | status` end to end: the built CLI against the fake Messages API. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src-main/core/sessions/store.js';
import { text, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { cliWorld, rein } from '../support/cli.js';
import { GlobalConfig } from '../../src-main/core/config/schema.js';
import { startDaemon } from '../../src-main/core/daemon/daemon.js';

let fake: FakeAnthropic;
let home: string;
let cwd: string;
let env: NodeJS.ProcessEnv;

async function agent(name: string, files: Record<string, string>) {
  const dir = join(home, 'agents', name);
  await mkdir(dir, { recursive: true });
  for (const [rel, body] of Object.entries(files)) await writeFile(join(dir, rel), body);
}

beforeEach(async () => {
  ({ fake, home, cwd, env } = await cliWorld());
  await agent('ops', {
    'AGENT.md': 'You are Ops, who watches CI.\n',
    'config.yaml': 'heartbeat:\n  every: 30m\n  active_hours: "22:00-06:00"\n  max_usd_per_day: 0.25\n',
    'HEARTBEAT.md': 'If CI on main is red, say which job failed.\n',
  });
});
afterEach(async () => {
  await fake.close();
});

describe('rein heartbeat', () => {
  it('run: HEARTBEAT_OK is ok and silent; --json prints the beat record', async () => {
    fake.enqueue(text('HEARTBEAT_OK'));
    const r = await rein(['heartbeat', 'run', 'ops', '--json'], { env, cwd });
    expect(r.code, r.stderr).toBe(0);
    const record = JSON.parse(r.stdout);
    expect(record).toMatchObject({ agent: 'ops', trigger: 'hand', outcome: 'ok', requests: 1 });
    expect(record.total_input_tokens).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify(fake.requests[0]!.body.system)).toContain('If CI on main is red');
    const lines = (await readFile(join(home, 'agents', 'ops', 'heartbeat.jsonl'), 'utf8')).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).outcome)).toEqual(['ok']);
  });

  it("run: an alert is printed and added to the agent's latest conversation", async () => {
    const store = new SessionStore(join(home, 'agents', 'ops', 'sessions'));
    const s = store.create({ agent: 'ops', cwd, source: 'cli', title: 'CI' });
    s.messages.push(
      { role: 'user', content: [{ type: 'text', text: 'watch CI please' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
    );
    s.message_meta.push(
      { source: 'cli', timestamp: new Date().toISOString() },
      { source: 'cli', timestamp: new Date().toISOString() },
    );
    await store.save(s);
    fake.enqueue(text('CI is red: job e2e.'));
    const r = await rein(['heartbeat', 'run', 'ops'], { env, cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`alert`);
    expect(r.stdout).toContain(`added to conversation ${s.id}`);
    expect(r.stdout).toContain('CI is red: job e2e.');
    const after = await new SessionStore(join(home, 'agents', 'ops', 'sessions')).load(s.id);
    expect(after.message_meta.at(-1)!.source).toBe('heartbeat');
  });

  it('run: with a daemon running, the beat is made there: its alert goes on the bus for the app', async () => {
    const daemon = await startDaemon({
      home,
      cwd,
      port: 0,
      host: '127.0.0.1',
      env: { ...env, REIN_RETRY_BASE_MS: '1' },
      config: GlobalConfig.parse({}),
      warn: () => undefined,
      triggers: false,
      shutdownGraceMs: 200,
    });
    try {
      const alerts: string[] = [];
      daemon.service.subscribe((e) => {
        if (e.event.type === 'heartbeat_alert') alerts.push(e.event.text);
      });
      fake.enqueue(text('CI is red: job e2e.'));
      const r = await rein(['heartbeat', 'run', 'ops', '--json'], { env, cwd });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        agent: 'ops',
        trigger: 'hand',
        outcome: 'alert',
        message: 'CI is red: job e2e.',
      });
      expect(alerts).toEqual(['CI is red: job e2e.']);
      // Refusals keep their words: an agent that does not exist.
      const missing = await rein(['heartbeat', 'run', 'nobody'], { env, cwd });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/nobody/);
    } finally {
      await daemon.dispose();
    }
  });

  it('run: without HEARTBEAT.md nothing is spent', async () => {
    await writeFile(join(home, 'agents', 'ops', 'HEARTBEAT.md'), '');
    const r = await rein(['heartbeat', 'run', 'ops'], { env, cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^skipped: HEARTBEAT\.md is missing or empty/);
    expect(fake.requests).toHaveLength(0);
  });

  it('run: a failing model exits 1; no API key exits 2', async () => {
    fake.enqueue({ kind: 'error', status: 400, message: 'broken on purpose' });
    const failed = await rein(['heartbeat', 'run', 'ops'], { env, cwd });
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('broken on purpose');
    const noKey = await rein(['heartbeat', 'run', 'ops'], {
      env: { ...env, ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: 'https://api.example.invalid' },
      cwd,
    });
    expect(noKey.code).toBe(2);
    expect(noKey.stdout).toContain('No API key');
  });

  it("status: last beat, tokens, cost and today's spend; no next beat without a daemon", async () => {
    fake.enqueue(text('HEARTBEAT_OK'));
    expect((await rein(['heartbeat', 'run', 'ops'], { env, cwd })).code).toBe(0);
    const json = await rein(['heartbeat', 'status', 'ops', '--json'], { env, cwd });
    expect(json.code, json.stderr).toBe(0);
    const st = JSON.parse(json.stdout);
    expect(st).toMatchObject({
      agent: 'ops',
      configured: true,
      every: '30m',
      active_hours: '22:00-06:00',
      max_usd_per_day: 0.25,
      goals: true,
      beats_today: 1,
      next_beat: null,
    });
    expect(st.last_run.outcome).toBe('ok');
    expect(st.today_usd).toBeCloseTo(st.last_run.cost_usd);
    const textOut = await rein(['heartbeat', 'status'], { env, cwd });
    expect(textOut.code).toBe(0);
    expect(textOut.stdout).toContain('ops  every 30m, 22:00-06:00');
    expect(textOut.stdout).toMatch(/last beat {3}\S+ \S+ {2}ok · [\d,]+ input tokens \(\d+% from cache\)/);
    expect(textOut.stdout).toMatch(/today {7}\$0\.\d{4} of \$0\.25 \(1 beat\)/);
    expect(textOut.stdout).toContain('next beat   not scheduled');
  });

  it('bad usage exits 2 and the help lists the commands', async () => {
    expect((await rein(['heartbeat', 'run'], { env, cwd })).code).toBe(2);
    expect((await rein(['heartbeat', 'run', 'Bad Name'], { env, cwd })).code).toBe(2);
    expect((await rein(['heartbeat', 'frob'], { env, cwd })).code).toBe(2);
    const missing = await rein(['heartbeat', 'run', 'nobody'], { env, cwd });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nobody/);
    const help = await rein(['--help'], { env, cwd });
    expect(help.stdout).toContain('rein heartbeat run AGENT');
    expect((await rein(['heartbeat', '--help'], { env, cwd })).stdout).toContain('HEARTBEAT_OK is silent');
  });
});
