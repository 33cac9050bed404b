/**
 * What one run may do with cloud_delegate: `cloud.max_per_run` delegations that did not end in an error
 * (refused before anyone is asked; a failure frees its place), the gateway's reported cost added to the
 * run's spending and checked against its cap, a gateway behind a path prefix, and a refused key (401)
 * that says where the key was read from.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { createCloudDelegateTool, type CloudDelegateDeps } from '../../../src-main/core/cloud/delegate.js';
import { cloudKeyFile, fileCloudKeyStore } from '../../../src-main/core/cloud/settings.js';
import { RUN_COSTS } from '../../../src-main/core/tools/runCosts.js';
import { sessionSlots } from '../../../src-main/core/tools/sessionSlots.js';
import type { ToolContext, ToolProgress } from '../../../src-main/core/tools/tool.js';
import { startFakeGateway, type FakeGateway, type FakeSseEvent } from '../../support/fakeGateway.js';
import { useLeakCheck } from '../../support/leaks.js';
import { callTool, makeToolContext, type TempToolContext } from '../tools/toolTestContext.js';

useLeakCheck();

let gw: FakeGateway;
let t: TempToolContext;
let ctx: ToolContext;
let progress: ToolProgress[];
let costs: number[];
let over: boolean;

async function world(opts: { prefix?: string } = {}) {
  gw = await startFakeGateway({ apiKey: 'k-1', ...opts });
}
beforeEach(async () => {
  t = await makeToolContext();
  progress = [];
  costs = [];
  over = false;
  ctx = { ...t.ctx, progress: (u) => progress.push(u) };
  // What the loop seeds for each run (harness/loop.ts).
  sessionSlots(ctx).seed(RUN_COSTS, { addCost: (usd) => void costs.push(usd), overBudget: () => over });
});
afterEach(async () => {
  await gw?.close();
  await t.cleanup();
});

const tool = (cfg: Record<string, unknown> = {}, over: Partial<CloudDelegateDeps> = {}) =>
  createCloudDelegateTool({
    cloud: GlobalConfig.parse({ cloud: { enabled: true, base_url: gw.url, ...cfg } }).cloud,
    env: { REIN_CLOUD_API_KEY: 'k-1' },
    reconnectDelayMs: 5,
    ...over,
  });
const done = (cost: number, extra: FakeSseEvent[] = []): FakeSseEvent[] => [
  ...extra,
  {
    data: {
      type: 'thread.message.completed',
      agent_id: 'final_output',
      response: 'R',
      metadata: { input_tokens: 10, output_tokens: 5, cost_usd: cost },
    },
  },
  { data: { type: 'WORKFLOW_COMPLETED' } },
];
const submissions = () => gw.requestsTo('/api/v1/tasks/stream', 'POST').length;

describe('cloud.max_per_run', () => {
  beforeEach(() => world());

  it('defaults to 1: a second delegation in the run is refused before anyone is asked, and nothing is sent', async () => {
    expect(GlobalConfig.parse({}).cloud.max_per_run).toBe(1);
    gw.enqueue({ events: done(0.01), result: 'first' });
    const d = tool();
    expect(d.admit!({ task: 'a' }, ctx)).toBeUndefined();
    expect(await callTool(d, { task: 'a' }, ctx)).toMatchObject({ ok: true, content: 'first' });
    const refusal = d.admit!({ task: 'b' }, ctx);
    expect(refusal).toEqual({
      ok: false,
      errorKind: 'business',
      content:
        '[business error] cloud_delegate already ran once in this run (cloud.max_per_run: 1), so this call did not run and nothing was sent. Work with the result you have; do anything further locally with your own tools.',
    });
    // And if it is called anyway (an embedder that skips admission), the same refusal.
    expect(await callTool(d, { task: 'b' }, ctx)).toEqual(refusal);
    expect(submissions()).toBe(1);
  });

  it('a delegation that ends in an error frees its place', async () => {
    gw.enqueue(
      { events: [], submitError: { status: 503, body: 'busy' } },
      { events: [{ data: { type: 'WORKFLOW_FAILED', message: 'quota' } }] },
      { events: done(0), result: 'ok at last' },
    );
    const d = tool();
    expect((await callTool(d, { task: 'a' }, ctx)).ok).toBe(false);
    expect((await callTool(d, { task: 'b' }, ctx)).ok).toBe(false);
    expect(await callTool(d, { task: 'c' }, ctx)).toMatchObject({ ok: true, content: 'ok at last' });
    expect(d.admit!({ task: 'd' }, ctx)?.content).toMatch(/already ran once in this run/);
    expect(submissions()).toBe(3);
  });

  it('a higher limit allows that many; 0 lifts it', async () => {
    const two = tool({ max_per_run: 2 });
    for (const task of ['a', 'b']) expect((await callTool(two, { task }, ctx)).ok).toBe(true);
    expect((await callTool(two, { task: 'c' }, ctx)).content).toMatch(
      /^\[business error\] cloud_delegate already ran 2 times in this run \(cloud\.max_per_run: 2\)/,
    );
    expect(submissions()).toBe(2);

    const fresh = (await makeToolContext()).ctx;
    const unlimited = tool({ max_per_run: 0 });
    for (const task of ['a', 'b', 'c']) expect((await callTool(unlimited, { task }, fresh)).ok).toBe(true);
    expect(submissions()).toBe(5);
  });

  it('the count is per run (its tool context): a new run may delegate again', async () => {
    const d = tool();
    expect((await callTool(d, { task: 'a' }, ctx)).ok).toBe(true);
    const nextRun = await makeToolContext();
    expect((await callTool(d, { task: 'b' }, nextRun.ctx)).ok).toBe(true);
    await nextRun.cleanup();
  });
});

describe('the cloud’s cost in the run', () => {
  beforeEach(() => world());

  it('adds the cost the gateway reported to the run’s spending, once per delegation', async () => {
    gw.enqueue({
      events: done(0.25, [
        {
          data: {
            type: 'LLM_OUTPUT',
            agent_id: 'researcher',
            response: 'notes',
            metadata: { input_tokens: 100, output_tokens: 20, cost_usd: 0.5 },
          },
        },
      ]),
      result: 'R',
    });
    expect((await callTool(tool(), { task: 'a' }, ctx)).ok).toBe(true);
    expect(costs).toEqual([0.75]);
    expect(progress.filter((p) => (p.data as { kind: string }).kind === 'usage').map((p) => p.message)).toEqual([
      'cloud usage: 135 tokens, $0.7500',
    ]);
  });

  it('counts what a failed workflow already cost (it was billed), and reports it', async () => {
    gw.enqueue({
      events: [
        {
          data: {
            type: 'LLM_OUTPUT',
            agent_id: 'researcher',
            response: 'notes',
            metadata: { input_tokens: 100, output_tokens: 20, cost_usd: 0.125 },
          },
        },
        { data: { type: 'WORKFLOW_FAILED', message: 'ran out of sources' } },
      ],
    });
    expect((await callTool(tool(), { task: 'a' }, ctx)).ok).toBe(false);
    expect(costs).toEqual([0.125]);
    expect(progress.some((p) => p.message === 'cloud usage: 120 tokens, $0.1250')).toBe(true);
  });

  it('takes the usage of the task record when the stream carried none; a negative cost is not taken', async () => {
    gw.enqueue(
      {
        events: [{ data: { type: 'WORKFLOW_COMPLETED', message: 'm' } }],
        result: 'R',
        usage: { total_tokens: 900, cost_usd: 0.3 },
      },
      {
        events: [
          { data: { type: 'thread.message.completed', response: 'R', metadata: { input_tokens: 1, cost_usd: -5 } } },
          { data: { type: 'WORKFLOW_COMPLETED' } },
        ],
        result: 'R',
      },
    );
    const d = tool({ max_per_run: 0 });
    await callTool(d, { task: 'a' }, ctx);
    await callTool(d, { task: 'b' }, ctx);
    expect(costs).toEqual([0.3]);
  });

  it('is refused before anyone is asked once the run’s spending cap is reached', async () => {
    over = true;
    const d = tool();
    expect(d.admit!({ task: 'a' }, ctx)?.content).toBe(
      "[business error] the run's spending cap (budget.max_usd_per_run) is reached, so cloud_delegate did not run and nothing was sent. Answer with what you have.",
    );
    expect((await callTool(d, { task: 'a' }, ctx)).ok).toBe(false);
    expect(gw.requests).toHaveLength(0);
  });
});

describe('behind a path prefix', () => {
  it('delegates through a gateway at /shannon that answers a root-relative stream_url', async () => {
    await world({ prefix: '/shannon' });
    gw.enqueue({ workflowId: 'wf-p', events: done(0.02), result: 'the report' });
    expect(gw.url).toMatch(/\/shannon$/);
    const r = await callTool(tool(), { task: 'a' }, ctx);
    expect(r).toEqual({ ok: true, content: 'the report', final: true });
    expect(gw.requests.map((q) => `${q.method} ${q.rawPath}`)).toEqual([
      'POST /shannon/api/v1/tasks/stream',
      'GET /shannon/api/v1/stream/sse',
      'GET /shannon/api/v1/tasks/task-1',
    ]);
    expect(gw.requests.every((q) => q.headers['x-api-key'] === 'k-1')).toBe(true);
  });
});

describe('a refused key (401)', () => {
  beforeEach(() => world());
  const where =
    'Rein reads the key from cloud.api_key in config.yaml, then the environment variables REIN_CLOUD_API_KEY and SHANNON_API_KEY, then';

  it('names the environment variable the key came from, and every place Rein looks', async () => {
    const r = await callTool(tool({}, { env: { SHANNON_API_KEY: 'stale' } }), { task: 'a' }, ctx);
    expect(r.content).toContain(
      'cloud delegation failed: the cloud gateway refused the API key (HTTP 401): the API key sent came from the environment variable SHANNON_API_KEY.',
    );
    expect(r.content).toContain(
      `${where} <REIN_HOME>/secrets/cloud-api-key, the first one set wins (docs/cloud.md). Gateway said: {"error":"invalid API key"}`,
    );
    expect(r.content).not.toContain('stale');
    expect(r.errorKind).toBe('business');
  });

  it('names config.yaml, or the key store’s file', async () => {
    const fromConfig = await callTool(tool({ api_key: 'old' }), { task: 'a' }, ctx);
    expect(fromConfig.content).toContain('the API key sent came from cloud.api_key in config.yaml.');

    const file = cloudKeyFile(t.ctx.reinHome);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, 'wrong\n', { mode: 0o600 });
    const fromFile = await callTool(tool({}, { env: {}, keys: fileCloudKeyStore(t.ctx.reinHome) }), { task: 'a' }, ctx);
    expect(fromFile.content).toContain(`the API key sent came from the key store (${file}).`);
    expect(fromFile.content).toContain(`${where} ${file},`);
  });

  it('says so when no key was sent at all (a gateway on this machine may go without one)', async () => {
    const r = await callTool(tool({}, { env: {} }), { task: 'a' }, ctx);
    expect(r.content).toContain('the cloud gateway refused the API key (HTTP 401): no API key was sent (none is set).');
  });
});
