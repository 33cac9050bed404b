/**
 * The queue of approvals waiting for a person, from every route (this chat, other agents, Slack,
 * schedules). Filled from GET /approvals when the page starts and kept current by the event stream;
 * an approval leaves the queue when any client (or the timeout) answers it. Each item shows the input
 * of the call it approves, carried by the request itself (never borrowed from another event).
 */
import type { ApiEvent, ApprovalForm, ApprovalRequest, PendingApproval } from '../../../src-main/core/api/index.js';

export interface ApprovalItem {
  request_id: string;
  tool: string;
  /** One line for the call (the full command for bash). */
  summary: string;
  reason: string;
  risk: string;
  risk_explanation: string;
  agent: string;
  route: string;
  source: string;
  origin: string;
  session_id: string;
  asked_at: string;
  /** The call's input, secrets masked. */
  input: unknown;
  /** Fields to fill in (an MCP server asking for input during a call). */
  form?: ApprovalForm;
  /** What a wider answer covers; null: only this call may be allowed. */
  grant?: { covers: string } | null;
}

export interface ApprovalsState {
  pending: ApprovalItem[];
}

export type ApprovalsAction =
  | { type: 'event'; event: ApiEvent }
  | { type: 'loaded'; approvals: PendingApproval[] }
  | { type: 'answered'; request_id: string };

export const emptyApprovals = (): ApprovalsState => ({ pending: [] });

const itemOf = (a: ApprovalRequest): ApprovalItem => ({
  request_id: a.request_id,
  tool: a.tool,
  summary: a.summary,
  reason: a.reason,
  risk: a.risk,
  risk_explanation: a.risk_explanation,
  agent: a.agent,
  route: a.route,
  source: a.source,
  origin: a.origin,
  session_id: a.session_id,
  asked_at: a.asked_at,
  input: a.input,
  ...(a.form ? { form: a.form } : {}),
  ...(a.grant !== undefined ? { grant: a.grant } : {}),
});

export function approvalsReducer(state: ApprovalsState, action: ApprovalsAction): ApprovalsState {
  switch (action.type) {
    case 'loaded':
      // The server's list is the truth at that moment.
      return { pending: action.approvals.map(itemOf) };
    case 'answered':
      return { pending: state.pending.filter((p) => p.request_id !== action.request_id) };
    case 'event':
      return onEvent(state, action.event);
  }
}

function onEvent(state: ApprovalsState, event: ApiEvent): ApprovalsState {
  switch (event.type) {
    case 'approval_request': {
      if (state.pending.some((p) => p.request_id === event.request_id)) return state;
      const { type: _type, seq: _seq, at: _at, ...request } = event;
      return { pending: [...state.pending, itemOf(request as ApprovalRequest)] };
    }
    case 'approval_response':
      return { pending: state.pending.filter((p) => p.request_id !== event.request_id) };
    case 'session_end':
      // A run that ended cannot be waiting any more (cancelled mid-question, daemon shutting down).
      return { pending: state.pending.filter((p) => p.session_id !== event.session_id) };
    default:
      return state;
  }
}
