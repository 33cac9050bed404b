/**
 * `cloud_delegate`: hands a task too big for this machine (multi-source research, many parallel
 * subtasks) to a Shannon-compatible gateway and waits for its result (docs/cloud.md).
 *
 * One call: submit the task → read the workflow's event stream (resumed after a drop), reporting its
 * progress through `ctx.progress` (tool_progress events) and approving a research plan when the cloud
 * asks → fetch the full result (the stream may cut it) → return it. A complete result fetched in full is
 * marked `final` (unless the model asked for `final_answer: false`): the loop makes it the run's answer,
 * verbatim, with no summarising model turn.
 *
 * It always needs a person's approval (it is not read-only, and is high-risk: the task and its context
 * leave the machine and the cloud's work is billed), runs at most once per model response and (by
 * default) once per run: `cloud.max_per_run` delegations that did not end in an error, refused before
 * anyone is asked. It stops being tried after MAX_CONSECUTIVE_FAILURES failures or timeouts in a row in
 * one run: then it answers at once, telling the model to work locally. Cancelling the run cancels the
 * workflow. What the gateway reports the work cost (`cost_usd` in its usage) is added to the run's cost,
 * so it shows in the run's usage and counts against `budget.max_usd_per_run`.
 */
import { z } from 'zod';
import type { Disposable } from '../base/lifecycle.js';
import { errorMessage } from '../errors.js';
import { sessionSlots, slotKey } from '../tools/sessionSlots.js';
import { errorResult, type Tool, type ToolContext, type ToolResult } from '../tools/tool.js';
import { GatewayClient, GatewayError, type Fetch } from './gateway.js';
import type { SseEvent } from './sse.js';
import {
  cloudBaseUrl,
  keyOptional,
  keySources,
  resolveCloudKey,
  type CloudConfig,
  type CloudKeyStore,
  type ResolvedKey,
} from './settings.js';
import { RUN_COSTS, type RunCosts } from '../tools/runCosts.js';
import { groupDigits } from '../util/groupDigits.js';

export const CLOUD_DELEGATE_TOOL = 'cloud_delegate';
/** `context` is cut here before it is sent. */
export const CONTEXT_MAX_CHARS = 8000;
/** Failures or timeouts in a row (in one run) after which the tool is not tried again. */
export const MAX_CONSECUTIVE_FAILURES = 3;
/** The cloud's deliverable is long by design: it gets twice the usual budget before it is spilled. */
export const CLOUD_RESULT_BUDGET = 60_000;
export const FULL_RESULT_TIMEOUT_MS = 10_000;
export const CANCEL_TIMEOUT_MS = 5_000;
/** Streamed answer text is passed on at most this often (one tool_progress per second, not one per token). */
export const DELTA_FLUSH_MS = 1000;

const AGENT_NOTE_MAX = 100;
const PROCESSING_NOTE_MAX = 150;
/** The agents whose streamed text is the answer (others' text is their own working). */
const ANSWER_AGENTS: ReadonlySet<string> = new Set(['', 'final_output', 'swarm-lead', 'synthesis']);

const input = z.strictObject({
  task: z
    .string()
    .min(1)
    .describe(
      'The task for the cloud agents, complete and self-contained: what to find out or produce, scope, and the form of the result.',
    ),
  context: z
    .string()
    .optional()
    .describe(
      `Background the cloud agents need (what the user already knows, constraints, sources to use or avoid). Cut at ${groupDigits(CONTEXT_MAX_CHARS)} characters.`,
    ),
  workflow_type: z
    .enum(['research', 'swarm', 'auto'])
    .optional()
    .describe(
      'research: deep multi-source research with a cited report; swarm: many independent subtasks worked in parallel; auto (default): the cloud decides.',
    ),
  final_answer: z
    .boolean()
    .optional()
    .describe(
      'true (default): the complete result is shown to the user as your answer and your turn ends. false: the result comes back to you, to continue working with it (save it to a file, combine it with local work).',
    ),
});
export type CloudDelegateInput = z.infer<typeof input>;

export interface CloudDelegateDeps {
  cloud: CloudConfig;
  env: NodeJS.ProcessEnv;
  keys?: CloudKeyStore;
  fetch?: Fetch;
  /** Tests: the first reconnect delay when the server sends no `retry` (default 500 ms). */
  reconnectDelayMs?: number;
}

/** What a running delegation reports in `tool_progress.data`; `workflow_id` once it is known. */
export type CloudProgress = { source: 'cloud'; workflow_id?: string } & (
  | { kind: 'workflow'; status: 'submitting' | 'started' | 'completed' | 'cancelling'; task_id?: string }
  | {
      kind: 'agent';
      agent_id: string;
      status: 'started' | 'completed' | 'thinking' | 'tool' | 'processing';
      message: string;
    }
  | {
      kind: 'plan';
      plan_type: 'research_plan' | 'research_plan_updated' | 'approved';
      content: string;
      needs_review: boolean;
    }
  | { kind: 'tasks'; completed: number; total: number }
  | { kind: 'delta'; agent_id: string; text: string }
  | { kind: 'reconnect'; attempt: number; reason: string; last_event_id?: string }
  | { kind: 'usage'; usage: CloudUsage }
);

/** A progress report's data before the delegation adds `source` and `workflow_id`. */
type ProgressBody = CloudProgress extends infer P
  ? P extends CloudProgress
    ? Omit<P, 'source' | 'workflow_id'>
    : never
  : never;

export interface CloudUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cost_usd: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
  models: string[];
}

interface FailureState {
  count: number;
  last: string;
}
const FAILURES = slotKey<FailureState>('cloud_delegate_failures');
/** Delegations of this run that hold one of its `cloud.max_per_run` places (a running one, or one that did not end in an error). */
const HELD = slotKey<{ count: number }>('cloud_delegate_held');

const DESCRIPTION = [
  'Delegate a large task to the cloud agents (a Shannon gateway) and wait for their result, which can take minutes.',
  'Use it for work this computer does poorly alone: research across many sources with a cited report, three or more independent',
  'subtasks that can run in parallel, large-scale fetching or scraping, long multi-step analysis, tools only the cloud has.',
  'Never for local work (files, shell commands, builds, apps or anything that must happen on this Mac): the cloud cannot see this machine.',
  'Try a single search or fetch locally first. Give a complete, self-contained task; call it once per response.',
  'By default the complete result becomes your answer to the user as it is (no need to repeat it); set final_answer to false to',
  'get it back and keep working. The user approves each delegation (unless they allowed it in advance). If it fails repeatedly, do the work locally.',
].join(' ');

export function createCloudDelegateTool(deps: CloudDelegateDeps): Tool<CloudDelegateInput> {
  const base = cloudBaseUrl(deps.cloud);
  const where = base.ok ? base.url.host : 'the cloud gateway';
  return {
    name: CLOUD_DELEGATE_TOOL,
    source: 'cloud',
    description: DESCRIPTION,
    input,
    isReadOnly: () => false,
    isConcurrencySafe: () => false,
    // The task and its context leave this machine and the work is billed: asked as high-risk.
    isDestructive: () => true,
    summarize: (i) =>
      `${i.workflow_type ?? 'auto'} task for ${where} (the task and its context are sent there): ${i.task}`,
    resultBudget: CLOUD_RESULT_BUDGET,
    maxCallsPerResponse: 1,
    admit: (_i, ctx) => refusal(deps, ctx),
    call: (i, ctx, signal) => delegate(deps, i, ctx, signal),
  };
}

const spendingOf = (ctx: ToolContext): RunCosts | undefined =>
  sessionSlots(ctx).slot(RUN_COSTS, () => undefined as RunCosts | undefined);

/** Why a call may not run at all in this run (asked before anyone is asked to approve it, and again when it runs); undefined: it may. */
function refusal(deps: CloudDelegateDeps, ctx: ToolContext): ToolResult | undefined {
  const failures = sessionSlots(ctx).slot(FAILURES, () => ({ count: 0, last: '' }));
  if (failures.count >= MAX_CONSECUTIVE_FAILURES) {
    return errorResult(
      'business',
      `cloud_delegate is not available any more in this run: it failed ${failures.count} times in a row (last: ${failures.last}). ` +
        'Do not call it again; do the work locally with your own tools, and tell the user the cloud could not be used.',
    );
  }
  const max = deps.cloud.max_per_run;
  const held = sessionSlots(ctx).slot(HELD, () => ({ count: 0 }));
  if (max > 0 && held.count >= max) {
    const times = max === 1 ? 'once' : `${max} times`;
    return errorResult(
      'business',
      `cloud_delegate already ran ${times} in this run (cloud.max_per_run: ${max}), so this call did not run and nothing was sent. ` +
        'Work with the result you have; do anything further locally with your own tools.',
    );
  }
  if (spendingOf(ctx)?.overBudget()) {
    return errorResult(
      'business',
      "the run's spending cap (budget.max_usd_per_run) is reached, so cloud_delegate did not run and nothing was sent. Answer with what you have.",
    );
  }
  return undefined;
}

async function delegate(
  deps: CloudDelegateDeps,
  i: CloudDelegateInput,
  ctx: ToolContext,
  signal: AbortSignal,
): Promise<ToolResult> {
  const refused = refusal(deps, ctx);
  if (refused) return refused;
  // The place is held while the delegation runs and kept unless it ends in an error.
  const held = sessionSlots(ctx).slot(HELD, () => ({ count: 0 }));
  held.count++;
  let result: ToolResult | undefined;
  try {
    result = await delegateOnce(deps, i, ctx, signal);
    return result;
  } finally {
    if (!result?.ok) held.count--;
  }
}

async function delegateOnce(
  deps: CloudDelegateDeps,
  i: CloudDelegateInput,
  ctx: ToolContext,
  signal: AbortSignal,
): Promise<ToolResult> {
  const failures = sessionSlots(ctx).slot(FAILURES, () => ({ count: 0, last: '' }));
  const fail = (kind: 'business' | 'transient' | 'permission', why: string): ToolResult => {
    failures.count++;
    failures.last = why;
    return errorResult(kind, `${why}. ${advice(failures.count)}`);
  };

  const base = cloudBaseUrl(deps.cloud);
  if (!base.ok) return fail('business', base.message);
  const verdict = await ctx.egress(base.url, 'POST');
  if (!verdict.allowed)
    return fail('permission', `the cloud gateway ${base.url.host} may not be reached: ${verdict.reason}`);
  let resolved: ResolvedKey;
  try {
    resolved = await resolveCloudKey(deps.cloud, deps.env, deps.keys);
  } catch (err) {
    return fail('business', `the cloud API key could not be read from the key store: ${errorMessage(err)}`);
  }
  const key = resolved.key;
  if (!key && !keyOptional(base.url)) {
    return fail(
      'business',
      `no API key for the cloud gateway ${base.url.host}: set REIN_CLOUD_API_KEY (or SHANNON_API_KEY), cloud.api_key, or save it in ${keyFileOf(deps)} (docs/cloud.md)`,
    );
  }

  const client = new GatewayClient({
    baseUrl: base.url,
    ...(key ? { apiKey: key } : {}),
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const timeoutS = deps.cloud.timeout;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`timed out after ${timeoutS} s`)), timeoutS * 1000);
  const work = AbortSignal.any([signal, deadline.signal]);
  const run = new Delegation(client, deps, i, ctx, work);
  try {
    const outcome = await run.execute();
    if (outcome.status !== 'completed') return fail('business', outcome.message);
    failures.count = 0;
    failures.last = '';
    return outcome.result;
  } catch (err) {
    if (signal.aborted) {
      // The run was cancelled (the user): the cloud should stop working (and billing) too. Not a failure of the cloud.
      const cancelled = await run.cancelWorkflow();
      return errorResult('transient', `cancelled: the run was cancelled${cancelled}`);
    }
    if (deadline.signal.aborted) {
      const cancelled = await run.cancelWorkflow();
      const partial = run.partial();
      failures.count++;
      failures.last = `timed out after ${timeoutS} s`;
      if (partial) {
        return {
          ok: true,
          content: `[timed out after ${timeoutS} s (cloud.timeout)${cancelled}; this is the partial result. ${advice(failures.count)}]\n\n${partial}`,
        };
      }
      return errorResult(
        'transient',
        `the cloud workflow timed out after ${timeoutS} s (cloud.timeout) without a result${cancelled}. ${advice(failures.count)}`,
      );
    }
    const transient = err instanceof GatewayError ? err.transient : true;
    const cancelled = run.workflowId ? await run.cancelWorkflow() : '';
    if (err instanceof GatewayError && (err.status === 401 || err.status === 403)) {
      return fail('business', `cloud delegation failed: ${keyRefused(err, resolved, deps)}${cancelled}`);
    }
    return fail(transient ? 'transient' : 'business', `cloud delegation failed: ${errorMessage(err)}${cancelled}`);
  } finally {
    clearTimeout(timer);
    run.reportUsage();
    // Billed whether or not the delegation succeeded: what the gateway reported counts in the run's cost.
    if (run.costUsd > 0) spendingOf(ctx)?.addCost(run.costUsd);
    run.dispose();
  }
}

const keyFileOf = (deps: CloudDelegateDeps): string => deps.keys?.where ?? '<REIN_HOME>/secrets/cloud-api-key';

/** A gateway's 401/403: which key was sent, from where, and where Rein looks for one (never the key itself). */
function keyRefused(err: GatewayError, resolved: ResolvedKey, deps: CloudDelegateDeps): string {
  const sent =
    resolved.from === 'none'
      ? 'no API key was sent (none is set)'
      : `the API key sent came from ${resolved.from === 'config' ? 'cloud.api_key in config.yaml' : resolved.from === 'key store' ? `the key store (${keyFileOf(deps)})` : `the environment variable ${resolved.from}`}`;
  return `the cloud gateway refused the API key (HTTP ${err.status}): ${sent}. Rein reads the key from ${keySources(keyFileOf(deps))}, the first one set wins (docs/cloud.md). Gateway said: ${err.body ? err.body.slice(0, 300) : '(nothing)'}`;
}

/** What the model is told after a failure: try once more, or (at the limit) work locally. */
function advice(count: number): string {
  if (count >= MAX_CONSECUTIVE_FAILURES) {
    return `That is ${count} failures in a row: do not call cloud_delegate again in this run; do the work locally with your own tools.`;
  }
  return `(${count} of ${MAX_CONSECUTIVE_FAILURES} failures allowed in a row.) Try once more only if it looks temporary; otherwise do the work locally with your own tools.`;
}

type Outcome = { status: 'completed'; result: ToolResult } | { status: 'failed' | 'cancelled'; message: string };

const TERMINAL: ReadonlySet<string> = new Set([
  'done',
  'WORKFLOW_COMPLETED',
  'WORKFLOW_FAILED',
  'ERROR_OCCURRED',
  'error',
  'workflow.cancelled',
  'WORKFLOW_CANCELLED',
]);
const IGNORED: ReadonlySet<string> = new Set([
  'WORKFLOW_STARTED',
  'TOOL_OBSERVATION',
  'TOOL_COMPLETED',
  'DELEGATION',
  'PROGRESS',
  'STATUS_UPDATE',
  'WAITING',
  'APPROVAL_DECISION',
]);

interface Parsed {
  type: string;
  data: Record<string, unknown>;
  /** The data when it was not a JSON object. */
  text: string;
}

function parseEvent(ev: SseEvent): Parsed {
  let data: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(ev.data);
    if (v && typeof v === 'object' && !Array.isArray(v)) data = v as Record<string, unknown>;
  } catch {
    // plain text data ("[DONE]")
  }
  const named = ev.event !== 'message' ? ev.event : undefined;
  const type =
    named ?? (typeof data.type === 'string' ? data.type : typeof data.event === 'string' ? data.event : 'message');
  return { type, data, text: ev.data };
}

const s = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const cut = (t: string, max: number): string => (t.length > max ? `${t.slice(0, max - 1)}…` : t);

/** One delegation's state: ids, what the stream said so far, pending streamed text. */
class Delegation implements Disposable {
  workflowId: string | undefined;
  taskId: string | undefined;
  #result = '';
  #streamed = '';
  #pendingDelta = '';
  #pendingAgent = '';
  #flush: NodeJS.Timeout | undefined;
  #status: 'running' | 'completed' | 'failed' | 'cancelled' = 'running';
  #failure = '';
  readonly #usage: CloudUsage = {
    input_tokens: 0,
    output_tokens: 0,
    total_tokens: 0,
    cost_usd: 0,
    cache_read_tokens: 0,
    cache_creation_tokens: 0,
    models: [],
  };
  #usageSeen = false;
  #usageReported = false;

  constructor(
    readonly client: GatewayClient,
    readonly deps: CloudDelegateDeps,
    readonly input: CloudDelegateInput,
    readonly ctx: ToolContext,
    readonly signal: AbortSignal,
  ) {}

  #report(message: string, data: ProgressBody): void {
    if (data.kind !== 'delta') this.#flushDelta();
    this.ctx.progress?.({
      message,
      data: { source: 'cloud', ...(this.workflowId ? { workflow_id: this.workflowId } : {}), ...data },
    });
  }

  async execute(): Promise<Outcome> {
    const { input: i, ctx } = this;
    const context: Record<string, unknown> = { agent_name: ctx.agent };
    if (i.context)
      context.user_context = i.context.length > CONTEXT_MAX_CHARS ? i.context.slice(0, CONTEXT_MAX_CHARS) : i.context;
    if (i.workflow_type === 'research') context.force_research = true;
    if (i.workflow_type === 'swarm') context.force_swarm = true;

    this.#report(`submitting the task to ${this.client.origin}`, { kind: 'workflow', status: 'submitting' });
    const task = await this.client.submitTask({ query: i.task, session_id: ctx.sessionId, context }, this.signal);
    this.workflowId = task.workflowId;
    this.taskId = task.taskId;
    this.#report(`cloud workflow ${task.workflowId} started`, {
      kind: 'workflow',
      status: 'started',
      task_id: task.taskId,
    });

    const stream = this.client.events(task.streamUrl, {
      signal: this.signal,
      idleTimeoutMs: this.deps.cloud.stream_idle_timeout * 1000,
      ...(this.deps.reconnectDelayMs !== undefined ? { reconnectDelayMs: this.deps.reconnectDelayMs } : {}),
      isTerminal: (ev) => TERMINAL.has(parseEvent(ev).type),
      onReconnect: (r) =>
        this.#report(
          `event stream dropped (${r.reason}); resuming${r.lastEventId ? ` after event ${r.lastEventId}` : ''}`,
          {
            kind: 'reconnect',
            attempt: r.attempt,
            reason: r.reason,
            ...(r.lastEventId ? { last_event_id: r.lastEventId } : {}),
          },
        ),
    });
    for await (const ev of stream) {
      await this.#handle(parseEvent(ev));
      if (this.#status !== 'running') break;
    }
    this.#flushDelta();
    if (this.#status === 'running') this.#status = 'completed'; // the stream ended on a terminal event the loop did not see
    if (this.#status === 'failed')
      return {
        status: 'failed',
        message: `the cloud workflow ${this.workflowId} failed: ${this.#failure || 'no reason given'}`,
      };
    if (this.#status === 'cancelled')
      return {
        status: 'cancelled',
        message: `the cloud workflow ${this.workflowId} was cancelled on the gateway${this.#failure ? `: ${this.#failure}` : ''}`,
      };

    // The stream may cut long results (~10K characters): the task's own record has all of it.
    let full: string | undefined;
    let fullUsage: unknown;
    let fetchProblem = '';
    try {
      const t = await this.client.getTask(
        this.taskId ?? this.workflowId!,
        AbortSignal.any([this.signal, AbortSignal.timeout(FULL_RESULT_TIMEOUT_MS)]),
      );
      full = t.result ?? '';
      fullUsage = t.usage;
    } catch (err) {
      if (this.signal.aborted) throw err;
      fetchProblem = errorMessage(err);
    }
    const text = full !== undefined && full.length >= this.#result.length ? full : this.#result || this.#streamed;
    // The task's record may carry the usage when the stream's events did not.
    if (!this.#usageSeen && fullUsage !== undefined) this.#addUsage(fullUsage);
    this.reportUsage();
    this.#report(`cloud workflow ${this.workflowId} completed`, { kind: 'workflow', status: 'completed' });
    if (!text.trim())
      return {
        status: 'failed',
        message: `the cloud workflow ${this.workflowId} finished without a result${fetchProblem ? ` (and fetching it failed: ${fetchProblem})` : ''}`,
      };
    if (full === undefined) {
      return {
        status: 'completed',
        result: {
          ok: true,
          content: `${text}\n\n[note: the full result could not be fetched (${fetchProblem}); this is the result as streamed, which the gateway may have cut]`,
        },
      };
    }
    return {
      status: 'completed',
      result: { ok: true, content: text, ...(this.input.final_answer !== false ? { final: true as const } : {}) },
    };
  }

  async #handle(e: Parsed): Promise<void> {
    const d = e.data;
    const agent = s(d.agent_id);
    const message = s(d.message);
    switch (e.type) {
      case 'thread.message.delta':
      case 'LLM_PARTIAL': {
        if (!ANSWER_AGENTS.has(agent)) return;
        const delta = s(d.delta) || message;
        if (!delta) return;
        this.#streamed += delta;
        if (this.#pendingDelta && agent !== this.#pendingAgent) this.#flushDelta();
        this.#pendingAgent = agent;
        this.#pendingDelta += delta;
        this.#flush ??= setTimeout(() => this.#flushDelta(), DELTA_FLUSH_MS);
        return;
      }
      case 'thread.message.completed':
      case 'LLM_OUTPUT': {
        if (agent === 'title_generator') return;
        const response = s(d.response) || message;
        if (response) this.#result = response;
        this.#addUsage(d.metadata);
        return;
      }
      case 'RESEARCH_PLAN_READY':
        this.#report('research plan ready; approving it', {
          kind: 'plan',
          plan_type: 'research_plan',
          content: message,
          needs_review: true,
        });
        await this.client.approvePlan(this.workflowId!, this.signal);
        return;
      case 'RESEARCH_PLAN_UPDATED':
        this.#report('research plan updated', {
          kind: 'plan',
          plan_type: 'research_plan_updated',
          content: message,
          needs_review: false,
        });
        return;
      case 'RESEARCH_PLAN_APPROVED':
        this.#report('research plan approved', {
          kind: 'plan',
          plan_type: 'approved',
          content: '',
          needs_review: false,
        });
        return;
      case 'APPROVAL_REQUESTED':
        this.#report(
          `the cloud asked for approval${message ? ` (${cut(message, PROCESSING_NOTE_MAX)})` : ''}; approving it`,
          {
            kind: 'agent',
            agent_id: agent,
            status: 'thinking',
            message,
          },
        );
        await this.client.approvePlan(this.workflowId!, this.signal);
        return;
      case 'AGENT_STARTED':
      case 'AGENT_COMPLETED': {
        const status = e.type === 'AGENT_STARTED' ? 'started' : 'completed';
        this.#report(`[${agent || 'agent'}] ${status}${message ? `: ${cut(message, PROCESSING_NOTE_MAX)}` : ''}`, {
          kind: 'agent',
          agent_id: agent,
          status,
          message,
        });
        return;
      }
      case 'AGENT_THINKING':
      case 'LEAD_DECISION':
      case 'HITL_RESPONSE': {
        const note = cut(message, e.type === 'AGENT_THINKING' ? AGENT_NOTE_MAX : PROCESSING_NOTE_MAX);
        if (note)
          this.#report(`[${agent || 'agent'}] ${note}`, {
            kind: 'agent',
            agent_id: agent,
            status: 'thinking',
            message: note,
          });
        return;
      }
      case 'TOOL_INVOKED':
      case 'TOOL_STARTED': {
        const tool = s(d.tool) || s((d.payload as Record<string, unknown> | undefined)?.tool);
        const note = cut(message || tool, PROCESSING_NOTE_MAX);
        this.#report(`[${agent || 'agent'}] tool: ${note}`, {
          kind: 'agent',
          agent_id: agent,
          status: 'tool',
          message: note,
        });
        return;
      }
      case 'DATA_PROCESSING': {
        const note = cut(message, PROCESSING_NOTE_MAX);
        this.#report(`[synthesis] ${note || 'processing'}`, {
          kind: 'agent',
          agent_id: 'synthesis',
          status: 'processing',
          message: note,
        });
        return;
      }
      case 'TASKLIST_UPDATED': {
        const payload = d.payload && typeof d.payload === 'object' ? (d.payload as Record<string, unknown>) : {};
        const tasks = Array.isArray(payload.tasks) ? payload.tasks : [];
        const completed = tasks.filter(
          (t) => t && typeof t === 'object' && (t as Record<string, unknown>).status === 'completed',
        ).length;
        this.#report(`tasks: ${completed} of ${tasks.length} done`, { kind: 'tasks', completed, total: tasks.length });
        return;
      }
      case 'WORKFLOW_COMPLETED':
        if (!this.#result && message) this.#result = message;
        this.#status = 'completed';
        return;
      case 'done':
        this.#status = 'completed';
        return;
      case 'WORKFLOW_FAILED':
      case 'ERROR_OCCURRED':
      case 'error':
        this.#status = 'failed';
        this.#failure = message || s(d.error) || (e.text.startsWith('{') ? '' : e.text);
        return;
      case 'workflow.cancelled':
      case 'WORKFLOW_CANCELLED':
        this.#status = 'cancelled';
        this.#failure = message;
        return;
      default:
        if (IGNORED.has(e.type)) return;
        return; // an event this client does not know: newer gateways add some
    }
  }

  /** What the gateway reported so far, once, as a `usage` progress report (also for a delegation that failed). */
  reportUsage(): void {
    if (!this.#usageSeen || this.#usageReported) return;
    this.#usageReported = true;
    const u = this.#usage;
    this.#report(
      `cloud usage: ${u.total_tokens || u.input_tokens + u.output_tokens} tokens, $${u.cost_usd.toFixed(4)}`,
      { kind: 'usage', usage: { ...u, models: [...u.models] } },
    );
  }

  /** The cost the gateway reported (US dollars). */
  get costUsd(): number {
    return this.#usage.cost_usd;
  }

  #addUsage(meta: unknown): void {
    if (!meta || typeof meta !== 'object') return;
    const m = meta as Record<string, unknown>;
    const u = this.#usage;
    const input = n(m.input_tokens);
    const output = n(m.output_tokens);
    const total = n(m.tokens_used) || n(m.total_tokens);
    // A negative cost is not taken: it would lower the run's spending.
    const cost = Math.max(0, n(m.cost_usd));
    if (!input && !output && !total && !cost) return;
    this.#usageSeen = true;
    u.input_tokens += input;
    u.output_tokens += output;
    u.total_tokens += total || input + output;
    u.cost_usd += cost;
    u.cache_read_tokens += n(m.cache_read_tokens);
    u.cache_creation_tokens += n(m.cache_creation_tokens);
    const model = s(m.model_used);
    if (model && !u.models.includes(model)) u.models.push(model);
  }

  #flushDelta(): void {
    clearTimeout(this.#flush);
    this.#flush = undefined;
    if (!this.#pendingDelta) return;
    const text = this.#pendingDelta;
    this.#pendingDelta = '';
    const tail = text.replace(/\s+/g, ' ').trim();
    this.ctx.progress?.({
      message: `writing: ${tail.length > 80 ? `…${tail.slice(-79)}` : tail}`,
      data: {
        source: 'cloud',
        ...(this.workflowId ? { workflow_id: this.workflowId } : {}),
        kind: 'delta',
        agent_id: this.#pendingAgent,
        text,
      },
    });
  }

  /** What came so far, for a delegation that ran out of time. */
  partial(): string {
    return this.#result || this.#streamed;
  }

  /** Asks the gateway to stop the workflow (its own short timeout; the run's signal may be aborted). ' (…)' for the message. */
  async cancelWorkflow(): Promise<string> {
    const id = this.workflowId;
    if (!id) return '';
    this.#report(`cancelling cloud workflow ${id}`, { kind: 'workflow', status: 'cancelling' });
    try {
      await this.client.cancelTask(id, AbortSignal.timeout(CANCEL_TIMEOUT_MS));
      return ` (cloud workflow ${id} cancelled)`;
    } catch (err) {
      return ` (cancelling cloud workflow ${id} failed: ${errorMessage(err)}; it may still be running)`;
    }
  }

  dispose(): void {
    clearTimeout(this.#flush);
    this.#flush = undefined;
  }
}
