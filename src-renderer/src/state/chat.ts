/**
 * One conversation as the chat view shows it, built from the event stream: the user's messages,
 * streamed answer text, tool cards, approval cards and notices, plus whether a run is in flight and
 * what the session has cost. A pure reducer, so the whole event → screen mapping is unit-tested
 * without a browser.
 */
import type {
  ApiEvent,
  ApprovalDecisionKind,
  ApprovalForm,
  RiskLevel,
  SessionRecord,
  StopReason,
  UsageTotals,
} from '../../../src-main/core/api/index.js';
import { addUsage, zeroUsage } from '../util/usage.js';
import { sessionItems } from './transcript.js';

export type ChatItem =
  | { kind: 'user'; id: string; text: string; injected?: boolean }
  | { kind: 'assistant'; id: string; text: string; streaming: boolean }
  | {
      kind: 'tool';
      id: string;
      tool: string;
      input: unknown;
      summary: string;
      /** ISO time the call started (for the live timer). */
      startedAt?: string;
      status: 'running' | 'ok' | 'error';
      /** The latest progress report of a running call (tool_progress), e.g. a cloud agent's step. */
      progress?: string;
      preview?: string;
      duration_ms?: number;
      saved_to?: string;
    }
  | {
      kind: 'approval';
      id: string;
      tool: string;
      summary: string;
      reason: string;
      risk: RiskLevel;
      risk_explanation: string;
      /** The input of the call it approves (secrets masked), from the request itself. */
      input: unknown;
      /** Fields to fill in (an MCP server asking for input during a call). */
      form?: ApprovalForm;
      /** What a wider answer covers; null: only this call may be allowed. */
      grant?: { covers: string } | null;
      decision?: ApprovalDecisionKind;
      by?: string;
    }
  | { kind: 'notice'; id: string; level: 'info' | 'warning'; text: string }
  | { kind: 'error'; id: string; code: string; message: string };

export interface ChatState {
  agent: string;
  route: string;
  /** The conversation shown; undefined until the first run of a new chat starts. */
  session_id?: string;
  items: ChatItem[];
  /** A run is in flight on this route (started here or by another client on the same lane). */
  running: boolean;
  /** Waiting for the daemon to start a run (sent, no session_start yet). */
  sending: boolean;
  model?: string;
  /** Usage of the current (or last) run. */
  runUsage?: UsageTotals;
  /** Usage of the whole session: earlier runs plus the current one. */
  sessionUsage: UsageTotals;
  /** Earlier runs only. */
  baseUsage: UsageTotals;
  lastStop?: StopReason;
  /** Highest seq seen per session, so an event replayed after a reconnect is not applied twice. */
  lastSeq: Record<string, number>;
  nextId: number;
}

export type ChatAction =
  | { type: 'event'; event: ApiEvent }
  /** The user sent `text`; `injected` when it went into the run already in flight. */
  | { type: 'sent'; text: string; injected: boolean; session_id?: string }
  | { type: 'sending'; text: string }
  | { type: 'send_failed'; code: string; message: string }
  /** Start a fresh conversation on the same agent. */
  | { type: 'reset' }
  /** Continue a saved session: show its history and send the next message into it. */
  | { type: 'load_session'; session: SessionRecord }
  /** The conversation a reload comes back to: like load_session, but only into a chat still empty. */
  | { type: 'restore_session'; session: SessionRecord }
  /** A line from the page itself (command help, a refused command). */
  | { type: 'note'; level: 'info' | 'warning'; text: string };

export function emptyChat(agent: string, route: string): ChatState {
  return {
    agent,
    route,
    items: [],
    running: false,
    sending: false,
    sessionUsage: zeroUsage(),
    baseUsage: zeroUsage(),
    lastSeq: {},
    nextId: 1,
  };
}

/** Does this event belong to the conversation `chat` shows? */
export function isChatEvent(chat: ChatState, event: ApiEvent): boolean {
  if (event.route !== undefined) return event.route === chat.route;
  // Without a route (an embedder that does not stamp one), the session decides.
  return 'session_id' in event && event.session_id !== undefined && event.session_id === chat.session_id;
}

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'reset':
      return emptyChat(state.agent, state.route);
    case 'load_session': {
      const s = action.session;
      const usage = s.usage ?? zeroUsage();
      return {
        ...emptyChat(state.agent, state.route),
        session_id: s.id,
        items: sessionItems(s),
        baseUsage: usage,
        sessionUsage: usage,
      };
    }
    case 'restore_session':
      // It arrives after the page showed: a message typed (or a conversation picked) meanwhile wins.
      if (state.session_id !== undefined || state.items.length > 0 || state.running || state.sending) return state;
      return chatReducer(state, { type: 'load_session', session: action.session });
    case 'sending': {
      // The user's text shows at once; `sent` later says whether it started a run or was injected.
      const [next, id] = withId(state, 'u');
      return {
        ...next,
        sending: !state.running,
        items: [...finishStreaming(state.items), { kind: 'user', id, text: action.text }],
      };
    }
    case 'sent': {
      const items = [...state.items];
      const last = findLastIndex(items, (i) => i.kind === 'user');
      if (last >= 0 && action.injected)
        items[last] = { ...(items[last] as Extract<ChatItem, { kind: 'user' }>), injected: true };
      return {
        ...state,
        items,
        sending: action.injected ? false : state.sending,
        session_id: state.session_id ?? action.session_id,
      };
    }
    case 'send_failed': {
      const [next, id] = withId(state, 'e');
      return {
        ...next,
        sending: false,
        items: [...state.items, { kind: 'error', id, code: action.code, message: action.message }],
      };
    }
    case 'note':
      return notice(state, action.level, action.text);
    case 'event':
      return applyEvent(state, action.event);
  }
}

function applyEvent(state: ChatState, event: ApiEvent): ChatState {
  // A run that could not start (no key, a config that does not load) has no session: its error and
  // session_end carry session_id "" and are never replays of anything.
  if ('seq' in event && typeof event.seq === 'number' && 'session_id' in event && event.session_id !== '') {
    const seen = state.lastSeq[event.session_id];
    // seq restarts at 0 with every run of a session, and every run starts with session_start.
    if (event.type !== 'session_start' && seen !== undefined && event.seq <= seen) return state;
    state = { ...state, lastSeq: { ...state.lastSeq, [event.session_id]: event.seq } };
  }
  switch (event.type) {
    case 'session_start': {
      const newSession = state.session_id !== undefined && state.session_id !== event.session_id && !event.resumed;
      const base = newSession ? zeroUsage() : state.baseUsage;
      return {
        ...state,
        session_id: event.session_id,
        running: true,
        sending: false,
        model: event.model,
        runUsage: zeroUsage(),
        baseUsage: base,
        sessionUsage: base,
        lastStop: undefined,
      };
    }
    case 'text_delta': {
      const items = [...state.items];
      const last = items[items.length - 1];
      if (last?.kind === 'assistant' && last.streaming)
        items[items.length - 1] = { ...last, text: last.text + event.text };
      else {
        const [next, id] = withId(state, 'a');
        state = next;
        items.push({ kind: 'assistant', id, text: event.text, streaming: true });
      }
      return { ...state, items };
    }
    case 'tool_call_start':
      return {
        ...state,
        items: [
          ...finishStreaming(state.items),
          {
            kind: 'tool',
            id: event.call_id,
            tool: event.tool,
            input: event.input,
            summary: event.summary,
            startedAt: event.at,
            status: 'running',
          },
        ],
      };
    case 'tool_progress':
      return {
        ...state,
        items: state.items.map((i) =>
          i.kind === 'tool' && i.id === event.call_id && i.status === 'running' ? { ...i, progress: event.message } : i,
        ),
      };
    case 'tool_call_end':
      return {
        ...state,
        items: state.items.map((i) =>
          i.kind === 'tool' && i.id === event.call_id
            ? {
                ...i,
                status: event.ok ? 'ok' : 'error',
                preview: event.preview,
                duration_ms: event.duration_ms,
                ...(event.saved_to ? { saved_to: event.saved_to } : {}),
              }
            : i,
        ),
      };
    case 'approval_request':
      if (state.items.some((i) => i.kind === 'approval' && i.id === event.request_id)) return state;
      return {
        ...state,
        items: [
          ...finishStreaming(state.items),
          {
            kind: 'approval',
            id: event.request_id,
            tool: event.tool,
            summary: event.summary,
            reason: event.reason,
            risk: event.risk,
            risk_explanation: event.risk_explanation,
            input: event.input,
            ...(event.form ? { form: event.form } : {}),
            ...(event.grant !== undefined ? { grant: event.grant } : {}),
          },
        ],
      };
    case 'approval_response':
      return {
        ...state,
        items: state.items.map((i) =>
          i.kind === 'approval' && i.id === event.request_id ? { ...i, decision: event.decision, by: event.by } : i,
        ),
      };
    case 'usage':
      return { ...state, model: event.model, runUsage: event.run, sessionUsage: addUsage(state.baseUsage, event.run) };
    case 'retry':
      return notice(
        state,
        'info',
        `The model did not answer (${event.reason}); retry ${event.attempt} of ${event.max_attempts}…`,
      );
    case 'compaction':
      return notice(
        state,
        'info',
        `Older messages were summarised to make room (${event.tokens_before} → ${event.tokens_after} tokens).`,
      );
    case 'loop_nudge':
      return notice(
        state,
        'warning',
        event.action === 'force_stop' ? `Stopped a loop: ${event.message}` : `Loop warning: ${event.message}`,
      );
    case 'notice':
      return notice(state, event.level, event.message);
    case 'injected':
      return state;
    case 'error': {
      const [next, id] = withId(state, 'e');
      return {
        ...next,
        items: [...finishStreaming(state.items), { kind: 'error', id, code: event.code, message: event.message }],
      };
    }
    case 'session_end': {
      let items = finishStreaming(state.items);
      // A run that streamed nothing after its last tool call (or at all) still has a final answer.
      const lastAnswerAt = findLastIndex(items, (i) => i.kind === 'assistant');
      const lastOtherAt = findLastIndex(items, (i) => i.kind === 'user' || i.kind === 'tool');
      if (event.text.trim() && lastAnswerAt < lastOtherAt && event.stop_reason !== 'cancelled') {
        const [next, id] = withId(state, 'a');
        state = next;
        items = [...items, { kind: 'assistant', id, text: event.text, streaming: false }];
      }
      // Tools still marked running when the run ended were cut off.
      items = items.map((i) =>
        i.kind === 'tool' && i.status === 'running'
          ? { ...i, status: 'error', preview: i.preview ?? 'stopped before it finished' }
          : i,
      );
      const base = addUsage(state.baseUsage, event.usage);
      let next: ChatState = {
        ...state,
        items,
        running: false,
        sending: false,
        lastStop: event.stop_reason,
        runUsage: event.usage,
        baseUsage: base,
        sessionUsage: base,
      };
      // The run's own `error` event already said why it stopped (max_iterations, budget): not twice.
      const why = stopNotice(event.stop_reason);
      if (why && !saidSince(items, event.stop_reason)) next = notice(next, why.level, why.text);
      return next;
    }
    case 'run_queued':
      return notice(
        { ...state, sending: true },
        'info',
        `Waiting for a free slot (position ${event.position} in the queue)…`,
      );
    default:
      return state;
  }
}

function stopNotice(reason: StopReason): { level: 'info' | 'warning'; text: string } | undefined {
  switch (reason) {
    case 'cancelled':
      return { level: 'info', text: 'Stopped.' };
    case 'max_iterations':
      return { level: 'warning', text: 'Stopped: the run reached its limit of model turns (max_iterations).' };
    case 'budget':
      return { level: 'warning', text: 'Stopped: the run reached its spending cap (budget.max_usd_per_run).' };
    default:
      return undefined;
  }
}

/** An error item with this code after the user's last message (this run's). */
function saidSince(items: readonly ChatItem[], code: string): boolean {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === 'user') return false;
    if (item.kind === 'error' && item.code === code) return true;
  }
  return false;
}

function notice(state: ChatState, level: 'info' | 'warning', text: string): ChatState {
  const [next, id] = withId(state, 'n');
  return { ...next, items: [...finishStreaming(state.items), { kind: 'notice', id, level, text }] };
}

function finishStreaming(items: ChatItem[]): ChatItem[] {
  const last = items[items.length - 1];
  if (last?.kind !== 'assistant' || !last.streaming) return items;
  return [...items.slice(0, -1), { ...last, streaming: false }];
}

function withId(state: ChatState, prefix: string): [ChatState, string] {
  return [{ ...state, nextId: state.nextId + 1 }, `${prefix}${state.nextId}`];
}

function findLastIndex<T>(list: readonly T[], pred: (x: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (pred(list[i]!)) return i;
  return -1;
}

/** The text of the user's last message, for ↑ (edit last). */
export function lastUserText(state: ChatState): string | undefined {
  const i = findLastIndex(state.items, (x) => x.kind === 'user');
  return i >= 0 ? (state.items[i] as Extract<ChatItem, { kind: 'user' }>).text : undefined;
}
