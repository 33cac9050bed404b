/**
 * The daemon's wire contract: request bodies, answers and WebSocket frames, as zod schemas. Pure zod
 * (no Node built-ins) so a browser client can bundle it. HTTP routes and WebSocket frames parse the
 * same schemas, so a message is a message whichever way it arrives.
 */
import { z } from 'zod';
import { FormValues } from './approvalForm.js';
import { ApprovalDecisionKind, ApprovalRequest, BusEvent, StopReason, UsageTotals } from './events.js';
import { AgentName, ApprovalId, SessionId, SourceName } from './patterns.js';

export { AGENT_NAME_PATTERN, APPROVAL_ID_PATTERN, SESSION_ID_PATTERN, SOURCE_PATTERN } from './patterns.js';

/** Channel, thread and sender ids from chat systems: printable, one line, bounded. */
const Label = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[^\r\n\t\0]+$/, 'must be one line of printable text');

export const MessageRequest = z
  .strictObject({
    text: z
      .string()
      .max(500_000)
      .refine((t) => t.trim() !== '', 'must not be blank'),
    agent: AgentName.optional(),
    session_id: SessionId.optional(),
    new_session: z.boolean().optional(),
    source: SourceName.optional(),
    channel: Label.optional(),
    thread_id: Label.optional(),
    sender: Label.optional(),
  })
  .refine((m) => !(m.session_id && m.new_session), {
    path: ['new_session'],
    message: 'cannot be true together with session_id',
  })
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
  request_id: ApprovalId,
  decision: ApprovalDecisionKind,
  /** The filled-in fields, for a request with a `form` (allow = submit them; deny = decline). */
  values: FormValues.optional(),
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
 * A bus event as clients receive it: the event plus the route of the run it belongs to. (An
 * `approval_request` carries its route and agent itself.)
 */
export type RoutedEvent = BusEvent & { route?: string };

/** An entry of `GET /approvals`: the approval request itself, as its event carried it. */
export const PendingApproval = ApprovalRequest;
export type PendingApproval = ApprovalRequest;

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

/**
 * Daemon → client WebSocket frames. Every client frame gets exactly one `reply` (its `ref` echoed). A
 * `message` frame whose run started is answered `{accepted: true}`; how that run ends comes later as a
 * `result` frame (`ok: false` with the error when it could not start), never as a second reply — and the
 * route hears it as events too (`error` + `session_end`).
 */
export type WsServerFrame =
  | { frame: 'event'; id?: string; event: RoutedEvent }
  | { frame: 'result'; ref?: string; ok: true; result: unknown }
  | { frame: 'result'; ref?: string; ok: false; status: number; error: string; code: string }
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
