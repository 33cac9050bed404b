/**
 * MCP servers in agent runs, with the fake Messages API and the real server-everything: the model
 * calls `mcp__everything__echo`; the servers' context and instructions are in the stable prompt part;
 * a server killed in the middle of a run is reconnected by the next call; a server's question goes
 * through the run's approval faces (or is declined in an unattended run); each agent has its own
 * servers; a run's own servers stop with it, a cache's with the cache.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GlobalConfig, type GlobalConfigInput } from '../../../src-main/core/config/schema.js';
import type { ApprovalFace, ApprovalRequest } from '../../../src-main/core/permissions/types.js';
import { createRuntime, startRun, type Runtime, type RuntimeOptions } from '../../../src-main/core/runtime/runtime.js';
import { RuntimeCache } from '../../../src-main/core/runtime/runtimeCache.js';
import { drainRun } from '../../support/drainRun.js';
import {
  startFakeAnthropic,
  text,
  toolCall,
  tools,
  type FakeAnthropic,
  type RecordedRequest,
} from '../../support/fakeAnthropic.js';
import { useLeakCheck } from '../../support/leaks.js';
import { alive, everythingStdio, filesystemStdio, startSdkServer } from '../../support/mcpPeers.js';
import { tempRuntimeDirs } from '../runtime/tempRuntimeDirs.js';

useLeakCheck();

const d = tempRuntimeDirs('rein-mcp-run-');
let fake: FakeAnthropic;
const caches: RuntimeCache[] = [];

beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await Promise.all(caches.splice(0).map((c) => c.dispose()));
  await fake.close();
});

const env = () => ({ ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'test', PATH: process.env.PATH ?? '' });

function runtime(config: GlobalConfigInput, over: Partial<RuntimeOptions> = {}): Promise<Runtime> {
  return createRuntime({
    home: d.home,
    cwd: d.cwd,
    env: env(),
    config: GlobalConfig.parse(config),
    origin: 'attended',
    faces: [],
    bundledSkillsDir: join(d.root, 'none'),
    mcp: true,
    ...over,
  });
}

async function run(rt: Runtime, prompt = 'go') {
  const started = await startRun(rt, { prompt, cwd: d.cwd, home: d.home, signal: new AbortController().signal });
  return drainRun(started.events);
}

/** The tool_result blocks the model got in request `i`. */
const results = (i: number): { content: unknown; is_error?: boolean }[] =>
  (fake.requests[i]!.body.messages.at(-1)!.content as { type: string }[]).filter(
    (b) => b.type === 'tool_result',
  ) as never;
const resultText = (i: number) => JSON.stringify(results(i).map((r) => r.content));

const echoServer = {
  everything: everythingStdio({ context: 'Echoes things back; use it for tests.', always_allow: ['echo'] }),
};

describe('MCP tools in agent runs', () => {
  it('the model calls mcp__everything__echo and reads the answer; context and instructions are in the stable part', async () => {
    fake.enqueue(tools([toolCall('mcp__everything__echo', { message: 'ping' })]), text('done'));
    const rt = await runtime({ mcp_servers: echoServer });
    const pid = rt.mcp!.manager.servers[0]!.connection!.pid!;
    const { outcome, events } = await run(rt);
    expect(outcome.stopReason).toBe('final');
    const req = fake.requests[0]!.body;
    expect(rt.registry.names()).toContain('mcp__everything__echo');
    const stable = (req.system as { text: string }[])[1]!.text;
    expect(stable).toContain('# MCP servers\n[everything] Echoes things back; use it for tests.');
    expect(stable).toMatch(
      /## Instructions from the MCP server "everything" \(written by the server, not by the user\)\n# Everything Server/,
    );
    expect(resultText(1)).toContain('Echo: ping');
    // always_allow: it ran without a question.
    expect(events.some((e) => e.type === 'approval_request')).toBe(false);
    // The run's own servers stop when it is over.
    await expect.poll(() => alive(pid), { timeout: 5_000 }).toBe(false);
  });

  it('an MCP call asks by default; the answer goes to the run’s faces', async () => {
    const asked: ApprovalRequest[] = [];
    const face: ApprovalFace = { name: 'test', ask: async (r) => (asked.push(r), { decision: 'allow', by: 'test' }) };
    fake.enqueue(tools([toolCall('mcp__everything__get-sum', { a: 2, b: 3 })]), text('done'));
    const rt = await runtime({ mcp_servers: { everything: everythingStdio() } }, { faces: [face] });
    await run(rt);
    expect(asked.map((r) => [r.tool, r.layer, r.risk])).toEqual([['mcp__everything__get-sum', 'mcp', 'low']]);
    expect(resultText(1)).toContain('5');
  });

  it('a server killed in the middle of a run is reconnected by the next call', async () => {
    const held: { rt?: Runtime } = {};
    let firstPid = 0;
    fake.enqueue(tools([toolCall('mcp__everything__echo', { message: 'one' })]));
    fake.fallback = async () => {
      if (fake.requests.length === 2) {
        const h = held.rt!.mcp!.manager.servers[0]!;
        firstPid = h.connection!.pid!;
        process.kill(-firstPid, 'SIGKILL');
        await expect.poll(() => h.status().state, { timeout: 5_000 }).toBe('disconnected');
        return tools([toolCall('mcp__everything__echo', { message: 'two' })]);
      }
      return text('done');
    };
    const rt = (held.rt = await runtime({ mcp_servers: echoServer }));
    const { outcome } = await run(rt);
    expect(outcome.stopReason).toBe('final');
    expect(resultText(1)).toContain('Echo: one');
    expect(resultText(2)).toContain('Echo: two');
    expect(results(2)[0]!.is_error).toBeUndefined();
    expect(rt.mcp!.manager.servers[0]!.status().state).toBe('healthy');
  });

  it('a server’s question during a call is a form for the run’s faces; the answer’s values go back', async () => {
    const asked: ApprovalRequest[] = [];
    const face: ApprovalFace = {
      name: 'test',
      ask: async (r) => {
        asked.push(r);
        return r.form
          ? { decision: 'allow', by: 'test', values: { name: 'Lin', check: true } }
          : { decision: 'allow', by: 'test' };
      },
    };
    fake.enqueue(tools([toolCall('mcp__everything__trigger-elicitation-request', {})]), text('done'));
    const rt = await runtime({ mcp_servers: { everything: everythingStdio() } }, { faces: [face] });
    const { events } = await run(rt);
    const form = asked.find((r) => r.form)!;
    expect(form).toMatchObject({
      layer: 'elicitation',
      tool: 'mcp__everything__trigger-elicitation-request',
      summary: expect.stringMatching(/^everything asks: Please provide inputs/),
    });
    expect(Object.keys((form.form!.schema as { properties: object }).properties)).toContain('name');
    // The same approval events as any question, so the daemon's desk and every client see it.
    const kinds = events
      .filter((e) => e.type === 'approval_request' || e.type === 'approval_response')
      .map((e) => `${e.type}:${'layer' in e ? e.layer : ''}`);
    expect(kinds).toEqual([
      'approval_request:mcp',
      'approval_response:',
      'approval_request:elicitation',
      'approval_response:',
    ]);
    expect(resultText(1)).toMatch(/Lin/);
  });

  it('a server’s request to open a page (URL mode) asks with the whole address; allowed, the page is opened', async () => {
    const asked: ApprovalRequest[] = [];
    const opened: string[] = [];
    let allow = true;
    const face: ApprovalFace = {
      name: 'test',
      ask: async (r) => {
        asked.push(r);
        return r.layer === 'elicitation' && !allow
          ? { decision: 'deny', by: 'test' }
          : { decision: 'allow', by: 'test' };
      },
    };
    const url = 'https://auth.example.com/connect?account=ada&state=7f3';
    const call = () =>
      tools([toolCall('mcp__everything__trigger-url-elicitation', { url, message: 'Connect your account.' })]);
    fake.enqueue(call(), text('done'), call(), text('done again'));
    const withOpener = () =>
      runtime(
        { mcp_servers: { everything: everythingStdio() } },
        { faces: [face], openUrl: (u) => void opened.push(u.href) },
      );
    await run(await withOpener());
    const q = asked.find((r) => r.layer === 'elicitation')!;
    expect(q).toMatchObject({
      summary: `everything asks you to open ${url}`,
      risk: 'medium',
      tool: 'mcp__everything__trigger-url-elicitation',
    });
    expect(q.reason).toContain('Connect your account.');
    expect(q.form).toBeUndefined();
    expect(opened).toEqual([url]);
    expect(resultText(1)).toMatch(/completed the URL elicitation/);
    // Denied: nothing is opened and the server hears a decline.
    allow = false;
    await run(await withOpener());
    expect(opened).toEqual([url]);
    expect(resultText(3)).toMatch(/declined to open the URL/);
  });

  it('a URL-mode request is declined without an opener, for a non-web address, and under --yes with nobody asked', async () => {
    const asked: ApprovalRequest[] = [];
    const face: ApprovalFace = { name: 'test', ask: async (r) => (asked.push(r), { decision: 'allow', by: 'test' }) };
    const servers = { everything: everythingStdio({ always_allow: ['trigger-url-elicitation'] }) };
    fake.enqueue(
      tools([toolCall('mcp__everything__trigger-url-elicitation', { url: 'https://example.com/a' })]),
      text('no opener'),
    );
    await run(await runtime({ mcp_servers: servers }, { faces: [face] }));
    expect(resultText(1)).toMatch(/declined/);
    fake.enqueue(
      tools([toolCall('mcp__everything__trigger-url-elicitation', { url: 'file:///etc/passwd' })]),
      text('not the web'),
    );
    await run(await runtime({ mcp_servers: servers }, { faces: [face], openUrl: () => undefined }));
    expect(resultText(3)).toMatch(/declined/);
    fake.enqueue(
      tools([toolCall('mcp__everything__trigger-url-elicitation', { url: 'https://example.com/b' })]),
      text('yes mode'),
    );
    await run(await runtime({ mcp_servers: servers }, { yes: true, openUrl: () => undefined }));
    expect(resultText(5)).toMatch(/declined/);
    expect(asked).toEqual([]);
  });

  it('a server asking the model (sampling): the person allows it, one turn without tools answers, its tokens are told', async () => {
    const asked: ApprovalRequest[] = [];
    let allow = true;
    const face: ApprovalFace = {
      name: 'test',
      ask: async (r) => (
        asked.push(r),
        r.layer === 'elicitation' && !allow ? { decision: 'deny', by: 'test' } : { decision: 'allow', by: 'test' }
      ),
    };
    const isSampling = (r: RecordedRequest) => JSON.stringify(r.body.system ?? '').includes('helpful test server');
    // The run's own turns call the tool once, then end; the server's request gets its own answer.
    let prompt = 'write a haiku';
    fake.fallback = (r) => {
      if (isSampling(r)) return text('A haiku about tests.');
      const answered = JSON.stringify(r.body.messages.at(-1)).includes('tool_result');
      return answered
        ? text('done')
        : tools([toolCall('mcp__everything__trigger-sampling-request', { prompt, maxTokens: 50_000 })]);
    };
    const { events } = await run(await runtime({ mcp_servers: { everything: everythingStdio() } }, { faces: [face] }));
    const q = asked.find((r) => r.layer === 'elicitation')!;
    expect(q.summary).toMatch(
      /^everything asks claude-\S+ \(up to 4096 tokens\): Resource trigger-sampling-request context: write a haiku$/,
    );
    const sampled = fake.requests.find(isSampling)!;
    expect(sampled.body).toMatchObject({
      max_tokens: 4_096,
      messages: [{ role: 'user', content: 'Resource trigger-sampling-request context: write a haiku' }],
    });
    expect(sampled.body.tools ?? []).toEqual([]);
    const back = resultText(fake.requests.indexOf(fake.requests.filter((r) => !isSampling(r)).at(-1)!));
    expect(back).toContain('A haiku about tests.');
    expect(
      events.some(
        (e) => e.type === 'notice' && /MCP server everything used .*input and .*output tokens/.test(e.message),
      ),
    ).toBe(true);

    // Declined: the server hears a refusal and the model is not asked.
    allow = false;
    const before = fake.requests.filter(isSampling).length;
    prompt = 'again';
    await run(await runtime({ mcp_servers: { everything: everythingStdio() } }, { faces: [face] }));
    expect(fake.requests.filter(isSampling)).toHaveLength(before);
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages.at(-1))).toMatch(/the person declined/);
  });

  it('answers at most 10 sampling requests in one run, whatever --yes says', async () => {
    const isSampling = (r: RecordedRequest) => JSON.stringify(r.body.system ?? '').includes('helpful test server');
    let calls = 0;
    fake.fallback = (r) => {
      if (isSampling(r)) return text('ok');
      return ++calls <= 11
        ? tools([toolCall('mcp__everything__trigger-sampling-request', { prompt: `n${calls}` })])
        : text('done');
    };
    await run(
      await runtime(
        { mcp_servers: { everything: everythingStdio({ always_allow: ['trigger-sampling-request'] }) } },
        { yes: true },
      ),
    );
    expect(fake.requests.filter(isSampling)).toHaveLength(10);
    expect(JSON.stringify(fake.requests.at(-1)!.body.messages.at(-1))).toMatch(/answered 10 sampling requests already/);
  });

  it('what sampling spends counts in the run: its usage, and the spending cap that stops further requests', async () => {
    const isSampling = (r: RecordedRequest) => JSON.stringify(r.body.system ?? '').includes('helpful test server');
    let calls = 0;
    fake.fallback = (r) => {
      // A sampled answer costs far more than the run's cap allows.
      if (isSampling(r))
        return {
          kind: 'message',
          content: [{ type: 'text', text: 'ok' }],
          usage: { input_tokens: 400_000, output_tokens: 10 },
        };
      return ++calls <= 3
        ? tools([toolCall('mcp__everything__trigger-sampling-request', { prompt: `n${calls}` })])
        : text('done');
    };
    const rt = await runtime(
      // Priced: the fake is on loopback, where a model without `prices` costs $0 (llm/pricing.ts).
      {
        mcp_servers: { everything: everythingStdio({ always_allow: ['trigger-sampling-request'] }) },
        budget: { max_usd_per_run: 0.5 },
        prices: { 'claude-sonnet-5-5': { input: 3, output: 15 }, 'claude-haiku-5-5': { input: 1, output: 5 } },
      },
      { yes: true },
    );
    const { outcome } = await run(rt);
    expect(fake.requests.filter(isSampling)).toHaveLength(1);
    expect(outcome.usage.input_tokens).toBeGreaterThanOrEqual(400_000);
    expect(outcome.stopReason).toBe('budget');
  });

  it('an unattended run refuses a server’s sampling request without asking or calling the model', async () => {
    const servers = { everything: everythingStdio({ always_allow: ['trigger-sampling-request'] }) };
    fake.enqueue(tools([toolCall('mcp__everything__trigger-sampling-request', { prompt: 'hi' })]), text('done'));
    await run(await runtime({ mcp_servers: servers }, { origin: 'unattended', source: 'schedule' }));
    expect(fake.requests).toHaveLength(2);
    expect(resultText(1)).toMatch(/nobody is watching this schedule run/);
  });

  it('an unattended run declines a server’s question (nobody may be asked)', async () => {
    const schemaTool = { everything: everythingStdio({ always_allow: ['trigger-elicitation-request'] }) };
    fake.enqueue(tools([toolCall('mcp__everything__trigger-elicitation-request', {})]), text('done'));
    const rt = await runtime({ mcp_servers: schemaTool }, { origin: 'unattended', source: 'schedule' });
    await run(rt);
    expect(resultText(1)).toMatch(/declined/i);
  });

  it('--yes takes the form’s defaults when they fill it, without asking anybody', async () => {
    const s = await startSdkServer({
      setup: (server) =>
        server.registerTool('ask', { description: 'Asks for a colour', inputSchema: {} }, async () => {
          const r = await server.server.elicitInput({
            message: 'Pick a colour',
            requestedSchema: {
              type: 'object',
              properties: { color: { type: 'string', default: 'blue' }, n: { type: 'integer', default: 3 } },
            },
          });
          return { content: [{ type: 'text', text: JSON.stringify(r) }] };
        }),
    });
    try {
      fake.enqueue(tools([toolCall('mcp__s__ask', {})]), text('done'));
      const rt = await runtime(
        { mcp_servers: { s: { type: 'http', url: s.url, always_allow: ['ask'] } } },
        { yes: true },
      );
      const { events } = await run(rt);
      expect(resultText(1)).toContain('\\"action\\":\\"accept\\"');
      expect(resultText(1)).toContain('blue');
      expect(events.some((e) => e.type === 'approval_request')).toBe(false);
      await rt.mcp!.manager.dispose();
    } finally {
      await s.close();
    }
  });

  it('past 30 tools the MCP tools wait behind tool_search, listed in the catalogue', async () => {
    await mkdir(join(d.cwd, 'files'), { recursive: true });
    fake.enqueue(text('done'));
    const rt = await runtime({
      mcp_servers: { everything: everythingStdio(), files: filesystemStdio(join(d.cwd, 'files')) },
    });
    expect(rt.registry.size).toBeGreaterThan(31);
    await run(rt);
    const req = fake.requests[0]!.body;
    const names = req.tools!.map((t) => t.name);
    expect(names).toContain('tool_search');
    expect(names.some((n) => n.startsWith('mcp__'))).toBe(false);
    expect((req.system as { text: string }[])[1]!.text).toMatch(
      /# Deferred tools[\s\S]*- mcp__everything__echo: Echoes back the input string/,
    );
  });
});

describe('MCP servers in a long-lived process (RuntimeCache)', () => {
  async function agent(name: string, config: string) {
    const dir = join(d.home, 'agents', name);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'AGENT.md'), `You are ${name}.\n`);
    await writeFile(join(dir, 'config.yaml'), config);
  }

  it('each agent has its own servers; one stays connected between runs with the same bytes; the cache stops them', async () => {
    const cache = new RuntimeCache();
    caches.push(cache);
    const config = GlobalConfig.parse({});
    await agent(
      'alpha',
      `mcp_servers:\n  mine:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(everythingStdio().args[0])}, stdio]\n    always_allow: [echo]\n`,
    );
    await agent('beta', 'mcp_servers: {}\n');
    const a1 = await createRuntime({
      home: d.home,
      cwd: d.cwd,
      env: env(),
      config,
      agent: 'alpha',
      origin: 'attended',
      faces: [],
      cache,
      bundledSkillsDir: join(d.root, 'none'),
    });
    const b = await createRuntime({
      home: d.home,
      cwd: d.cwd,
      env: env(),
      config,
      agent: 'beta',
      origin: 'attended',
      faces: [],
      cache,
      bundledSkillsDir: join(d.root, 'none'),
    });
    expect(a1.registry.names()).toContain('mcp__mine__echo');
    expect(b.registry.names().some((n) => n.startsWith('mcp__'))).toBe(false);
    expect(b.mcp).toBeUndefined();

    fake.enqueue(tools([toolCall('mcp__mine__echo', { message: 'a' })]), text('one'));
    await run(a1);
    const a2 = await createRuntime({
      home: d.home,
      cwd: d.cwd,
      env: env(),
      config,
      agent: 'alpha',
      origin: 'attended',
      faces: [],
      cache,
      bundledSkillsDir: join(d.root, 'none'),
    });
    expect(a2.mcp!.manager).toBe(a1.mcp!.manager);
    // The run wrote the agent's sessions folder, so its config was resolved again; the servers' tools are the same objects.
    expect(a2.registry.get('mcp__mine__echo')).toBe(a1.registry.get('mcp__mine__echo'));
    fake.enqueue(text('two'));
    await run(a2);
    // The second run's request starts with the first one's tools and system prompt, byte for byte.
    const first = fake.requests[0]!.body;
    const third = fake.requests[2]!.body;
    expect(JSON.stringify(third.tools)).toBe(JSON.stringify(first.tools));
    expect(JSON.stringify(third.system)).toBe(JSON.stringify(first.system));

    const statuses = cache.mcpStatus(d.home, a2.agentConfig, env());
    expect(statuses[0]).toMatchObject({ name: 'mine', state: 'healthy' });
    const pid = a2.mcp!.manager.servers[0]!.connection!.pid!;
    await cache.dispose();
    expect(alive(pid)).toBe(false);
  });
});
