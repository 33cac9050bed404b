import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BusEvent, ReinEvent } from '../../../src-main/core/api/events.js';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { ReinService } from '../../../src-main/core/service/reinService.js';
import { SessionStore } from '../../../src-main/core/sessions/store.js';
import type { SessionFile } from '../../../src-main/core/sessions/types.js';
import {
  appendBeat,
  localDay,
  readBeats,
  runHeartbeat,
  type BeatRecord,
} from '../../../src-main/core/triggers/index.js';
import {
  startFakeAnthropic,
  stripCacheControl,
  text,
  toolCall,
  tools,
  type FakeAnthropic,
  type RecordedRequest,
} from '../../support/fakeAnthropic.js';
import { useLeakCheck } from '../../support/leaks.js';
import { tempDirs, writeAgent } from './support.js';

useLeakCheck();
const dirs = tempDirs('rein-hb-run-');
let fake: FakeAnthropic;
let service: ReinService;
let bus: BusEvent[];
/** How far the fake's cache clock is ahead of the real one (beats 30 minutes apart without waiting). */
let shift = 0;

const PERSONA = 'You are Ops, who watches the CI of the web team.';
const GOALS = '1. If the main pipeline is red, say which job failed.';

beforeEach(async () => {
  shift = 0;
  fake = await startFakeAnthropic({ cacheEveryBreakpoint: true, now: () => Date.now() + shift });
  service = await ReinService.create({
    home: dirs.home,
    cwd: dirs.root,
    env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'test-key', REIN_RETRY_BASE_MS: '1' },
    // The fake Messages API is on loopback, where a model without `prices` costs $0 (llm/pricing.ts): priced as Sonnet here.
    config: GlobalConfig.parse({ prices: { 'claude-sonnet-5-5': { input: 3, output: 15 } } }),
    version: 'test',
  });
  bus = [];
  service.subscribe((e) => bus.push(e.event));
});

afterEach(async () => {
  await service.dispose();
  await fake.close();
});

const sessionsDir = () => join(dirs.home, 'agents', 'ops', 'sessions');
const beatRequests = () => fake.requests.filter((r) => JSON.stringify(r.body.system).includes('# Heartbeat'));
const alerts = () => bus.filter((e) => e.type === 'heartbeat_alert');

/** The agent's conversation with a person, saved. */
async function conversation(lines: string[] = ['Please keep an eye on CI.', 'Will do.']): Promise<SessionFile> {
  const store = new SessionStore(sessionsDir());
  const s = store.create({ agent: 'ops', cwd: dirs.root, source: 'desktop', title: 'CI' });
  lines.forEach((t, i) => {
    s.messages.push({ role: i % 2 ? 'assistant' : 'user', content: [{ type: 'text', text: t }] });
    s.message_meta.push({ source: 'desktop', timestamp: new Date().toISOString() });
  });
  await store.save(s);
  return s;
}

async function agent(config = 'heartbeat:\n  every: 30m\n', goals: string | null = GOALS): Promise<void> {
  await writeAgent(dirs.home, 'ops', { persona: PERSONA, config, ...(goals !== null ? { heartbeat: goals } : {}) });
}

describe('a heartbeat beat', () => {
  it('without HEARTBEAT.md is skipped: no run, no model call; the same skip is recorded once', async () => {
    await agent(undefined, null);
    const r = await runHeartbeat(service, 'ops', { trigger: 'timer' });
    expect(r).toMatchObject({ outcome: 'skipped', reason: 'no_goals', requests: 0, cost_usd: 0 });
    await runHeartbeat(service, 'ops', { trigger: 'timer' });
    await writeFile(join(dirs.home, 'agents', 'ops', 'HEARTBEAT.md'), '   \n');
    await runHeartbeat(service, 'ops', { trigger: 'timer' });
    expect(fake.requests).toHaveLength(0);
    expect((await readBeats(dirs.home, 'ops')).map((b) => b.reason)).toEqual(['no_goals']);
  });

  it('answered HEARTBEAT_OK is silent: nothing on the bus, nothing in any conversation, no session of its own', async () => {
    await agent();
    const before = await conversation();
    const file = join(sessionsDir(), `${before.id}.json`);
    const bytes = await readFile(file, 'utf8');
    fake.enqueue(text('  heartbeat_ok\n'));
    const r = await runHeartbeat(service, 'ops', { trigger: 'timer' });
    expect(r).toMatchObject({ outcome: 'ok', trigger: 'timer', requests: 1, stop_reason: 'final' });
    expect(r.total_input_tokens).toBeGreaterThan(0);
    expect(alerts()).toEqual([]);
    expect(await readFile(file, 'utf8')).toBe(bytes);
    expect(await readdir(sessionsDir())).toEqual([`${before.id}.json`]);
    expect(await readBeats(dirs.home, 'ops')).toEqual([r]);
    // It ran as an unattended run from the heartbeat.
    const start = bus.find((e): e is Extract<ReinEvent, { type: 'session_start' }> => e.type === 'session_start')!;
    expect(start).toMatchObject({ agent: 'ops', source: 'heartbeat', origin: 'unattended' });
  });

  it('is a light context: persona, brief and goals in the system prompt; the excerpt in one message; no memory, no instruction files', async () => {
    await agent();
    await writeFile(join(dirs.home, 'agents', 'ops', 'MEMORY.md'), '- SECRET-MEMORY-LINE\n');
    await writeFile(join(dirs.root, 'AGENTS.md'), 'PROJECT-RULES-LINE\n');
    await conversation(['Is CI green?', 'Yes, build 41 passed.']);
    fake.enqueue(text('HEARTBEAT_OK'));
    await runHeartbeat(service, 'ops');
    const [req] = beatRequests();
    const body = req!.raw;
    const system = JSON.stringify(req!.body.system);
    expect(system).toContain(PERSONA);
    expect(system).toContain(GOALS);
    expect(system).toContain('reply with exactly HEARTBEAT_OK');
    expect(body).not.toContain('SECRET-MEMORY-LINE');
    expect(body).not.toContain('PROJECT-RULES-LINE');
    expect(req!.body.messages).toHaveLength(1);
    const message = JSON.stringify(req!.body.messages[0]);
    expect(message).toContain('User: Is CI green?');
    expect(message).toContain('You: Yes, build 41 passed.');
    expect(req!.body.tools!.map((t) => t.name)).toContain('bash');
  });

  it('reads everything but its one message from the cache from the second beat on', async () => {
    await agent();
    await conversation();
    fake.enqueue(text('HEARTBEAT_OK'), text('HEARTBEAT_OK'));
    const first = await runHeartbeat(service, 'ops');
    const second = await runHeartbeat(service, 'ops');
    const [a, b] = beatRequests();
    const prefix = (r: RecordedRequest) => stripCacheControl(JSON.stringify([r.body.tools, r.body.system]));
    expect(prefix(b!)).toBe(prefix(a!));
    expect(first.cache_read_share).toBe(0);
    expect(second.total_input_tokens).toBeLessThanOrEqual(5_000);
    expect(second.cache_read_share).toBeGreaterThanOrEqual(0.8);
  });

  it('every ≤ 1 h: every cache mark is the 1-hour kind, so a beat 30 minutes later still reads the prefix; the cost counts 1-hour writes at 2×', async () => {
    await agent('heartbeat:\n  every: 30m\n');
    await conversation();
    const first = await runHeartbeat(service, 'ops');
    shift += 30 * 60_000;
    const second = await runHeartbeat(service, 'ops');
    const [a, b] = beatRequests();
    for (const r of [a!, b!]) {
      expect(r.body.tools!.at(-1)!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
      expect((r.body.system as { cache_control?: unknown }[]).at(-1)!.cache_control).toEqual({
        type: 'ephemeral',
        ttl: '1h',
      });
      expect(JSON.stringify(r.body.messages)).toContain('"cache_control":{"type":"ephemeral","ttl":"1h"}');
      expect(r.raw).not.toContain('"cache_control":{"type":"ephemeral"}');
    }
    expect(second.cache_read_share).toBeGreaterThanOrEqual(0.8);
    expect(second.total_input_tokens).toBeLessThanOrEqual(5_000);
    // Default model (claude-sonnet-5-5: $3 in, $15 out per million): every write of the first beat is a 1-hour one, at 2×.
    expect(fake.accounting.cacheWrite1h).toBeGreaterThanOrEqual(first.cache_creation_tokens);
    const expected = (first.input_tokens * 3 + first.cache_creation_tokens * 6 + first.output_tokens * 15) / 1e6;
    expect(first.cost_usd).toBeCloseTo(expected, 12);
  });

  it('every > 1 h: 5-minute marks (no beat would read a longer entry), and two hours later nothing is read from the cache', async () => {
    await agent('heartbeat:\n  every: 2h\n');
    await conversation();
    await runHeartbeat(service, 'ops');
    shift += 2 * 60 * 60_000;
    const second = await runHeartbeat(service, 'ops');
    for (const r of beatRequests()) expect(r.raw).not.toContain('"ttl"');
    expect(second.cache_read_share).toBe(0);
    expect(fake.accounting.cacheWrite1h).toBe(0);
  });

  it.each(['HEARTBEAT_OK.', '**HEARTBEAT_OK**', 'HEARTBEAT_OK - nothing new'])(
    'answered %j is silent too',
    async (answer) => {
      await agent();
      await conversation();
      fake.enqueue(text(answer));
      const r = await runHeartbeat(service, 'ops');
      expect(r.outcome).toBe('ok');
      expect(alerts()).toEqual([]);
    },
  );

  it('answered "HEARTBEAT_OK but the disk is 95% full" is an alert', async () => {
    await agent();
    await conversation();
    fake.enqueue(text('HEARTBEAT_OK but the disk is 95% full'));
    const r = await runHeartbeat(service, 'ops');
    expect(r).toMatchObject({ outcome: 'alert', message: 'HEARTBEAT_OK but the disk is 95% full' });
    expect(alerts()).toHaveLength(1);
  });

  it('with anything else is an alert: on the bus, and added to the latest conversation as the heartbeat', async () => {
    await agent();
    const s = await conversation();
    fake.enqueue(text('CI on main is red: job e2e failed.'));
    const r = await runHeartbeat(service, 'ops');
    expect(r).toMatchObject({ outcome: 'alert', message: 'CI on main is red: job e2e failed.', appended_to: s.id });
    expect(alerts()).toEqual([
      expect.objectContaining({
        type: 'heartbeat_alert',
        agent: 'ops',
        text: 'CI on main is red: job e2e failed.',
        session_id: s.id,
      }),
    ]);
    const after = await new SessionStore(sessionsDir()).load(s.id);
    expect(after.messages).toHaveLength(3);
    expect(after.messages[2]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'CI on main is red: job e2e failed.' }],
    });
    expect(after.message_meta[2]!.source).toBe('heartbeat');
    // The next beat sees it in its excerpt.
    fake.enqueue(text('HEARTBEAT_OK'));
    await runHeartbeat(service, 'ops');
    expect(JSON.stringify(beatRequests()[1]!.body.messages)).toContain('You (heartbeat alert): CI on main is red');
  });

  it("waits with its alert until the person's run on that conversation is over, then adds it after", async () => {
    await agent();
    const s = await conversation();
    fake.fallback = (req) =>
      JSON.stringify(req.body.system).includes('# Heartbeat')
        ? text('Disk is 95% full.')
        : text(`${'Here is a long answer. '.repeat(40)}Done.`, { chunkDelayMs: 15 });
    const outcome = await service.submit({
      agent: 'ops',
      text: 'Tell me about the pipeline.',
      source: 'desktop',
      origin: 'attended',
      entry: 'desktop',
      session: { kind: 'route' },
    });
    expect(outcome.injected).toBe(false);
    const userRun = !outcome.injected ? outcome.run : undefined;
    await new Promise((ok) => setTimeout(ok, 50));
    expect(userRun!.state).toBe('running');
    const r = await runHeartbeat(service, 'ops');
    expect(userRun!.state).toBe('done');
    expect(r).toMatchObject({ outcome: 'alert', appended_to: s.id });
    const after = await new SessionStore(sessionsDir()).load(s.id);
    const texts = after.messages.map((m) =>
      typeof m.content === 'string' ? m.content : m.content.map((b) => ('text' in b ? b.text : '')).join(' '),
    );
    expect(texts[texts.length - 1]).toBe('Disk is 95% full.');
    expect(texts[texts.length - 2]).toContain('Here is a long answer.');
    expect(after.message_meta[after.message_meta.length - 1]!.source).toBe('heartbeat');
  });

  it('drops its alert with a note when the conversation stays busy past the wait', async () => {
    await agent();
    await conversation();
    fake.fallback = (req) =>
      JSON.stringify(req.body.system).includes('# Heartbeat') ? text('Disk is full.') : { kind: 'stall' };
    const outcome = await service.submit({
      agent: 'ops',
      text: 'Long job',
      source: 'desktop',
      origin: 'attended',
      entry: 'desktop',
      session: { kind: 'route' },
    });
    const r = await runHeartbeat(service, 'ops', { appendWaitMs: 300 });
    expect(r.outcome).toBe('alert');
    expect(r.appended_to).toBeUndefined();
    expect(r.append_note).toMatch(/dropped: conversation .* stayed busy/);
    expect(alerts()).toHaveLength(1);
    if (!outcome.injected) outcome.run.controller.abort(new Error('test over'));
  });

  it('that fails is an error record and a "Heartbeat error" alert; nothing is added to a conversation', async () => {
    await agent();
    const s = await conversation();
    fake.enqueue({ kind: 'error', status: 400, message: 'bad request from the test' });
    const r = await runHeartbeat(service, 'ops');
    expect(r.outcome).toBe('error');
    expect(r.message).toContain('bad request from the test');
    expect(alerts()).toEqual([
      expect.objectContaining({ text: expect.stringMatching(/^Heartbeat error: .*bad request from the test/) }),
    ]);
    expect((await new SessionStore(sessionsDir()).load(s.id)).messages).toHaveLength(2);
  });

  it('is refused a call that needs approval at once (unattended), without a question', async () => {
    await agent();
    fake.enqueue(
      tools([toolCall('file_write', { path: join(dirs.root, 'x.txt'), content: 'x' })]),
      text('HEARTBEAT_OK'),
    );
    const events: ReinEvent[] = [];
    const r = await runHeartbeat(service, 'ops', { onEvent: (e) => events.push(e) });
    expect(r.outcome).toBe('ok');
    expect(events.some((e) => e.type === 'approval_request')).toBe(false);
    const result = JSON.stringify(fake.requests[1]!.body.messages.at(-1));
    expect(result).toContain('[permission error] denied (origin): nobody is watching this heartbeat run');
  });

  it("keeps to the daily cap: at the cap it is skipped until midnight; the run's own cap is what the day has left", async () => {
    await agent('heartbeat:\n  every: 30m\n  max_usd_per_day: 0.5\n');
    const spent: BeatRecord = {
      at: new Date().toISOString(),
      day: localDay(new Date()),
      agent: 'ops',
      trigger: 'timer',
      outcome: 'ok',
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_creation_tokens: 0,
      total_input_tokens: 0,
      cache_read_share: 0,
      cost_usd: 0.5,
      requests: 1,
    };
    await appendBeat(dirs.home, spent);
    const r = await runHeartbeat(service, 'ops', { trigger: 'timer' });
    expect(r).toMatchObject({ outcome: 'skipped', reason: 'daily_cap' });
    expect(r.message).toContain('$0.5000 of $0.50');
    expect(fake.requests).toHaveLength(0);
    // Yesterday's spending does not count.
    await writeFile(
      join(dirs.home, 'agents', 'ops', 'heartbeat.jsonl'),
      `${JSON.stringify({ ...spent, day: '2000-01-01' })}\n`,
    );
    await writeFile(
      join(dirs.home, 'agents', 'ops', 'config.yaml'),
      'heartbeat:\n  every: 30m\n  max_usd_per_day: 0.0000001\n',
    );
    // A tiny allowance: the first request uses it up, and the run stops at its cap instead of running the tool.
    fake.enqueue(tools([toolCall('think', { thought: 'more' })]), text('HEARTBEAT_OK'));
    const capped = await runHeartbeat(service, 'ops');
    expect(capped).toMatchObject({ outcome: 'error', error_code: 'budget', requests: 1 });
    expect(fake.requests).toHaveLength(1);
  });

  it('with pause_when_idle, stops beating once nobody has written for that long; its own alerts do not count', async () => {
    await agent('heartbeat:\n  every: 30m\n  pause_when_idle: 7d\n');
    // No conversation at all yet: nothing to watch over.
    expect(await runHeartbeat(service, 'ops', { trigger: 'timer' })).toMatchObject({
      outcome: 'skipped',
      reason: 'idle',
      message: expect.stringMatching(/nobody has written to the agent yet/),
    });
    // The person wrote eight days ago; a heartbeat alert since then is not the person.
    const s = await conversation();
    const eightDays = new Date(Date.now() - 8 * 86_400_000).toISOString();
    for (const m of s.message_meta) m.timestamp = eightDays;
    s.messages.push({ role: 'assistant', content: [{ type: 'text', text: 'CI is red.' }] });
    s.message_meta.push({ source: 'heartbeat', timestamp: new Date().toISOString() });
    await new SessionStore(sessionsDir()).save(s);
    const idle = await runHeartbeat(service, 'ops', { trigger: 'timer' });
    expect(idle).toMatchObject({
      outcome: 'skipped',
      reason: 'idle',
      message: expect.stringContaining(`since ${eightDays}`),
    });
    expect(fake.requests).toHaveLength(0);
    // A message from the person: the beats resume.
    s.messages.push({ role: 'user', content: [{ type: 'text', text: 'Thanks, looking.' }] });
    s.message_meta.push({ source: 'desktop', timestamp: new Date().toISOString() });
    await new SessionStore(sessionsDir()).save(s);
    fake.enqueue(text('HEARTBEAT_OK'));
    expect(await runHeartbeat(service, 'ops', { trigger: 'timer' })).toMatchObject({ outcome: 'ok', requests: 1 });
  });

  it('is skipped while another one of the agent is still running (overlap prevention), unless that process is gone', async () => {
    await agent();
    const pidFile = join(dirs.home, 'agents', 'ops', 'heartbeat.pid');
    await writeFile(pidFile, '424242\n');
    const busy = await runHeartbeat(service, 'ops', { isAlive: () => true });
    expect(busy).toMatchObject({ outcome: 'skipped', reason: 'overlap' });
    expect(fake.requests).toHaveLength(0);
    fake.enqueue(text('HEARTBEAT_OK'));
    const stale = await runHeartbeat(service, 'ops', { isAlive: () => false });
    expect(stale.outcome).toBe('ok');
    // Released after the beat.
    await expect(readFile(pidFile, 'utf8')).rejects.toThrow();
  });

  it('lets two run at once when overlap_prevention is off', async () => {
    await agent('heartbeat:\n  every: 30m\n  overlap_prevention: false\n');
    fake.fallback = () => text('HEARTBEAT_OK', { chunkDelayMs: 20 });
    const [a, b] = await Promise.all([runHeartbeat(service, 'ops'), runHeartbeat(service, 'ops')]);
    expect([a.outcome, b.outcome]).toEqual(['ok', 'ok']);
  });

  it('leaves no session to find: not in the folder, not in the search index', async () => {
    await agent();
    await conversation();
    await service.sessionIndex();
    fake.enqueue(text('Backups failed last night (zanzibar).'));
    const r = await runHeartbeat(service, 'ops');
    expect(r.run_session_id).toBeDefined();
    expect((await readdir(sessionsDir())).some((n) => n.startsWith(r.run_session_id!))).toBe(false);
    await new Promise((ok) => setTimeout(ok, 20));
    const hits = (await service.searchSessions({ q: 'goals', agent: 'ops' })).results as Array<{ session_id: string }>;
    expect(hits.map((h) => h.session_id)).not.toContain(r.run_session_id);
  });
});
