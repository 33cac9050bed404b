// The event stream → chat screen mapping, as the pure reducer the chat view renders.
import { describe, expect, it } from 'vitest';
import type { ApiEvent, SessionRecord, UsageTotals } from '../../../src-main/core/api/index.js';
import {
  chatReducer,
  emptyChat,
  lastUserText,
  type ChatAction,
  type ChatState,
} from '../../../src-renderer/src/state/chat.js';
import { chatsReducer } from '../../../src-renderer/src/state/chats.js';

const SID = '2026-01-02-0123456789ab';
const ROUTE = 'agent:ops';
const at = '2026-01-02T10:00:00.000Z';
let seq = 0;

function ev(body: Record<string, unknown>, opts: { route?: string | null; session_id?: string } = {}): ApiEvent {
  return {
    session_id: opts.session_id ?? SID,
    seq: body.type === 'session_start' ? (seq = 0) : ++seq,
    at,
    ...(opts.route === null ? {} : { route: opts.route ?? ROUTE }),
    ...body,
  } as ApiEvent;
}

const usage = (cost_usd: number, output_tokens = 10): UsageTotals => ({
  input_tokens: 100,
  output_tokens,
  cache_read_tokens: 0,
  cache_creation_tokens: 0,
  cost_usd,
  requests: 1,
});

const start = (resumed = false) =>
  ev({ type: 'session_start', agent: 'ops', source: 'chat', model: 'claude-test', resumed, cwd: '/tmp' });

function run(state: ChatState, ...actions: (ChatAction | ApiEvent)[]): ChatState {
  return actions.reduce<ChatState>(
    (s, a) =>
      chatReducer(
        s,
        'type' in a &&
          ['event', 'sent', 'sending', 'send_failed', 'reset', 'load_session', 'note'].includes(a.type) &&
          !('at' in a)
          ? (a as ChatAction)
          : { type: 'event', event: a as ApiEvent },
      ),
    state,
  );
}

const fresh = () => emptyChat('ops', ROUTE);

describe('chat state from events', () => {
  it('shows the user message at once and streams the answer into one growing message', () => {
    const s = run(
      fresh(),
      { type: 'sending', text: 'hello' },
      { type: 'sent', text: 'hello', injected: false },
      start(),
      ev({ type: 'text_delta', text: 'Hel' }),
      ev({ type: 'text_delta', text: 'lo there' }),
    );
    expect(s.running).toBe(true);
    expect(s.session_id).toBe(SID);
    expect(s.items.map((i) => i.kind)).toEqual(['user', 'assistant']);
    expect(s.items[1]).toMatchObject({ kind: 'assistant', text: 'Hello there', streaming: true });
  });

  it('turns tool calls into cards that start running and end with status, preview and duration', () => {
    const s = run(
      fresh(),
      start(),
      ev({ type: 'text_delta', text: 'Let me look.' }),
      ev({ type: 'tool_call_start', call_id: 'c1', tool: 'file_read', input: { path: 'a.txt' }, summary: 'a.txt' }),
    );
    expect(s.items[0]).toMatchObject({ kind: 'assistant', streaming: false });
    expect(s.items[1]).toMatchObject({
      kind: 'tool',
      id: 'c1',
      status: 'running',
      input: { path: 'a.txt' },
      startedAt: at,
    });
    const done = run(
      s,
      ev({ type: 'tool_call_end', call_id: 'c1', tool: 'file_read', ok: false, preview: 'ENOENT', duration_ms: 12 }),
    );
    expect(done.items[1]).toMatchObject({ status: 'error', preview: 'ENOENT', duration_ms: 12 });
  });

  it('starts a new answer message after a tool call instead of appending to the one before it', () => {
    const s = run(
      fresh(),
      start(),
      ev({ type: 'text_delta', text: 'first' }),
      ev({ type: 'tool_call_start', call_id: 'c1', tool: 'glob', input: {}, summary: '*' }),
      ev({ type: 'tool_call_end', call_id: 'c1', tool: 'glob', ok: true, preview: 'x', duration_ms: 1 }),
      ev({ type: 'text_delta', text: 'second' }),
    );
    expect(s.items.filter((i) => i.kind === 'assistant').map((i) => (i as { text: string }).text)).toEqual([
      'first',
      'second',
    ]);
  });

  it('keeps an approval card and records the decision when it is answered', () => {
    const s = run(
      fresh(),
      start(),
      ev({
        type: 'approval_request',
        request_id: 'apr_0123456789abcdef',
        tool: 'bash',
        summary: 'rm -rf build',
        reason: 'asks',
        layer: 'ask',
        risk: 'high',
        risk_explanation: 'deletes files',
      }),
      ev({ type: 'approval_response', request_id: 'apr_0123456789abcdef', decision: 'deny', by: 'daemon' }),
    );
    expect(s.items).toEqual([
      expect.objectContaining({
        kind: 'approval',
        id: 'apr_0123456789abcdef',
        summary: 'rm -rf build',
        risk: 'high',
        decision: 'deny',
        by: 'daemon',
      }),
    ]);
  });

  it('ends the run: not running, the final text when nothing was streamed, and usage added to the session', () => {
    const s = run(
      fresh(),
      start(),
      ev({ type: 'tool_call_start', call_id: 'c1', tool: 'glob', input: {}, summary: '*' }),
      ev({ type: 'tool_call_end', call_id: 'c1', tool: 'glob', ok: true, preview: 'x', duration_ms: 1 }),
      ev({ type: 'usage', model: 'claude-test', request: usage(0.01), run: usage(0.01), cache_hit_ratio: 0 }),
      ev({ type: 'session_end', stop_reason: 'final', text: 'All done.', usage: usage(0.02), iterations: 2 }),
    );
    expect(s.running).toBe(false);
    expect(s.lastStop).toBe('final');
    expect(s.items.at(-1)).toMatchObject({ kind: 'assistant', text: 'All done.', streaming: false });
    expect(s.sessionUsage.cost_usd).toBeCloseTo(0.02);
    // A second run in the same session adds to the session total.
    const again = run(
      s,
      start(true),
      ev({ type: 'usage', model: 'claude-test', request: usage(0.03), run: usage(0.03), cache_hit_ratio: 0 }),
    );
    expect(again.sessionUsage.cost_usd).toBeCloseTo(0.05);
    expect(again.runUsage?.cost_usd).toBeCloseTo(0.03);
  });

  it('does not repeat the final text when it was streamed', () => {
    const s = run(
      fresh(),
      start(),
      ev({ type: 'text_delta', text: 'All done.' }),
      ev({ type: 'session_end', stop_reason: 'final', text: 'All done.', usage: usage(0), iterations: 1 }),
    );
    expect(s.items.filter((i) => i.kind === 'assistant')).toHaveLength(1);
  });

  it('says "Stopped." on a cancelled run and marks cut-off tools as failed', () => {
    const s = run(
      fresh(),
      start(),
      ev({ type: 'tool_call_start', call_id: 'c1', tool: 'bash', input: { command: 'sleep 60' }, summary: 'sleep 60' }),
      ev({ type: 'session_end', stop_reason: 'cancelled', text: '', usage: usage(0), iterations: 1 }),
    );
    expect(s.items[0]).toMatchObject({ kind: 'tool', status: 'error' });
    expect(s.items.at(-1)).toMatchObject({ kind: 'notice', text: 'Stopped.' });
  });

  it('ignores an event replayed after a reconnect', () => {
    const s = run(fresh(), start(), ev({ type: 'text_delta', text: 'a' }));
    const replay = ev({ type: 'text_delta', text: 'b' });
    const once = chatReducer(s, { type: 'event', event: replay });
    expect(chatReducer(once, { type: 'event', event: replay })).toBe(once);
    expect(once.items[0]).toMatchObject({ text: 'ab' });
  });

  it('marks a message sent into a running run as injected', () => {
    const s = run(
      fresh(),
      start(),
      { type: 'sending', text: 'also check b' },
      { type: 'sent', text: 'also check b', injected: true },
    );
    expect(s.items.at(-1)).toMatchObject({ kind: 'user', text: 'also check b', injected: true });
    expect(lastUserText(s)).toBe('also check b');
  });

  it('shows errors, retries, loop nudges and queueing as lines of their own', () => {
    const s = run(
      fresh(),
      ev({ type: 'run_queued', route: ROUTE, agent: 'ops', position: 2, at } as never),
      start(),
      ev({ type: 'retry', attempt: 1, max_attempts: 3, reason: 'overloaded', delay_ms: 10 }),
      ev({ type: 'loop_nudge', detector: 'dup', action: 'nudge', message: 'same call twice' }),
      ev({ type: 'error', code: 'llm_failed', message: 'boom' }),
    );
    expect(s.items.map((i) => i.kind)).toEqual(['notice', 'notice', 'notice', 'error']);
    expect(s.items[0]).toMatchObject({ text: expect.stringContaining('position 2') });
    expect(s.items[3]).toMatchObject({ code: 'llm_failed', message: 'boom' });
  });

  it('loads a saved session with its usage, and a new chat forgets it', () => {
    const session: SessionRecord = {
      id: SID,
      agent: 'ops',
      title: 't',
      source: 'chat',
      created_at: at,
      updated_at: at,
      messages: [
        { role: 'user', content: 'list files' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Sure.' },
            { type: 'tool_use', id: 'tu1', name: 'glob', input: { pattern: '*' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'a.txt\nb.txt' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Two files.' }] },
      ],
      usage: usage(0.5),
    };
    const s = chatReducer(fresh(), { type: 'load_session', session });
    expect(s.session_id).toBe(SID);
    expect(s.sessionUsage.cost_usd).toBe(0.5);
    expect(s.items).toEqual([
      expect.objectContaining({ kind: 'user', text: 'list files' }),
      expect.objectContaining({ kind: 'assistant', text: 'Sure.' }),
      expect.objectContaining({ kind: 'tool', id: 'tu1', tool: 'glob', status: 'ok', preview: 'a.txt\nb.txt' }),
      expect.objectContaining({ kind: 'assistant', text: 'Two files.' }),
    ]);
    const reset = chatReducer(s, { type: 'reset' });
    expect(reset.items).toEqual([]);
    expect(reset.session_id).toBeUndefined();
  });
});

describe('conversations by route', () => {
  it('routes each event to the conversation of its route and leaves other routes alone', () => {
    let chats = chatsReducer({}, { type: 'open', agent: 'ops' });
    chats = chatsReducer(chats, { type: 'open', agent: 'default' });
    chats = chatsReducer(chats, { type: 'event', event: start() });
    chats = chatsReducer(chats, { type: 'event', event: ev({ type: 'text_delta', text: 'hi' }) });
    const other = chatsReducer(chats, {
      type: 'event',
      event: ev({ type: 'text_delta', text: 'x' }, { route: 'slack:C1' }),
    });
    expect(other).toBe(chats);
    expect(chats['agent:ops']!.items).toHaveLength(1);
    expect(chats['chat:desktop']!.items).toHaveLength(0);
  });

  it('falls back to the session id when an event carries no route', () => {
    let chats = chatsReducer({}, { type: 'open', agent: 'ops' });
    chats = chatsReducer(chats, { type: 'event', event: start() });
    chats = chatsReducer(chats, {
      type: 'event',
      event: ev({ type: 'text_delta', text: 'no route' }, { route: null }),
    });
    expect(chats['agent:ops']!.items[0]).toMatchObject({ text: 'no route' });
  });
});
