/**
 * The one event vocabulary. The loop yields these; the CLI prints them, IPC forwards them, the daemon
 * sends them as SSE / WebSocket frames and the renderer renders them. Pure zod, no Node built-ins:
 * the renderer bundles this file too.
 *
 * Field names are snake_case, like the rest of the JSON API, config.yaml, the session files and the
 * Messages API (docs/daemon-api.md, "Field names").
 */
import { z } from 'zod';
import { ApprovalForm } from './approvalForm.js';
import { RunOrigin } from './patterns.js';

export const StopReason = z.enum(['final', 'max_iterations', 'budget', 'cancelled', 'error']);
export type StopReason = z.infer<typeof StopReason>;

export const RiskLevel = z.enum(['low', 'medium', 'high']);
export type RiskLevel = z.infer<typeof RiskLevel>;

export const ApprovalDecisionKind = z.enum(['allow', 'deny', 'always_allow', 'allow_session']);
export type ApprovalDecisionKind = z.infer<typeof ApprovalDecisionKind>;

export const UsageTotals = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_read_tokens: z.number().int().nonnegative(),
  cache_creation_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  requests: z.number().int().nonnegative(),
});
export type UsageTotals = z.infer<typeof UsageTotals>;

/**
 * One question for a person, in one shape everywhere: the `approval_request` event, the approval
 * desk and `GET /approvals`, the WebSocket, the terminal prompt, the native dialog and the page's
 * cards. It carries the call's own input (secrets masked), so every face shows exactly the call it
 * approves, never one borrowed from an earlier event.
 */
export const ApprovalRequest = z.object({
  request_id: z.string(),
  session_id: z.string(),
  agent: z.string(),
  /** The daemon lane the run belongs to (`agent:ops`, `slack:C1:T9`…); `cli` and `desktop` for runs outside it. */
  route: z.string(),
  source: z.string(),
  origin: RunOrigin,
  tool: z.string(),
  /** The parsed tool input, with credentials masked (it is shown, never run). */
  input: z.unknown(),
  /** One line for the call (`$ rm -r build` for bash). */
  summary: z.string(),
  reason: z.string(),
  /** The permission layer that asked (compound, tool, egress…). */
  layer: z.string(),
  risk: RiskLevel,
  risk_explanation: z.string(),
  /** ISO-8601 time it was asked. */
  asked_at: z.string(),
  /**
   * Present when the question is a form to fill in (an MCP server asking for input during a call,
   * `layer: elicitation`): the answer's `values` hold the fields. A face that cannot show a form leaves
   * the question to the others; when none can, it is declined.
   */
  form: ApprovalForm.optional(),
  /**
   * What "Allow in this conversation" and "Always allow" would cover, in words (`the command \`npm test\`
   * in ~/project`, `file_write on ~/notes.md`, `accessibility in Safari`); null when nothing beyond this one
   * call may be granted (a protected or persistence place): faces then offer only Allow once and Deny.
   * Absent on questions that are not tool calls (forms).
   */
  grant: z.object({ covers: z.string() }).nullable().optional(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

/** One setting a change would make more permissive (core/permissions/raises.ts). */
export const PermissionRaise = z.object({
  /** As written in config.yaml: `mode`, `auto_approve`, `permissions.allowed_commands`, `mcp_servers.github`… */
  field: z.string(),
  /** What changes, for a person: `default → bypassPermissions`, `adds "rm *"`. */
  change: z.string(),
});
export type PermissionRaise = z.infer<typeof PermissionRaise>;

/**
 * A change that raises an agent's permissions, asked for over the daemon's API (a token holder, not a
 * person known to be there), waiting for a person to confirm it: in a shell on the daemon's machine
 * (`rein changes accept ID`) or in the desktop app. One shape everywhere: the `change_request` event,
 * `GET /changes`, `rein changes list --json`, the page's card.
 */
export const PendingChange = z.object({
  change_id: z.string(),
  /**
   * create_agent, save_agent, save_settings or always_allow: the operation that will run when it is
   * confirmed. trust_folder: the daemon's working folder holds a `.rein/config.yaml` whose raising
   * settings (hooks, MCP servers, base_url, wider permissions) wait until a person trusts that folder;
   * `request` has `folder`, `file`, `sha256` and `settings` (what it sets).
   */
  kind: z.string(),
  /** The agent it is about (absent for the global settings). */
  agent: z.string().optional(),
  /** One line for the card: what it is and what it raises. */
  summary: z.string(),
  raises: z.array(PermissionRaise),
  /** The request as it was sent (credentials masked), applied unchanged when confirmed. */
  request: z.unknown(),
  /** Which face asked: `daemon` (HTTP, WebSocket). */
  requested_by: z.string(),
  requested_at: z.string(),
  /** Not confirmed by then: dropped. */
  expires_at: z.string(),
  /** The command a person runs in a shell on the daemon's machine to confirm it (REIN_HOME included when not the default). */
  accept_command: z.string().optional(),
  /** The command that rejects it. */
  reject_command: z.string().optional(),
});
export type PendingChange = z.infer<typeof PendingChange>;

const base = {
  session_id: z.string(),
  /** Monotonic per run, starting at 0: lets a client detect gaps and order frames. */
  seq: z.number().int().nonnegative(),
  /** ISO-8601 time the event was made. */
  at: z.string(),
};

const { session_id: _sessionOfRequest, ...approvalFields } = ApprovalRequest.shape;

export const ReinEvent = z.discriminatedUnion('type', [
  z.object({
    ...base,
    type: z.literal('session_start'),
    agent: z.string(),
    source: z.string(),
    origin: RunOrigin,
    model: z.string(),
    resumed: z.boolean(),
    cwd: z.string(),
  }),
  z.object({ ...base, type: z.literal('text_delta'), text: z.string() }),
  z.object({
    ...base,
    type: z.literal('tool_call_start'),
    call_id: z.string(),
    tool: z.string(),
    input: z.unknown(),
    summary: z.string(),
  }),
  /** A running call reports how it goes (a cloud delegation: agents, tools, plan, streamed text); between its start and end. */
  z.object({
    ...base,
    type: z.literal('tool_progress'),
    call_id: z.string(),
    tool: z.string(),
    /** One line for a person. */
    message: z.string(),
    /** Details the tool adds (JSON), for clients that show more. */
    data: z.unknown().optional(),
  }),
  z.object({
    ...base,
    type: z.literal('tool_call_end'),
    call_id: z.string(),
    tool: z.string(),
    ok: z.boolean(),
    /** Short head of the result as the model saw it. */
    preview: z.string(),
    duration_ms: z.number().nonnegative(),
    /** Set when the full result was over budget and saved to a file. */
    saved_to: z.string().optional(),
  }),
  /**
   * A call refused before it ran for a permission reason: the policy denied it (a hard block, a deny
   * rule, an unattended run that may not ask…), a person or nobody answered no, a PreToolUse hook said
   * no, or the same call was denied earlier in the turn. Such a call has no tool_call_start/end.
   */
  z.object({
    ...base,
    type: z.literal('tool_call_denied'),
    call_id: z.string(),
    tool: z.string(),
    summary: z.string(),
    /** The permission layer that refused (hard_block, deny, origin, protected…; hook, turn_cache). */
    layer: z.string(),
    reason: z.string(),
    /** Who answered when a question was asked (timeout, unattended, desktop…); absent when nobody was asked. */
    by: z.string().optional(),
  }),
  z.object({ ...base, type: z.literal('approval_request'), ...approvalFields }),
  z.object({
    ...base,
    type: z.literal('approval_response'),
    request_id: z.string(),
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
    cache_hit_ratio: z.number().min(0).max(1),
  }),
  z.object({
    ...base,
    type: z.literal('retry'),
    attempt: z.number().int().positive(),
    max_attempts: z.number().int().positive(),
    reason: z.string(),
    delay_ms: z.number().nonnegative(),
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
    dropped_messages: z.number().int().nonnegative(),
    tokens_before: z.number().int().nonnegative(),
    tokens_after: z.number().int().nonnegative(),
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
    stop_reason: StopReason,
    /** The final answer (or the partial text kept when the run did not finish). */
    text: z.string(),
    usage: UsageTotals,
    iterations: z.number().int().nonnegative(),
  }),
]);
export type ReinEvent = z.infer<typeof ReinEvent>;
export type ReinEventType = ReinEvent['type'];
/** An event as the loop builds it, before the run stamps session_id / seq / at on it. */
export type ReinEventBody = ReinEvent extends infer E
  ? E extends ReinEvent
    ? Omit<E, 'session_id' | 'seq' | 'at'>
    : never
  : never;

/**
 * Events the daemon publishes on its bus that no single run yields: queueing, heartbeats, schedules
 * and agent edits. They carry no session_id/seq (they belong to no run, or to one that has not started).
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
    session_id: z.string().optional(),
  }),
  z.object({
    ...daemonBase,
    type: z.literal('schedule_run'),
    schedule_id: z.string(),
    agent: z.string(),
    /** interrupted: stopped on the way (a signal, shutdown, a cancel); its session is saved. */
    status: z.enum(['started', 'finished', 'failed', 'skipped', 'interrupted']),
    session_id: z.string().optional(),
    message: z.string().optional(),
  }),
  /** An agent's MCP server changed state (connected, lost, stopped when idle, a sign-in settled): the MCP panels look again. */
  z.object({
    ...daemonBase,
    type: z.literal('mcp_status'),
    agent: z.string(),
    server: z.string(),
    state: z.string(),
  }),
  /**
   * A watched folder changed state: `unreadable` (this process may not read it: macOS privacy
   * settings, permissions), `missing`, `not_a_folder`, or `watching` again. A watch that starts fine
   * announces nothing.
   */
  z.object({
    ...daemonBase,
    type: z.literal('watch_status'),
    agent: z.string(),
    /** The folder as the agent's config.yaml names it. */
    path: z.string(),
    state: z.enum(['watching', 'unreadable', 'missing', 'not_a_folder']),
    reason: z.string().optional(),
    /** What to do about it (unreadable). */
    hint: z.string().optional(),
  }),
  z.object({
    ...daemonBase,
    type: z.literal('agent_changed'),
    agent: z.string(),
    change: z.enum(['created', 'updated', 'deleted', 'activated']),
  }),
  /** A permission-raising change asked for over the API waits for a person (a shell on the daemon's machine, the desktop app). */
  z.object({
    ...daemonBase,
    type: z.literal('change_request'),
    change: PendingChange,
  }),
  z.object({
    ...daemonBase,
    type: z.literal('change_response'),
    change_id: z.string(),
    /** applied (confirmed and made), rejected, failed (confirmed, but it could not be made), expired. */
    outcome: z.enum(['applied', 'rejected', 'failed', 'expired']),
    /** Which face answered (`shell`: `rein changes` on the daemon's machine; `desktop`), or `timeout`. */
    by: z.string(),
    error: z.string().optional(),
  }),
]);
export type DaemonEvent = z.infer<typeof DaemonEvent>;

/** Everything a daemon client can receive on `GET /events` or the WebSocket. */
export const BusEvent = z.union([ReinEvent, DaemonEvent]);
export type BusEvent = ReinEvent | DaemonEvent;

/** Two usage totals added up (a run onto its session, a request onto its run). */
export function sumUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    cache_creation_tokens: a.cache_creation_tokens + b.cache_creation_tokens,
    cost_usd: a.cost_usd + b.cost_usd,
    requests: a.requests + b.requests,
  };
}

export const emptyUsage = (): UsageTotals => ({
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_creation_tokens: 0,
  cost_usd: 0,
  requests: 0,
});
