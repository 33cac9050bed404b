/**
 * The daemon's wire contract: request bodies, answers and WebSocket frames, as zod schemas. Pure zod
 * (no Node built-ins) so a browser client can bundle it. HTTP routes and WebSocket frames parse the
 * same schemas, so a message is a message whichever way it arrives.
 */
import { z } from 'zod';
import { ApprovalDecisionKind, BusEvent, StopReason, UsageTotals } from '../api/events.js';

/** Same rule as AGENT_NAME_RE in config/paths.ts (kept here so this file stays free of Node imports). */
export const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Same rule as sessions/id.ts. */
export const SESSION_ID_PATTERN = /^\d{4}-\d{2}-\d{2}-[0-9a-f]{12}$/;
export const APPROVAL_ID_PATTERN = /^apr_[0-9a-f]{16}$/;
export const SOURCE_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

const AgentName = z.string().regex(AGENT_NAME_PATTERN, 'expected an agent name (lowercase letters, digits, - and _)');
const SessionId = z.string().regex(SESSION_ID_PATTERN, 'expected a session id (YYYY-MM-DD-<12 hex>)');
/** Channel, thread and sender ids from chat systems: printable, one line, bounded. */
const Label = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^\r\n\t\0]+$/, 'must be one line of printable text');

export const MessageRequest = z
  .strictObject({
    text: z.string().max(500_000).refine((t) => t.trim() !== '', 'must not be blank'),
    agent: AgentName.optional(),
    session_id: SessionId.optional(),
    new_session: z.boolean().optional(),
    source: z.string().regex(SOURCE_PATTERN, 'expected a short lowercase word (slack, telegram, web…)').optional(),
    channel: Label.optional(),
    thread_id: Label.optional(),
    sender: Label.optional(),
  })
  .refine((m) => !(m.session_id && m.new_session), { path: ['new_session'], message: 'cannot be true together with session_id' })
  .refine((m) => !(m.thread_id && !m.channel), { path: ['thread_id'], message: 'needs a channel' });
export type MessageRequest = z.infer<typeof MessageRequest>;

export const CancelRequest = z
  .strictObject({
    route: z.string().min(1).max(600).optional(),
    session_id: SessionId.optional(),
    agent: AgentName.optional(),
  })
  .refine((c) => c.route !== undefined || c.session_id !== undefined || c.agent !== undefined, {
    path: ['route'],
    message: 'give one of route, session_id or agent',
  });
export type CancelRequest = z.infer<typeof CancelRequest>;

export const ApprovalAnswerRequest = z.strictObject({
  request_id: z.string().regex(APPROVAL_ID_PATTERN, 'expected an approval id (apr_<16 hex>)'),
  decision: ApprovalDecisionKind,
});
export type ApprovalAnswerRequest = z.infer<typeof ApprovalAnswerRequest>;

/** The answer to POST /message (JSON body, or the last `result` frame of its SSE stream). */
export const MessageResult = z.discriminatedUnion('injected', [
  z.object({
    injected: z.literal(false),
    route: z.string(),
    agent: z.string(),
    session_id: z.string(),
    text: z.string(),
    stop_reason: StopReason,
    usage: UsageTotals,
    iterations: z.number().int().nonnegative(),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
  }),
  z.object({
    /** The route already had a run in flight: the text went into that run. */
    injected: z.literal(true),
    route: z.string(),
    agent: z.string(),
    session_id: z.string().optional(),
  }),
]);
export type MessageResult = z.infer<typeof MessageResult>;

/**
 * A bus event as clients receive it: the event plus the route of the run it belongs to (and, on
 * `approval_request`, the agent asking).
 */
export type RoutedEvent = BusEvent & { route?: string; agent?: string };

export const PendingApproval = z.object({
  request_id: z.string(),
  session_id: z.string(),
  agent: z.string(),
  route: z.string(),
  source: z.string(),
  tool: z.string(),
  summary: z.string(),
  reason: z.string(),
  risk: z.string(),
  risk_explanation: z.string(),
  asked_at: z.string(),
});
export type PendingApproval = z.infer<typeof PendingApproval>;

/**
 * Client → daemon WebSocket frames: `{type: "message" | "cancel" | "approval", ref?, …}` where `…` is
 * exactly the body of the matching HTTP call. `ref` comes back on the reply so a client can match them.
 */
export const WsFrameEnvelope = z.looseObject({
  type: z.enum(['message', 'cancel', 'approval']),
  ref: z.string().max(128).optional(),
});
export const wsFrameBodies = {
  message: MessageRequest,
  cancel: CancelRequest,
  approval: ApprovalAnswerRequest,
} as const;
export type WsClientFrame =
  | { type: 'message'; ref?: string; body: MessageRequest }
  | { type: 'cancel'; ref?: string; body: CancelRequest }
  | { type: 'approval'; ref?: string; body: ApprovalAnswerRequest };

/** Daemon → client WebSocket frames. */
export type WsServerFrame =
  | { frame: 'event'; id?: number; event: RoutedEvent }
  | { frame: 'reply'; ref?: string; ok: true; result: unknown }
  | { frame: 'reply'; ref?: string; ok: false; status: number; error: string; code: string };

/** Every error answer: a message for people and a stable code for programs. */
export interface ErrorBody {
  error: string;
  code: string;
  /** The offending field, when a body failed validation. */
  field?: string;
}

export { BusEvent };
