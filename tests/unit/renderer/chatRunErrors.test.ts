// A run that could not start (no API key, a config that does not load) reaches the chat as `error` +
// `session_end` with no session (session_id ""): the error shows at once and "Starting…" ends, every time
// it happens (such events are never taken for replays). A run stopped by a cap says so once.
import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../../src-main/core/api/index.js';
import { chatReducer, emptyChat, type ChatState } from '../../../src-renderer/src/state/chat.js';

const ROUTE = 'agent:ops';
const at = '2026-01-02T10:00:00.000Z';
const usage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_creation_tokens: 0,
  cost_usd: 0,
  requests: 0,
};

const failed = (code: string): ApiEvent[] => [
  { type: 'error', session_id: '', seq: 0, at, route: ROUTE, code, message: `${code} happened` } as ApiEvent,
  {
    type: 'session_end',
    session_id: '',
    seq: 1,
    at,
    route: ROUTE,
    stop_reason: 'error',
    text: '',
    usage,
    iterations: 0,
  } as ApiEvent,
];

const apply = (s: ChatState, events: ApiEvent[]) =>
  events.reduce((st, event) => chatReducer(st, { type: 'event', event }), s);

describe('a run that could not start', () => {
  it('shows its error and ends "Starting…", each time it happens', () => {
    let s = chatReducer(emptyChat('ops', ROUTE), { type: 'sending', text: 'hello' });
    s = chatReducer(s, { type: 'sent', text: 'hello', injected: false });
    expect(s.sending).toBe(true);
    s = apply(s, failed('no_api_key'));
    expect(s.sending).toBe(false);
    expect(s.running).toBe(false);
    expect(s.items.map((i) => i.kind)).toEqual(['user', 'error']);
    expect(s.items[1]).toMatchObject({ code: 'no_api_key' });

    s = chatReducer(s, { type: 'sending', text: 'again' });
    s = apply(s, failed('config_invalid'));
    expect(s.sending).toBe(false);
    expect(s.items.map((i) => i.kind)).toEqual(['user', 'error', 'user', 'error']);
    expect(s.items[3]).toMatchObject({ code: 'config_invalid' });
    expect(s.session_id).toBeUndefined();
  });

  it('the error reply to the message frame itself shows at once too', () => {
    let s = chatReducer(emptyChat('ops', ROUTE), { type: 'sending', text: 'hello' });
    s = chatReducer(s, { type: 'send_failed', code: 'agent_not_found', message: 'agent "ops" not found' });
    expect(s.sending).toBe(false);
    expect(s.items.at(-1)).toMatchObject({ kind: 'error', code: 'agent_not_found' });
  });
});

describe('a run stopped by a cap', () => {
  it("says it once: the run's own error, without a second notice", () => {
    const sid = '2026-01-02-0123456789ab';
    let s = chatReducer(emptyChat('ops', ROUTE), { type: 'sending', text: 'go' });
    s = apply(s, [
      {
        type: 'session_start',
        session_id: sid,
        seq: 0,
        at,
        route: ROUTE,
        agent: 'ops',
        source: 'web',
        origin: 'remote',
        model: 'm',
        resumed: false,
        cwd: '/',
      } as ApiEvent,
      {
        type: 'error',
        session_id: sid,
        seq: 1,
        at,
        route: ROUTE,
        code: 'max_iterations',
        message: 'Stopped after 25 iterations (max_iterations = 25).',
      } as ApiEvent,
      {
        type: 'session_end',
        session_id: sid,
        seq: 2,
        at,
        route: ROUTE,
        stop_reason: 'max_iterations',
        text: '',
        usage,
        iterations: 25,
      } as ApiEvent,
    ]);
    expect(s.items.map((i) => i.kind)).toEqual(['user', 'error']);
    // Without the error event (an older daemon), the notice still says it.
    let t = chatReducer(emptyChat('ops', ROUTE), { type: 'sending', text: 'go' });
    t = apply(t, [
      {
        type: 'session_start',
        session_id: sid,
        seq: 0,
        at,
        route: ROUTE,
        agent: 'ops',
        source: 'web',
        origin: 'remote',
        model: 'm',
        resumed: false,
        cwd: '/',
      } as ApiEvent,
      {
        type: 'session_end',
        session_id: sid,
        seq: 1,
        at,
        route: ROUTE,
        stop_reason: 'budget',
        text: '',
        usage,
        iterations: 3,
      } as ApiEvent,
    ]);
    expect(t.items.map((i) => i.kind)).toEqual(['user', 'notice']);
  });
});
