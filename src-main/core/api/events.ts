/**
 * The one event vocabulary. The loop yields these; the CLI prints them, IPC forwards them, the daemon
 * sends them as SSE / WebSocket frames and the renderer renders them. Pure zod, no Node built-ins:
 * the renderer bundles this file too.
 */
import { z } from 'zod';

export const StopReason = z.enum(['final', 'max_iterations', 'budget', 'cancelled', 'error']);
export type StopReason = z.infer<typeof StopReason>;

export const RiskLevel = z.enum(['low', 'medium', 'high']);
export type RiskLevel = z.infer<typeof RiskLevel>;

export const ApprovalDecisionKind = z.enum(['allow', 'deny', 'always_allow']);
export type ApprovalDecisionKind = z.infer<typeof ApprovalDecisionKind>;

export const UsageTotals = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheCreationTokens: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
  requests: z.number().int().nonnegative(),
});
export type UsageTotals = z.infer<typeof UsageTotals>;

const base = {
  sessionId: z.string(),
  /** Monotonic per run, starting at 0: lets a client detect gaps and order frames. */
  seq: z.number().int().nonnegative(),
  /** ISO-8601 time the event was made. */
  at: z.string(),
};

export const ReinEvent = z.discriminatedUnion('type', [
  z.object({
    ...base,
    type: z.literal('session_start'),
    agent: z.string(),
    source: z.string(),
    model: z.string(),
    resumed: z.boolean(),
    cwd: z.string(),
  }),
  z.object({ ...base, type: z.literal('text_delta'), text: z.string() }),
  z.object({
    ...base,
    type: z.literal('tool_call_start'),
    callId: z.string(),
    tool: z.string(),
    input: z.unknown(),
    summary: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('tool_call_end'),
    callId: z.string(),
    tool: z.string(),
    ok: z.boolean(),
    /** Short head of the result as the model saw it. */
    preview: z.string(),
    durationMs: z.number().nonnegative(),
    /** Set when the full result was over budget and saved to a file. */
    savedTo: z.string().optional(),
  }),
  z.object({
    ...base,
    type: z.literal('approval_request'),
    requestId: z.string(),
    tool: z.string(),
    summary: z.string(),
    reason: z.string(),
    layer: z.string(),
    risk: RiskLevel,
    riskExplanation: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('approval_response'),
    requestId: z.string(),
    decision: ApprovalDecisionKind,
    /** Which face answered: terminal, desktop, daemon, unattended, timeout, flag, cache. */
    by: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('usage'),
    model: z.string(),
    /** This request alone. */
    request: UsageTotals,
    /** The run so far. */
    run: UsageTotals,
    /** cache reads ÷ all input tokens of the session so far (earlier runs included), 0..1. */
    cacheHitRatio: z.number().min(0).max(1),
  }),
  z.object({
    ...base,
    type: z.literal('retry'),
    attempt: z.number().int().positive(),
    maxAttempts: z.number().int().positive(),
    reason: z.string(),
    delayMs: z.number().nonnegative(),
  }),
  z.object({
    ...base,
    type: z.literal('injected'),
    /** Messages that arrived during the run and were handed to the model at this iteration. */
    texts: z.array(z.string()),
  }),
  z.object({
    ...base,
    type: z.literal('compaction'),
    droppedMessages: z.number().int().nonnegative(),
    tokensBefore: z.number().int().nonnegative(),
    tokensAfter: z.number().int().nonnegative(),
    reason: z.enum(['proactive', 'reactive']),
  }),
  z.object({
    ...base,
    type: z.literal('loop_nudge'),
    detector: z.string(),
    action: z.enum(['nudge', 'force_stop']),
    message: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('notice'),
    level: z.enum(['info', 'warning']),
    message: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('error'),
    code: z.string(),
    message: z.string(),
  }),
  z.object({
    ...base,
    type: z.literal('session_end'),
    stopReason: StopReason,
    /** The final answer (or the partial text kept when the run did not finish). */
    text: z.string(),
    usage: UsageTotals,
    iterations: z.number().int().nonnegative(),
  }),
]);
export type ReinEvent = z.infer<typeof ReinEvent>;
export type ReinEventType = ReinEvent['type'];
/** An event as the loop builds it, before the run stamps sessionId / seq / at on it. */
export type ReinEventBody = ReinEvent extends infer E
  ? E extends ReinEvent
    ? Omit<E, 'sessionId' | 'seq' | 'at'>
    : never
  : never;

/**
 * Events the daemon publishes on its bus that no single run yields: queueing, heartbeats, schedules
 * and agent edits. They carry no sessionId/seq (they belong to no run, or to one that has not started).
 */
const daemonBase = {
  /** ISO-8601 time the event was made. */
  at: z.string(),
};

export const DaemonEvent = z.discriminatedUnion('type', [
  z.object({
    ...daemonBase,
    type: z.literal('run_queued'),
    route: z.string(),
    agent: z.string(),
    /** 1 = next to start. */
    position: z.number().int().positive(),
  }),
  z.object({
    ...daemonBase,
    type: z.literal('heartbeat_alert'),
    agent: z.string(),
    text: z.string(),
    sessionId: z.string().optional(),
  }),
  z.object({
    ...daemonBase,
    type: z.literal('schedule_run'),
    scheduleId: z.string(),
    agent: z.string(),
    status: z.enum(['started', 'finished', 'failed', 'skipped']),
    sessionId: z.string().optional(),
    message: z.string().optional(),
  }),
  z.object({
    ...daemonBase,
    type: z.literal('agent_changed'),
    agent: z.string(),
    change: z.enum(['created', 'updated', 'deleted', 'activated']),
  }),
]);
export type DaemonEvent = z.infer<typeof DaemonEvent>;

/** Everything a daemon client can receive on `GET /events` or the WebSocket. */
export const BusEvent = z.union([ReinEvent, DaemonEvent]);
export type BusEvent = ReinEvent | DaemonEvent;

/** Two usage totals added up (a run onto its session, a request onto its run). */
export function sumUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheCreationTokens: a.cacheCreationTokens + b.cacheCreationTokens,
    costUsd: a.costUsd + b.costUsd,
    requests: a.requests + b.requests,
  };
}

export const emptyUsage = (): UsageTotals => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheCreationTokens: 0,
  costUsd: 0,
  requests: 0,
});
