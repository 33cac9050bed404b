/** The daemon starts every agent's heartbeat timer and file watchers, follows agent edits, and stops them all on close. */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BusEvent } from '../../../src-main/core/api/events.js';
import { heartbeatStateFile } from '../../../src-main/core/triggers/index.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { useLeakCheck } from '../../support/leaks.js';
import { http, startTestDaemon, type TestDaemon } from './support.js';

useLeakCheck();
let fake: FakeAnthropic;
let d: TestDaemon | undefined;
let root: string;
let home: string;
let inbox: string;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  root = await realpath(await mkdtemp(join(tmpdir(), 'rein-daemon-triggers-')));
  home = join(root, 'home');
  inbox = join(root, 'inbox');
  await mkdir(inbox, { recursive: true });
  const agentDir = join(home, 'agents', 'clerk');
  await mkdir(agentDir, { recursive: true });
  await writeFile(join(agentDir, 'AGENT.md'), 'You are Clerk, who files documents.');
  await writeFile(join(agentDir, 'HEARTBEAT.md'), 'Check the inbox folder.');
  await writeFile(
    join(agentDir, 'config.yaml'),
    `heartbeat:\n  every: 30m\nwatch:\n  - path: ${JSON.stringify(inbox)}\n    glob: "*.pdf"\n    debounce: 150\n    prompt: "File these: {{files}}"\n`,
  );
});

afterEach(async () => {
  await d?.daemon.dispose();
  d = undefined;
  await fake.close();
});

describe("the daemon's heartbeats and watchers", () => {
  it('GET /agents/{name}/activity shows the heartbeat settings and next beat, and the folders being watched', async () => {
    d = await startTestDaemon(fake, { home });
    await d.daemon.triggers!.ready;
    const res = await http(d, 'GET', '/agents/clerk/activity');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      agent: 'clerk',
      heartbeat: { every: '30m', has_goals: true, spent_today_usd: 0, beats_today: 0, next_at: expect.any(String) },
      watchers: [{ path: inbox, glob: '*.pdf', debounce_ms: 150, watching: true }],
    });
    expect((await http(d, 'GET', '/agents/default/activity')).json).toMatchObject({
      agent: 'default',
      heartbeat: null,
      watchers: [],
    });
    expect((await http(d, 'GET', '/agents/nobody/activity')).status).toBe(404);
  });

  it('a new matching file starts one unattended watcher run of the agent, in a session of its own', async () => {
    fake.fallback = () => text('Filed.');
    d = await startTestDaemon(fake, { home });
    const seen: BusEvent[] = [];
    d.daemon.service.subscribe((e) => seen.push(e.event));
    await d.daemon.triggers!.ready;
    await new Promise((ok) => setTimeout(ok, 100));
    await writeFile(join(inbox, 'invoice.pdf'), '%PDF');
    await writeFile(join(inbox, 'notes.txt'), 'not a pdf');
    await expect.poll(() => seen.filter((e) => e.type === 'session_end').length, { timeout: 10_000 }).toBe(1);
    const start = seen.find((e) => e.type === 'session_start') as Extract<BusEvent, { type: 'session_start' }>;
    expect(start).toMatchObject({ agent: 'clerk', source: 'watcher', origin: 'unattended' });
    expect(JSON.stringify(fake.requests[0]!.body.messages)).toContain(
      `File these: - created: ${join(inbox, 'invoice.pdf')}`,
    );
    const sessions = (await readdir(join(home, 'agents', 'clerk', 'sessions'))).filter((n) => n.endsWith('.json'));
    expect(sessions).toHaveLength(1);
    expect(JSON.parse(await readFile(join(home, 'agents', 'clerk', 'sessions', sessions[0]!), 'utf8')).source).toBe(
      'watcher',
    );
  });

  it('keeps a heartbeat timer per agent and follows an edit through the service (agent_changed)', async () => {
    d = await startTestDaemon(fake, { home });
    const triggers = d.daemon.triggers!;
    await triggers.ready;
    expect(triggers.heartbeats.agents).toEqual(['clerk']);
    expect(triggers.heartbeats.nextBeat('clerk')!.getTime()).toBeGreaterThan(Date.now() + 29 * 60_000);
    expect(triggers.watchers.roots).toEqual([inbox]);
    await expect.poll(() => existsSync(heartbeatStateFile(home, 'clerk'))).toBe(true);
    const saved = await http(d, 'PUT', '/agents/clerk', { body: { config: 'model: claude-haiku-4-5\n' } });
    expect(saved.status, saved.text).toBe(200);
    await expect.poll(() => triggers.heartbeats.agents, { timeout: 5_000 }).toEqual([]);
    await expect.poll(() => triggers.watchers.roots, { timeout: 5_000 }).toEqual([]);
    await d.daemon.dispose();
    d = undefined;
    expect(existsSync(heartbeatStateFile(home, 'clerk'))).toBe(false);
  });

  it('start none with triggers: false', async () => {
    d = await startTestDaemon(fake, { home, daemon: { triggers: false } });
    expect(d.daemon.triggers).toBeUndefined();
  });
});
