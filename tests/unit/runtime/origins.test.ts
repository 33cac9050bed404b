/**
 * The origin table: which origin each entry point gives a request, and what each origin means for a
 * call that needs approval — who is asked (faces), what is decided without asking, and the default
 * iteration cap. Pinned through the runtime the entry points really build.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { describe, expect, it, vi } from 'vitest';
import type { RunOrigin } from '../../../src-main/core/api/patterns.js';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import {
  DEFAULT_MAX_ITERATIONS,
  defaultIterationsText,
  originOfSource,
  originTraits,
  rulesForOrigin,
} from '../../../src-main/core/permissions/runPolicy.js';
import type { ApprovalFace, PermissionPolicy } from '../../../src-main/core/permissions/types.js';
import { createRuntime, startRun } from '../../../src-main/core/runtime/runtime.js';
import { originFor, runRequestFromMessage, type EntryPoint } from '../../../src-main/core/runtime/runRequest.js';
import type { Tool } from '../../../src-main/core/tools/tool.js';
import { scriptedLlm } from '../memory/fakeLlm.js';

const face = (name: string): ApprovalFace => ({ name, ask: async () => ({ decision: 'allow', by: name }) });
const asks: PermissionPolicy = {
  check: () => ({
    decision: 'ask',
    layer: 'tool',
    reason: 'it writes',
    risk: 'medium',
    riskExplanation: 'changes a file',
  }),
};
const writer: Tool = {
  name: 'file_write',
  description: '',
  source: 'local',
  input: z.object({}),
  isReadOnly: () => false,
  isDestructive: () => false,
  call: async () => ({ ok: true, content: 'written' }),
};

describe('origin of each entry point', () => {
  const entries: EntryPoint[] = ['cli', 'desktop', 'http', 'ws', 'webhook', 'mcp', 'schedule', 'heartbeat', 'watcher'];
  const expected: Record<EntryPoint, RunOrigin> = {
    cli: 'attended',
    desktop: 'attended',
    http: 'remote',
    ws: 'remote',
    webhook: 'remote',
    mcp: 'remote',
    schedule: 'unattended',
    heartbeat: 'unattended',
    watcher: 'unattended',
  };
  it.each(entries)('%s with its own kind of source', (entry) => {
    expect(originFor(entry, entry === 'ws' || entry === 'http' ? 'slack' : entry)).toBe(expected[entry]);
  });

  it.each(entries)(
    '%s with a schedule, heartbeat or watcher source is unattended whichever door it came in by',
    (entry) => {
      for (const source of ['schedule', 'heartbeat', 'watcher']) expect(originFor(entry, source)).toBe('unattended');
    },
  );

  it('a source alone (rein permissions check --source S) gets the origin of the door that source comes by', () => {
    expect(originOfSource('cli')).toBe('attended');
    expect(originOfSource('desktop')).toBe('attended');
    expect(originOfSource('slack')).toBe('remote');
    for (const source of ['schedule', 'heartbeat', 'watcher']) expect(originOfSource(source)).toBe('unattended');
  });

  it('says what differs by origin from one table: who is present, who is notified, what waits for the network', () => {
    expect(originTraits('attended')).toMatchObject({
      personPresent: true,
      nobodyWatching: false,
      notifiesApprovals: false,
    });
    expect(originTraits('remote')).toMatchObject({
      personPresent: false,
      nobodyWatching: false,
      notifiesApprovals: true,
    });
    expect(originTraits('unattended')).toMatchObject({
      personPresent: false,
      nobodyWatching: true,
      notifiesApprovals: true,
    });
    expect(defaultIterationsText()).toBe('attended 200, remote and unattended 25');
  });

  it('turns a daemon message into a run request with its origin and session policy', () => {
    expect(runRequestFromMessage({ text: 'hi', source: 'heartbeat' }, 'http', 'http')).toMatchObject({
      origin: 'unattended',
      source: 'heartbeat',
      session: { kind: 'route' },
    });
    expect(runRequestFromMessage({ text: 'hi', channel: 'C1', thread_id: 'T' }, 'ws', 'ws')).toMatchObject({
      origin: 'remote',
      source: 'ws',
      channel: 'C1',
      thread: 'T',
    });
    expect(runRequestFromMessage({ text: 'hi', new_session: true }, 'desktop', 'desktop')).toMatchObject({
      origin: 'attended',
      session: { kind: 'new' },
    });
    expect(
      runRequestFromMessage({ text: 'hi', session_id: '2026-01-01-0123456789ab' }, 'http', 'http').session,
    ).toEqual({ kind: 'session', id: '2026-01-01-0123456789ab' });
  });
});

describe('what each origin means', () => {
  const present = face('terminal');
  const desk = face('daemon');

  it('attended: the person’s own faces and the desk are asked; 200 iterations by default', () => {
    const r = rulesForOrigin('attended', { present: [present], desk }, { source: 'cli' });
    expect(r.faces.map((f) => f.name)).toEqual(['terminal', 'daemon']);
    expect(r.mayAsk()).toEqual({ ok: true });
    expect(r.defaultMaxIterations).toBe(200);
  });

  it('remote: only the desk (every connected client), with its timeout; 25 iterations', () => {
    const r = rulesForOrigin('remote', { present: [present], desk }, { source: 'slack' });
    expect(r.faces.map((f) => f.name)).toEqual(['daemon']);
    expect(r.mayAsk()).toEqual({ ok: true });
    expect(r.defaultMaxIterations).toBe(25);
  });

  it('unattended: nobody is asked and an ask is denied at once; 25 iterations', () => {
    const r = rulesForOrigin(
      'unattended',
      { present: [present], desk, clientConnected: () => true },
      { source: 'schedule' },
    );
    expect(r.faces).toEqual([]);
    expect(r.mayAsk()).toMatchObject({
      ok: false,
      reason: expect.stringContaining('nobody is watching this schedule run'),
    });
    expect(r.defaultMaxIterations).toBe(DEFAULT_MAX_ITERATIONS.unattended);
  });

  it('unattended with unattended_approvals: ask goes to the desk only while a desktop or web client is connected', () => {
    let connected = false;
    const r = rulesForOrigin(
      'unattended',
      { desk, clientConnected: () => connected },
      { source: 'heartbeat', unattendedApprovals: 'ask' },
    );
    expect(r.faces.map((f) => f.name)).toEqual(['daemon']);
    expect(r.mayAsk()).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no desktop or web client is connected'),
    });
    connected = true;
    expect(r.mayAsk()).toEqual({ ok: true });
  });
});

async function home(config: string | undefined = undefined) {
  const root = await mkdtemp(join(tmpdir(), 'rein-origins-'));
  const h = join(root, 'home');
  await mkdir(join(h, 'agents', 'ops'), { recursive: true });
  await writeFile(join(h, 'agents', 'ops', 'AGENT.md'), 'You run ops.\n');
  if (config) await writeFile(join(h, 'agents', 'ops', 'config.yaml'), config);
  return { root, home: h };
}

describe('the runtime an entry point builds for each origin', () => {
  const build = async (origin: RunOrigin, over: { config?: string; clientConnected?: () => boolean } = {}) => {
    const t = await home(over.config);
    return createRuntime({
      home: t.home,
      cwd: t.root,
      env: {},
      config: GlobalConfig.parse({}),
      agent: 'ops',
      source: origin === 'unattended' ? 'schedule' : origin === 'remote' ? 'slack' : 'cli',
      origin,
      faces: [face('terminal')],
      desk: face('daemon'),
      ...(over.clientConnected ? { clientConnected: over.clientConnected } : {}),
      llm: scriptedLlm(),
      policy: asks,
    });
  };
  const decide = async (rt: Awaited<ReturnType<typeof build>>) =>
    rt.policy.check({
      tool: writer,
      input: {},
      cwd: '/',
      mode: 'default',
      source: rt.source,
      origin: rt.origin,
      agent: rt.agent,
    });

  it.each([
    ['attended', ['terminal', 'daemon'], 'ask', 200],
    ['remote', ['daemon'], 'ask', 25],
    ['unattended', [], 'deny', 25],
  ] as const)('%s: faces %j, a call that needs approval: %s, cap %i', async (origin, faces, decision, cap) => {
    const rt = await build(origin);
    expect(rt.broker.faces.map((f) => f.name)).toEqual(faces);
    expect((await decide(rt)).decision).toBe(decision);
    expect(rt.settings.maxIterations).toBe(cap);
  });

  it('an unattended deny comes from the origin layer and tells the model why', async () => {
    const d = await decide(await build('unattended'));
    expect(d).toMatchObject({ decision: 'deny', layer: 'origin' });
    expect(d.reason).toContain('nobody is watching this schedule run');
    expect(d.reason).toContain('it would have asked: it writes');
  });

  it('unattended_approvals: ask in the agent’s config sends the question to the desk while a client is connected', async () => {
    let connected = true;
    const rt = await build('unattended', { config: 'unattended_approvals: ask\n', clientConnected: () => connected });
    expect(rt.broker.faces.map((f) => f.name)).toEqual(['daemon']);
    expect((await decide(rt)).decision).toBe('ask');
    connected = false;
    expect((await decide(rt)).decision).toBe('deny');
  });

  it('an explicit max_iterations wins over the origin’s default, and a run override over both', async () => {
    expect((await build('attended', { config: 'max_iterations: 40\n' })).settings.maxIterations).toBe(40);
    const t = await home('max_iterations: 40\n');
    const rt = await createRuntime({
      home: t.home,
      cwd: t.root,
      env: {},
      config: GlobalConfig.parse({}),
      agent: 'ops',
      origin: 'remote',
      overrides: { max_iterations: 7, model: 'm-x', mode: 'plan' },
      llm: scriptedLlm(),
    });
    expect(rt.settings).toMatchObject({ maxIterations: 7, model: 'm-x', mode: 'plan' });
  });

  it('an unattended run that needs approval is denied without a question and without a timer', async () => {
    const t = await home();
    const llm = scriptedLlm(
      {
        content: [{ type: 'tool_use', id: 'tu1', name: 'file_write', input: { path: 'a.txt', content: 'x' } }],
        stopReason: 'tool_use',
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 },
        model: 'm',
      },
      'I could not write the file.',
    );
    const rt = await createRuntime({
      home: t.home,
      cwd: t.root,
      env: { HOME: t.root },
      config: GlobalConfig.parse({}),
      agent: 'ops',
      source: 'schedule',
      origin: 'unattended',
      llm,
    });
    const request = vi.spyOn(rt.broker, 'request');
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const started = await startRun(rt, {
      prompt: 'write a.txt',
      cwd: t.root,
      home: t.home,
      signal: new AbortController().signal,
    });
    const types: string[] = [];
    for (;;) {
      const step = await started.events.next();
      if (step.done) break;
      types.push(step.value.type);
    }
    expect(request).not.toHaveBeenCalled();
    // No approval timer was ever set up (the broker would start one of approval_timeout_seconds).
    expect(timers.mock.calls.filter(([, ms]) => typeof ms === 'number' && ms >= 60_000)).toEqual([]);
    timers.mockRestore();
    expect(types).not.toContain('approval_request');
    const result = JSON.stringify(started.session.messages);
    expect(result).toContain('denied (origin): nobody is watching this schedule run');
  });
});
