/**
 * The queue of approvals waiting for a person, from every route (this chat, other agents, Slack,
 * schedules). Filled from GET /approvals when the page starts and kept current by the event stream;
 * an approval leaves the queue when any client (or the timeout) answers it.
 */
import type { ApiEvent, PendingApproval } from '../../../src-main/core/api/index.js';

export interface ApprovalItem {
  requestId: string;
  tool: string;
  /** The tool's arguments as the permission engine summarised them (the full command for bash). */
  summary: string;
  reason: string;
  risk: string;
  riskExplanation: string;
  agent?: string;
  route?: string;
  source?: string;
  sessionId?: string;
  askedAt: string;
  /** The call's full input, when its tool_call_start was seen. */
  input?: unknown;
}

export interface ApprovalsState {
  pending: ApprovalItem[];
  /** Last tool call started per session, to show an approval's full arguments. */
  lastCall: Record<string, { tool: string; input: unknown }>;
}

export type ApprovalsAction = { type: 'event'; event: ApiEvent } | { type: 'loaded'; approvals: PendingApproval[] } | { type: 'answered'; requestId: string };

export const emptyApprovals = (): ApprovalsState => ({ pending: [], lastCall: {} });

export function approvalsReducer(state: ApprovalsState, action: ApprovalsAction): ApprovalsState {
  switch (action.type) {
    case 'loaded': {
      // The server's list is the truth at that moment; keep the inputs we already know.
      const known = new Map(state.pending.map((p) => [p.requestId, p]));
      const pending = action.approvals.map((a): ApprovalItem => {
        const before = known.get(a.request_id);
        return {
          requestId: a.request_id,
          tool: a.tool,
          summary: a.summary,
          reason: a.reason,
          risk: a.risk,
          riskExplanation: a.risk_explanation,
          agent: a.agent,
          route: a.route,
          source: a.source,
          sessionId: a.session_id,
          askedAt: a.asked_at,
          ...(before?.input !== undefined ? { input: before.input } : {}),
        };
      });
      return { ...state, pending };
    }
    case 'answered':
      return { ...state, pending: state.pending.filter((p) => p.requestId !== action.requestId) };
    case 'event':
      return onEvent(state, action.event);
  }
}

function onEvent(state: ApprovalsState, event: ApiEvent): ApprovalsState {
  switch (event.type) {
    case 'tool_call_start':
      return { ...state, lastCall: { ...state.lastCall, [event.sessionId]: { tool: event.tool, input: event.input } } };
    case 'approval_request': {
      if (state.pending.some((p) => p.requestId === event.requestId)) return state;
      const call = state.lastCall[event.sessionId];
      const item: ApprovalItem = {
        requestId: event.requestId,
        tool: event.tool,
        summary: event.summary,
        reason: event.reason,
        risk: event.risk,
        riskExplanation: event.riskExplanation,
        sessionId: event.sessionId,
        askedAt: event.at,
        ...(event.agent !== undefined ? { agent: event.agent } : {}),
        ...(event.route !== undefined ? { route: event.route } : {}),
        ...(call && call.tool === event.tool ? { input: call.input } : {}),
      };
      return { ...state, pending: [...state.pending, item] };
    }
    case 'approval_response':
      return { ...state, pending: state.pending.filter((p) => p.requestId !== event.requestId) };
    case 'session_end': {
      // A run that ended cannot be waiting any more (cancelled mid-question, daemon shutting down).
      const { [event.sessionId]: _gone, ...lastCall } = state.lastCall;
      return { pending: state.pending.filter((p) => p.sessionId !== event.sessionId), lastCall };
    }
    default:
      return state;
  }
}
