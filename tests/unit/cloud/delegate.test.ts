import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import {
  createCloudDelegateTool,
  MAX_CONSECUTIVE_FAILURES,
  type CloudDelegateDeps,
} from '../../../src-main/core/cloud/delegate.js';
import { cloudToolProvider, CloudToolProvider } from '../../../src-main/core/cloud/provider.js';
import { cloudKeyFile, fileCloudKeyStore, resolveCloudKey } from '../../../src-main/core/cloud/settings.js';
import type { ToolContext, ToolProgress } from '../../../src-main/core/tools/tool.js';
import { startFakeGateway, type FakeGateway, type FakeSseEvent } from '../../support/fakeGateway.js';
import { useLeakCheck } from '../../support/leaks.js';
import { callTool, makeToolContext, type TempToolContext } from '../tools/toolTestContext.js';

useLeakCheck();

let gw: FakeGateway;
let t: TempToolContext;
let progress: ToolProgress[];
let ctx: ToolContext;

beforeEach(async () => {
  gw = await startFakeGateway({ apiKey: 'k-123' });
  t = await makeToolContext();
  progress = [];
  ctx = { ...t.ctx, progress: (u) => progress.push(u) };
});
afterEach(async () => {
  await gw.close();
  await t.cleanup();
});

const cloudConfig = (over: Record<string, unknown> = {}) =>
  GlobalConfig.parse({ cloud: { enabled: true, base_url: gw.url, ...over } }).cloud;
const tool = (over: Partial<CloudDelegateDeps> = {}, cfg: Record<string, unknown> = {}) =>
  createCloudDelegateTool({
    cloud: cloudConfig(cfg),
    env: { REIN_CLOUD_API_KEY: 'k-123' },
    reconnectDelayMs: 5,
    ...over,
  });
const ev = (data: Record<string, unknown>, extra: Partial<FakeSseEvent> = {}): FakeSseEvent => ({ data, ...extra });

const RESEARCH: FakeSseEvent[] = [
  ev({ type: 'WORKFLOW_STARTED', message: 'ignored' }),
  ev({ type: 'RESEARCH_PLAN_READY', message: '1. find sources\n2. compare' }),
  // The workflow waits for the plan's review: the tool must approve it for anything to follow.
  ev({ type: 'RESEARCH_PLAN_APPROVED' }, { afterReview: true }),
  ev({ type: 'AGENT_STARTED', agent_id: 'researcher-1', message: 'looking for sources' }),
  ev({ type: 'TOOL_INVOKED', agent_id: 'researcher-1', message: 'web_search: solar panel prices 2025' }),
  ev({ type: 'TASKLIST_UPDATED', payload: { tasks: [{ status: 'completed' }, { status: 'running' }] } }),
  ev({ type: 'LLM_PARTIAL', agent_id: 'researcher-1', delta: 'working notes nobody needs' }),
  ev({ type: 'AGENT_COMPLETED', agent_id: 'researcher-1', message: 'done' }),
  ev({ type: 'thread.message.delta', agent_id: 'final_output', delta: '# Solar report\n' }),
  ev({ type: 'thread.message.delta', agent_id: 'final_output', delta: 'Prices fell.' }),
  ev({ type: 'LLM_OUTPUT', agent_id: 'title_generator', response: 'A title' }),
  ev({
    type: 'thread.message.completed',
    agent_id: 'final_output',
    response: '# Solar report\nPrices fell.',
    metadata: { input_tokens: 1200, output_tokens: 300, cost_usd: 0.05, model_used: 'big-model' },
  }),
  ev({ type: 'WORKFLOW_COMPLETED', message: 'finished' }),
];
const FULL = `# Solar report\nPrices fell.\n\n${'More detail the stream cut. '.repeat(50)}`;

describe('cloud_delegate', () => {
  it('submits, forwards progress, approves the research plan, and returns the full result marked final', async () => {
    gw.enqueue({ workflowId: 'wf-1', taskId: 'task-1', events: RESEARCH, result: FULL });
    const r = await callTool(
      tool(),
      { task: 'Research solar panel prices', context: `c${'x'.repeat(9000)}`, workflow_type: 'research' },
      ctx,
    );
    expect(r).toEqual({ ok: true, content: FULL, final: true });

    const [submit] = gw.requestsTo('/api/v1/tasks/stream', 'POST');
    expect(submit!.headers['x-api-key']).toBe('k-123');
    const body = submit!.body as { query: string; session_id: string; context: Record<string, unknown> };
    expect(body.query).toBe('Research solar panel prices');
    expect(body.session_id).toBe('test-session');
    expect(body.context).toMatchObject({ agent_name: 'default', force_research: true });
    expect((body.context.user_context as string).length).toBe(8000);

    // Plan approved once, the full result fetched by task id.
    const reviews = gw.requestsTo('/api/v1/tasks/wf-1/review', 'POST');
    expect(reviews).toHaveLength(1);
    expect(reviews[0]!.body).toEqual({ action: 'approve' });
    expect(gw.requestsTo('/api/v1/tasks/task-1', 'GET')).toHaveLength(1);

    const messages = progress.map((p) => p.message);
    expect(messages[0]).toBe(`submitting the task to ${gw.url}`);
    expect(messages).toContain('cloud workflow wf-1 started');
    expect(messages).toContain('research plan ready; approving it');
    expect(messages).toContain('research plan approved');
    expect(messages).toContain('[researcher-1] started: looking for sources');
    expect(messages).toContain('[researcher-1] tool: web_search: solar panel prices 2025');
    expect(messages).toContain('tasks: 1 of 2 done');
    expect(messages).toContain('[researcher-1] completed: done');
    expect(messages).toContain('cloud usage: 1500 tokens, $0.0500');
    expect(messages[messages.length - 1]).toBe('cloud workflow wf-1 completed');
    // Deltas of the answer agent only, coalesced into one report; every report names the workflow.
    const deltas = progress.filter((p) => (p.data as { kind: string }).kind === 'delta');
    expect(deltas.map((d) => (d.data as { text: string }).text).join('')).toBe('# Solar report\nPrices fell.');
    expect(deltas).toHaveLength(1);
    expect(deltas[0]!.message).toBe('writing: # Solar report Prices fell.');
    expect(progress.slice(1).every((p) => (p.data as { workflow_id?: string }).workflow_id === 'wf-1')).toBe(true);
    expect(progress.find((p) => (p.data as { kind: string }).kind === 'plan')!.data).toMatchObject({
      plan_type: 'research_plan',
      content: '1. find sources\n2. compare',
      needs_review: true,
    });
  });

  it('keeps the streamed result when it is longer than the fetched one, and final_answer: false gives it back to the model', async () => {
    gw.enqueue({ events: RESEARCH, result: 'short' });
    const r = await callTool(tool(), { task: 'x', final_answer: false }, ctx);
    expect(r).toEqual({ ok: true, content: '# Solar report\nPrices fell.' });
  });

  it('without the full result (its fetch failed) returns the streamed one with a note, not as the final answer', async () => {
    gw.enqueue({ events: RESEARCH, taskStatus: 500 });
    const r = await callTool(tool(), { task: 'x' }, ctx);
    expect(r.ok).toBe(true);
    expect(r.final).toBeUndefined();
    expect(r.content).toMatch(
      /^# Solar report\nPrices fell\.\n\n\[note: the full result could not be fetched \(.*HTTP 500.*\); this is the result as streamed/,
    );
  });

  it('resumes a dropped stream and still delivers the whole result', async () => {
    gw.enqueue({ events: RESEARCH, result: FULL, dropAfter: [4, 3], retryMs: 5 });
    const r = await callTool(tool(), { task: 'x' }, ctx);
    expect(r).toMatchObject({ ok: true, content: FULL, final: true });
    expect(gw.requestsTo('/api/v1/stream/sse').map((q) => q.headers['last-event-id'])).toEqual([undefined, '4', '7']);
    expect(progress.filter((p) => (p.data as { kind: string }).kind === 'reconnect').map((p) => p.message)).toEqual([
      expect.stringMatching(/^event stream dropped \(.*\); resuming after event 4$/),
      expect.stringMatching(/^event stream dropped \(.*\); resuming after event 7$/),
    ]);
    // Each event reported once, resumes or not.
    expect(progress.filter((p) => p.message === '[researcher-1] started: looking for sources')).toHaveLength(1);
  });

  it('a failed workflow is an error the model reads', async () => {
    gw.enqueue({
      events: [
        ev({ type: 'AGENT_STARTED', agent_id: 'a' }),
        ev({ type: 'WORKFLOW_FAILED', message: 'quota exceeded' }),
      ],
    });
    const r = await callTool(tool(), { task: 'x' }, ctx);
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(
      /^\[business error\] the cloud workflow wf-1 failed: quota exceeded\. \(1 of 3 failures allowed in a row\.\)/,
    );
  });

  it(`after ${MAX_CONSECUTIVE_FAILURES} failures in a row tells the model to work locally, then answers at once`, async () => {
    const down = { events: [], submitError: { status: 503, body: 'maintenance' } };
    gw.enqueue(down, down, down);
    const d = tool();
    const first = await callTool(d, { task: 'a' }, ctx);
    expect(first.content).toMatch(
      /^\[transient error\] cloud delegation failed: .*HTTP 503: maintenance\. \(1 of 3 failures allowed in a row\.\) Try once more only if it looks temporary; otherwise do the work locally/,
    );
    await callTool(d, { task: 'b' }, ctx);
    const third = await callTool(d, { task: 'c' }, ctx);
    expect(third.content).toContain(
      'That is 3 failures in a row: do not call cloud_delegate again in this run; do the work locally with your own tools.',
    );
    const fourth = await callTool(d, { task: 'd' }, ctx);
    expect(fourth.content).toMatch(
      /^\[business error\] cloud_delegate is not available any more in this run: it failed 3 times in a row \(last: cloud delegation failed: .*503.*\)\. Do not call it again; do the work locally/,
    );
    expect(gw.requestsTo('/api/v1/tasks/stream')).toHaveLength(3);
  });

  it('a success resets the count of failures', async () => {
    const down = { events: [], submitError: { status: 502, body: 'bad gateway' } };
    gw.enqueue(down, down, { events: RESEARCH, result: FULL }, down, down);
    // Two successes in one run: only with the per-run limit lifted.
    const d = tool({}, { max_per_run: 0 });
    for (const task of ['a', 'b', 'c', 'd', 'e']) await callTool(d, { task }, ctx);
    const sixth = await callTool(d, { task: 'f' }, ctx);
    // Two failures after the success: the sixth call still reaches the gateway (the fallback answers it).
    expect(sixth.ok).toBe(true);
    expect(gw.requestsTo('/api/v1/tasks/stream')).toHaveLength(6);
  });

  it('cancelling the run cancels the workflow on the gateway', async () => {
    gw.enqueue({
      workflowId: 'wf-c',
      events: [ev({ type: 'AGENT_STARTED', agent_id: 'a', message: 'go' })],
      hang: true,
    });
    const ac = new AbortController();
    const pending = callTool(tool(), { task: 'x' }, ctx, ac.signal);
    await gw.waitFor('/api/v1/stream/sse', 'GET');
    await new Promise((ok) => setTimeout(ok, 50));
    ac.abort();
    const r = await pending;
    expect(r.ok).toBe(false);
    expect(r.content).toBe('[transient error] cancelled: the run was cancelled (cloud workflow wf-c cancelled)');
    expect(gw.requestsTo('/api/v1/tasks/wf-c/cancel', 'POST')).toHaveLength(1);
    expect(progress.map((p) => p.message)).toContain('cancelling cloud workflow wf-c');
  });

  it('a workflow that outlives cloud.timeout is cancelled; what came so far is returned as partial, counted as a failure', async () => {
    gw.enqueue({
      workflowId: 'wf-t',
      events: [ev({ type: 'thread.message.completed', agent_id: 'final_output', response: 'half an answer' })],
      hang: true,
    });
    const r = await callTool(tool({}, { timeout: 1 }), { task: 'x' }, ctx);
    expect(r.ok).toBe(true);
    expect(r.final).toBeUndefined();
    expect(r.content).toMatch(
      /^\[timed out after 1 s \(cloud\.timeout\) \(cloud workflow wf-t cancelled\); this is the partial result\. \(1 of 3 failures allowed in a row\.\).*\]\n\nhalf an answer$/,
    );
    expect(gw.requestsTo('/api/v1/tasks/wf-t/cancel', 'POST')).toHaveLength(1);
  });

  it('needs a key for a gateway beyond this machine, and says where to put it', async () => {
    const d = createCloudDelegateTool({
      cloud: GlobalConfig.parse({ cloud: { enabled: true, base_url: 'https://gw.example' } }).cloud,
      env: {},
    });
    const r = await callTool(d, { task: 'x' }, ctx);
    expect(r.content).toMatch(
      /^\[business error\] no API key for the cloud gateway gw\.example: set REIN_CLOUD_API_KEY \(or SHANNON_API_KEY\), cloud\.api_key/,
    );
  });

  it('asks the egress check before sending anything', async () => {
    const r = await callTool(
      tool(),
      { task: 'x' },
      { ...ctx, egress: async () => ({ allowed: false, reason: 'not on the allowlist' }) },
    );
    expect(r.content).toMatch(
      /^\[permission error\] the cloud gateway 127\.0\.0\.1:\d+ may not be reached: not on the allowlist/,
    );
    expect(gw.requests).toHaveLength(0);
  });

  it('is a high-risk call that always asks, once per response, with a summary naming where the task goes', () => {
    const d = tool();
    const input = { task: 'compare vendors' };
    expect(d.isReadOnly(input)).toBe(false);
    expect(d.isDestructive(input)).toBe(true);
    expect(d.maxCallsPerResponse).toBe(1);
    expect(d.source).toBe('cloud');
    expect(d.summarize!(input)).toBe(
      `auto task for ${new URL(gw.url).host} (the task and its context are sent there): compare vendors`,
    );
  });
});

describe('cloud settings', () => {
  it('accepts the old cloud.endpoint as the base URL; base_url wins when both are set', async () => {
    const old = GlobalConfig.parse({ cloud: { enabled: true, endpoint: gw.url } }).cloud;
    expect(await new CloudToolProvider({ cloud: old, env: {} }).tools()).toHaveLength(1);
    const both = GlobalConfig.parse({
      cloud: { enabled: true, endpoint: 'https://old.example', base_url: gw.url },
    }).cloud;
    gw.enqueue({ events: RESEARCH, result: FULL });
    const [d] = await new CloudToolProvider({
      cloud: both,
      env: { SHANNON_API_KEY: 'k-123' },
      reconnectDelayMs: 5,
    }).tools();
    expect((await callTool(d!, { task: 'x' }, ctx)).ok).toBe(true);
  });

  it('a provider without a usable base URL fails with the reason (a warning of the run), never a broken tool', async () => {
    await expect(
      new CloudToolProvider({ cloud: GlobalConfig.parse({ cloud: { enabled: true } }).cloud, env: {} }).tools(),
    ).rejects.toThrow(/cloud\.base_url is not set/);
    await expect(
      new CloudToolProvider({
        cloud: GlobalConfig.parse({ cloud: { enabled: true, endpoint: 'gw.example' } }).cloud,
        env: {},
      }).tools(),
    ).rejects.toThrow(/cloud\.endpoint is not a valid URL/);
    await expect(
      new CloudToolProvider({
        cloud: GlobalConfig.parse({ cloud: { enabled: true, base_url: 'http://gw.example' } }).cloud,
        env: {},
      }).tools(),
    ).rejects.toThrow(/must be an https URL/);
  });

  it('takes the key from config, then REIN_CLOUD_API_KEY, then SHANNON_API_KEY, then the key store', async () => {
    const home = t.ctx.reinHome;
    const store = fileCloudKeyStore(home);
    const none = GlobalConfig.parse({}).cloud;
    expect(await resolveCloudKey(none, {}, store)).toEqual({ key: undefined, from: 'none' });
    await mkdir(dirname(cloudKeyFile(home)), { recursive: true });
    await writeFile(cloudKeyFile(home), 'from-file\n', { mode: 0o600 });
    expect(await resolveCloudKey(none, {}, store)).toEqual({ key: 'from-file', from: 'key store' });
    expect(await resolveCloudKey(none, { SHANNON_API_KEY: 'shannon' }, store)).toEqual({
      key: 'shannon',
      from: 'SHANNON_API_KEY',
    });
    expect(await resolveCloudKey(none, { SHANNON_API_KEY: 'shannon', REIN_CLOUD_API_KEY: 'rein' }, store)).toEqual({
      key: 'rein',
      from: 'REIN_CLOUD_API_KEY',
    });
    const inConfig = GlobalConfig.parse({ cloud: { api_key: 'cfg' } }).cloud;
    expect(await resolveCloudKey(inConfig, { REIN_CLOUD_API_KEY: 'rein' }, store)).toEqual({
      key: 'cfg',
      from: 'config',
    });
  });

  it('keeps one provider per configuration, environment and key store', () => {
    const cloud = cloudConfig();
    const env = {};
    const a = cloudToolProvider({ cloud, env, home: '/h' });
    expect(cloudToolProvider({ cloud, env, home: '/h' })).toBe(a);
    expect(cloudToolProvider({ cloud: cloudConfig(), env, home: '/h' })).not.toBe(a);
    expect(cloudToolProvider({ cloud, env: {}, home: '/h' })).not.toBe(a);
  });
});
