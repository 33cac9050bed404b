/**
 * cloud_delegate end to end in one process: the real runtime (cloud.enabled → the cloud provider), the
 * real loop and executor, the real SDK against the fake Messages API, and the fake gateway on loopback.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest, ReinEvent } from '../../src-main/core/api/events.js';
import type { RunOrigin } from '../../src-main/core/api/patterns.js';
import { GlobalConfig } from '../../src-main/core/config/schema.js';
import type { ApprovalFace } from '../../src-main/core/permissions/types.js';
import { createRuntime, startRun } from '../../src-main/core/runtime/runtime.js';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { startFakeGateway, type FakeGateway, type FakeSseEvent } from '../support/fakeGateway.js';
import { useLeakCheck } from '../support/leaks.js';

useLeakCheck();

let fake: FakeAnthropic;
let gw: FakeGateway;
let root: string;
let home: string;
let cwd: string;
let asked: ApprovalRequest[];

beforeEach(async () => {
  fake = await startFakeAnthropic();
  gw = await startFakeGateway({ apiKey: 'cloud-key' });
  root = await mkdtemp(join(tmpdir(), 'rein-cloud-'));
  home = join(root, 'home');
  cwd = join(root, 'work');
  await mkdir(home, { recursive: true });
  await mkdir(cwd, { recursive: true });
  asked = [];
});
afterEach(async () => {
  await fake.close();
  await gw.close();
  await rm(root, { recursive: true, force: true });
});

const allow: ApprovalFace = {
  name: 'test',
  ask: async (req) => {
    asked.push(req);
    return { decision: 'allow', by: 'test' };
  },
};

async function run(
  prompt: string,
  opts: {
    config?: Record<string, unknown>;
    origin?: RunOrigin;
    signal?: AbortSignal;
    onEvent?: (e: ReinEvent) => void;
  } = {},
) {
  const config = GlobalConfig.parse({
    cloud: { enabled: true, base_url: gw.url, stream_idle_timeout: 5 },
    ...opts.config,
  });
  const rt = await createRuntime({
    home,
    cwd,
    env: {
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: fake.url,
      REIN_RETRY_BASE_MS: '1',
      REIN_CLOUD_API_KEY: 'cloud-key',
    },
    config,
    faces: [allow],
    origin: opts.origin ?? 'attended',
    source: opts.origin === 'unattended' ? 'schedule' : 'cli',
    bundledSkillsDir: join(root, 'none'),
  });
  const started = await startRun(rt, { prompt, cwd, home, signal: opts.signal ?? new AbortController().signal });
  const events: ReinEvent[] = [];
  for (;;) {
    const step = await started.events.next();
    if (step.done) return { rt, events, outcome: step.value, session: started.session };
    events.push(step.value);
    opts.onEvent?.(step.value);
  }
}

const ev = (data: Record<string, unknown>, extra: Partial<FakeSseEvent> = {}): FakeSseEvent => ({ data, ...extra });
const RESEARCH: FakeSseEvent[] = [
  ev({ type: 'RESEARCH_PLAN_READY', message: '1. gather\n2. compare' }),
  ev({ type: 'RESEARCH_PLAN_APPROVED' }, { afterReview: true }),
  ev({ type: 'AGENT_STARTED', agent_id: 'researcher', message: 'searching' }),
  ev({ type: 'TOOL_INVOKED', agent_id: 'researcher', message: 'web_search' }),
  ev({ type: 'AGENT_COMPLETED', agent_id: 'researcher' }),
  ev({ type: 'thread.message.delta', agent_id: 'final_output', delta: 'Report (streamed, cut)' }),
  ev({ type: 'thread.message.completed', agent_id: 'final_output', response: 'Report (streamed, cut)' }),
  ev({ type: 'WORKFLOW_COMPLETED' }),
];
const DELIVERABLE = `# The full report\n\n${'Findings with sources. '.repeat(1500)}`;
const toolResults = (i: number) => {
  const msgs = fake.requests[i]!.body.messages;
  const last = msgs[msgs.length - 1]!;
  return (Array.isArray(last.content) ? last.content : []).filter(
    (b: { type: string }) => b.type === 'tool_result',
  ) as Array<{ content: unknown; is_error?: boolean }>;
};

describe('cloud delegation through the loop', () => {
  it('asks approval (high risk), streams progress, approves the plan, and makes the full deliverable the answer without another model call', async () => {
    fake.enqueue(
      tools(
        [
          toolCall(
            'cloud_delegate',
            { task: 'Survey heat pump prices in Europe', workflow_type: 'research' },
            'toolu_cloud1',
          ),
        ],
        'Delegating this research.',
      ),
    );
    gw.enqueue({ workflowId: 'wf-r', events: RESEARCH, result: DELIVERABLE, dropAfter: [3], retryMs: 5 });
    const { events, outcome, session, rt } = await run('research heat pump prices');

    expect(rt.registry.names()).toContain('cloud_delegate');
    expect(outcome.stopReason).toBe('final');
    expect(outcome.text).toBe(DELIVERABLE);
    // No summarising turn: the model was asked once.
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body.tools!.map((t) => t.name)).toContain('cloud_delegate');

    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ tool: 'cloud_delegate', risk: 'high', origin: 'attended' });
    expect(asked[0]!.summary).toContain('research task for 127.0.0.1');

    // Progress between the call's start and end, for that call; the stream was resumed after its drop.
    const types = events.map((e) => e.type);
    const start = types.indexOf('tool_call_start');
    const end = types.indexOf('tool_call_end');
    const progress = events.filter(
      (e): e is Extract<ReinEvent, { type: 'tool_progress' }> => e.type === 'tool_progress',
    );
    expect(progress.length).toBeGreaterThan(5);
    for (const p of progress) {
      expect(events.indexOf(p)).toBeGreaterThan(start);
      expect(events.indexOf(p)).toBeLessThan(end);
      expect(p).toMatchObject({ call_id: 'toolu_cloud1', tool: 'cloud_delegate' });
    }
    const messages = progress.map((p) => p.message);
    expect(messages).toContain('research plan ready; approving it');
    expect(messages).toContain('[researcher] started: searching');
    expect(messages.some((m) => m.startsWith('event stream dropped'))).toBe(true);
    expect(gw.requestsTo('/api/v1/tasks/wf-r/review', 'POST')).toHaveLength(1);
    expect(gw.requestsTo(/^\/api\/v1\/tasks\/task-\d+$/, 'GET')).toHaveLength(1);

    // The answer streams like a model's, and the session keeps it as the assistant's reply.
    expect(
      events
        .filter((e) => e.type === 'text_delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toContain(DELIVERABLE);
    const last = session.messages[session.messages.length - 1]!;
    expect(last).toEqual({ role: 'assistant', content: [{ type: 'text', text: DELIVERABLE }] });
    expect(events[events.length - 1]).toMatchObject({ type: 'session_end', stop_reason: 'final', text: DELIVERABLE });
  });

  it('with final_answer: false the result goes back to the model, which continues', async () => {
    fake.enqueue(tools([toolCall('cloud_delegate', { task: 't', final_answer: false })]), text('I saved a summary.'));
    gw.enqueue({ events: RESEARCH, result: DELIVERABLE });
    const { outcome } = await run('go');
    expect(outcome.text).toBe('I saved a summary.');
    expect(fake.requests).toHaveLength(2);
    // Over the 30,000-character default, within the tool's own 60,000 budget: the model reads all of it.
    expect(toolResults(1)[0]!.content).toBe(DELIVERABLE);
  });

  it('runs at most one delegation per model response; the second is refused with a reason and nothing is final', async () => {
    fake.enqueue(
      tools([toolCall('cloud_delegate', { task: 'first' }), toolCall('cloud_delegate', { task: 'second' })]),
      text('Here is what the first found.'),
    );
    gw.enqueue({ events: RESEARCH, result: DELIVERABLE });
    const { outcome } = await run('go');
    expect(gw.requestsTo('/api/v1/tasks/stream', 'POST')).toHaveLength(1);
    expect(asked).toHaveLength(1);
    const [first, second] = toolResults(1);
    expect(first!.is_error).toBeUndefined();
    expect(second).toMatchObject({ is_error: true });
    expect(second!.content).toMatch(
      /^\[business error\] cloud_delegate may run only once per response, so this call did not run/,
    );
    // Two calls in the response: the deliverable is not taken as the answer; the model answered.
    expect(outcome.text).toBe('Here is what the first found.');
  });

  it('one delegation per run: a later response’s second call is refused without asking, and nothing more is sent', async () => {
    fake.enqueue(
      tools([toolCall('cloud_delegate', { task: 'first', final_answer: false })]),
      tools([toolCall('cloud_delegate', { task: 'second' })]),
      text('Done with the first result.'),
    );
    gw.enqueue({ events: RESEARCH, result: DELIVERABLE });
    const { outcome, events } = await run('go');
    expect(outcome.text).toBe('Done with the first result.');
    expect(gw.requestsTo('/api/v1/tasks/stream', 'POST')).toHaveLength(1);
    expect(asked).toHaveLength(1);
    expect(events.filter((e) => e.type === 'approval_request')).toHaveLength(1);
    expect(String(toolResults(2)[0]!.content)).toMatch(
      /^\[business error\] cloud_delegate already ran once in this run \(cloud\.max_per_run: 1\)/,
    );
  });

  it('the gateway’s cost is part of the run’s usage and counts against budget.max_usd_per_run', async () => {
    const costly = [
      ev({
        type: 'thread.message.completed',
        agent_id: 'final_output',
        response: 'R',
        metadata: { input_tokens: 5000, output_tokens: 900, cost_usd: 1.5 },
      }),
      ev({ type: 'WORKFLOW_COMPLETED' }),
    ];
    // A run whose own model turns cost next to nothing, with a cap the cloud's $1.50 passes.
    fake.enqueue(tools([toolCall('cloud_delegate', { task: 'expensive', final_answer: false })]), text('never asked'));
    gw.enqueue({ events: costly, result: DELIVERABLE });
    const { outcome, session } = await run('go', { config: { budget: { max_usd_per_run: 1 } } });
    expect(outcome.stopReason).toBe('budget');
    expect(outcome.usage.cost_usd).toBeGreaterThanOrEqual(1.5);
    expect(outcome.usage.cost_usd).toBeLessThan(1.6);
    // The cloud's tokens are its own: the run's token counts are the local model's.
    expect(outcome.usage.input_tokens).toBeLessThan(5000);
    expect(fake.requests).toHaveLength(1);
    expect(session.usage!.cost_usd).toBe(outcome.usage.cost_usd);
  });

  it('in an unattended run it is denied at once: nobody is asked and nothing is sent', async () => {
    fake.enqueue(tools([toolCall('cloud_delegate', { task: 't' })]), text('I could not delegate.'));
    const { outcome, events } = await run('go', { origin: 'unattended' });
    expect(outcome.text).toBe('I could not delegate.');
    expect(asked).toHaveLength(0);
    expect(events.some((e) => e.type === 'approval_request')).toBe(false);
    expect(gw.requests).toHaveLength(0);
    expect(String(toolResults(1)[0]!.content)).toMatch(/^\[permission error\] denied/);
  });

  it('after repeated failures tells the model to work locally, then refuses without trying', async () => {
    const down = { events: [], submitError: { status: 503, body: 'down for maintenance' } };
    gw.enqueue(down, down, down);
    for (const task of ['a', 'b', 'c', 'd']) fake.enqueue(tools([toolCall('cloud_delegate', { task })]));
    fake.enqueue(text('I did it locally instead.'));
    const { outcome } = await run('go');
    expect(outcome.text).toBe('I did it locally instead.');
    expect(gw.requestsTo('/api/v1/tasks/stream')).toHaveLength(3);
    expect(String(toolResults(3)[0]!.content)).toContain(
      'do not call cloud_delegate again in this run; do the work locally',
    );
    expect(String(toolResults(4)[0]!.content)).toMatch(
      /^\[business error\] cloud_delegate is not available any more in this run/,
    );
  });

  it('cancelling the run cancels the cloud workflow', async () => {
    fake.enqueue(tools([toolCall('cloud_delegate', { task: 'long job' })]));
    gw.enqueue({
      workflowId: 'wf-long',
      events: [ev({ type: 'AGENT_STARTED', agent_id: 'a', message: 'working' })],
      hang: true,
    });
    const ac = new AbortController();
    const { outcome } = await run('go', {
      signal: ac.signal,
      onEvent: (e) => {
        if (e.type === 'tool_progress' && e.message.startsWith('[a] started')) ac.abort();
      },
    });
    expect(outcome.stopReason).toBe('cancelled');
    expect(gw.requestsTo('/api/v1/tasks/wf-long/cancel', 'POST')).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
  });

  it('is absent unless cloud.enabled, and a missing base URL is a warning of the run', async () => {
    fake.enqueue(text('hi'), text('hi'));
    const off = await run('go', { config: { cloud: { enabled: false } } });
    expect(off.rt.registry.names()).not.toContain('cloud_delegate');
    const broken = await run('go', { config: { cloud: { enabled: true } } });
    expect(broken.rt.registry.names()).not.toContain('cloud_delegate');
    expect(broken.events.some((e) => e.type === 'notice' && /cloud\.base_url is not set/.test(e.message))).toBe(true);
  });
});
