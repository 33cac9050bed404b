import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { isReinError } from '../../../src-main/core/errors.js';
import { sanitizeHistory } from '../../../src-main/core/sessions/sanitize.js';
import type { MessageMeta, SessionMessage } from '../../../src-main/core/sessions/types.js';

type Content = string | ContentBlockParam[];
const user = (content: Content): SessionMessage => ({ role: 'user', content });
const asst = (content: Content): SessionMessage => ({ role: 'assistant', content });
const text = (t: string): ContentBlockParam => ({ type: 'text', text: t });
const use = (id: string, name = 'bash'): ContentBlockParam => ({ type: 'tool_use', id, name, input: { n: id } });
const result = (id: string, out = `out-${id}`): ContentBlockParam => ({
  type: 'tool_result',
  tool_use_id: id,
  content: out,
});
const meta = (n: number, extra: Partial<MessageMeta> = {}): MessageMeta => ({
  source: 'local',
  timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  ...extra,
});
/** Meta for each message, numbered by position so tests can tell which one survived. */
const metaFor = (messages: readonly SessionMessage[]) => messages.map((_, i) => meta(i));

function run(messages: SessionMessage[], m: MessageMeta[] = metaFor(messages)) {
  return sanitizeHistory(messages, m);
}

/** The rules the API enforces on a history; every sanitised output must satisfy them. */
function expectSendable(messages: readonly SessionMessage[], meta: readonly MessageMeta[]) {
  expect(meta).toHaveLength(messages.length);
  if (messages.length === 0) return;
  expect(messages[0]!.role).toBe('user');
  const seenUses = new Set<string>();
  messages.forEach((m, i) => {
    if (i > 0) expect(m.role, `roles alternate at ${i}`).not.toBe(messages[i - 1]!.role);
    const blocks = typeof m.content === 'string' ? [text(m.content)] : m.content;
    expect(blocks.length, `message ${i} not empty`).toBeGreaterThan(0);
    for (const b of blocks) if (b.type === 'text') expect(b.text.trim()).not.toBe('');
    const uses = blocks.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
    const results = blocks.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []));
    if (m.role === 'user') expect(uses).toEqual([]);
    if (m.role === 'assistant') expect(results).toEqual([]);
    for (const id of uses) {
      expect(seenUses.has(id), `tool_use id ${id} unique`).toBe(false);
      seenUses.add(id);
      const next = messages[i + 1];
      const nextResults =
        next && typeof next.content !== 'string'
          ? next.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []))
          : [];
      expect(
        nextResults.filter((r) => r === id),
        `tool_use ${id} answered once`,
      ).toHaveLength(1);
    }
    if (results.length > 0) {
      const prev = messages[i - 1]!;
      const prevUses =
        typeof prev.content === 'string' ? [] : prev.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
      for (const id of results) expect(prevUses, `tool_result ${id} has a tool_use before it`).toContain(id);
      expect(new Set(results).size).toBe(results.length);
      // Tool results lead the message.
      const firstOther = blocks.findIndex((b) => b.type !== 'tool_result');
      if (firstOther !== -1) expect(blocks.slice(firstOther).some((b) => b.type === 'tool_result')).toBe(false);
    }
  });
}

describe('sanitizeHistory', () => {
  it('leaves a well-formed history with a full tool round trip unchanged', () => {
    const messages = [
      user('list files'),
      asst([text('Looking.'), use('t1')]),
      user([result('t1')]),
      asst('There are 3 files.'),
      user('thanks'),
      asst([text('You are welcome.')]),
    ];
    const meta = metaFor(messages);
    const out = run(messages, meta);
    expect(out.messages).toEqual(messages);
    expect(out.meta).toEqual(meta);
  });

  it('drops a dangling tool_use at the end of an interrupted run but keeps the text beside it', () => {
    const out = run([user('do it'), asst([text('Running the command.'), use('t1')])]);
    expect(out.messages).toEqual([user('do it'), asst([text('Running the command.')])]);
    expectSendable(out.messages, out.meta);
  });

  it('drops an assistant message that was only a dangling tool_use', () => {
    const messages = [user('q1'), asst('a1'), user('q2'), asst([use('t9')])];
    const out = run(messages);
    expect(out.messages).toEqual([user('q1'), asst('a1'), user('q2')]);
    expect(out.meta.map((m) => m.timestamp)).toEqual([0, 1, 2].map((n) => meta(n).timestamp));
  });

  it('keeps a trailing user message of tool results when the run stopped after the tools ran', () => {
    const messages = [user('q'), asst([use('t1'), use('t2')]), user([result('t1'), result('t2')])];
    const out = run(messages);
    expect(out.messages).toEqual(messages);
    expectSendable(out.messages, out.meta);
  });

  it('drops only the unanswered one of two parallel tool calls', () => {
    const out = run([user('q'), asst([use('t1'), use('t2')]), user([result('t2')]), asst('done')]);
    expect(out.messages).toEqual([user('q'), asst([use('t2')]), user([result('t2')]), asst('done')]);
  });

  it('drops a tool_result whose tool_use is not in the message just before it', () => {
    const out = run([user('q'), asst('plain answer'), user([result('ghost'), text('and another question')])]);
    expect(out.messages).toEqual([user('q'), asst('plain answer'), user([text('and another question')])]);
  });

  it('drops a tool_result that answers a tool_use two messages back', () => {
    const out = run([user('q'), asst([use('t1')]), user([result('t1')]), asst('ok'), user([result('t1'), text('hi')])]);
    expect(out.messages).toEqual([user('q'), asst([use('t1')]), user([result('t1')]), asst('ok'), user([text('hi')])]);
  });

  it('keeps only the first of duplicated tool_result ids', () => {
    const out = run([user('q'), asst([use('t1')]), user([result('t1', 'first'), result('t1', 'second')]), asst('ok')]);
    expect(out.messages[2]).toEqual(user([result('t1', 'first')]));
    expectSendable(out.messages, out.meta);
  });

  it('drops a reused tool_use id later in the history together with its result', () => {
    const out = run([
      user('q'),
      asst([use('t1')]),
      user([result('t1')]),
      asst([text('again'), use('t1')]),
      user([result('t1'), text('extra')]),
    ]);
    expect(out.messages).toEqual([
      user('q'),
      asst([use('t1')]),
      user([result('t1')]),
      asst([text('again')]),
      user([text('extra')]),
    ]);
  });

  it('drops tool blocks sitting in the wrong role', () => {
    const out = run([user([text('q'), use('u1')]), asst([text('a'), result('u1')])]);
    expect(out.messages).toEqual([user([text('q')]), asst([text('a')])]);
  });

  it('merges two user messages in a row, string and blocks, keeping the first meta', () => {
    const messages = [user('first'), user([text('second')]), asst('answer')];
    const out = run(messages, [meta(0, { source: 'slack' }), meta(1, { source: 'local' }), meta(2)]);
    expect(out.messages).toEqual([user([text('first'), text('second')]), asst('answer')]);
    expect(out.meta).toEqual([meta(0, { source: 'slack' }), meta(2)]);
  });

  it('merges two assistant strings into text blocks', () => {
    const out = run([user('q'), asst('part one'), asst('part two')]);
    expect(out.messages).toEqual([user('q'), asst([text('part one'), text('part two')])]);
  });

  it('marks a merged message injected only when both parts were injected', () => {
    const both = run([user('a'), user('b')], [meta(0, { injected: true }), meta(1, { injected: true })]);
    expect(both.meta).toEqual([meta(0, { injected: true })]);
    const one = run([user('a'), user('b')], [meta(0, { injected: true }), meta(1)]);
    expect(one.meta).toEqual([meta(0)]);
    expect(one.meta[0]).not.toHaveProperty('injected');
  });

  it('pairs a tool_result that an injected message separated from its tool_use, results first', () => {
    // A message typed during the run landed between the tool call and its result.
    const out = run([
      user('q'),
      asst([use('t1')]),
      user('by the way, use port 8080'),
      user([result('t1')]),
      asst('ok'),
    ]);
    expect(out.messages).toEqual([
      user('q'),
      asst([use('t1')]),
      user([result('t1'), text('by the way, use port 8080')]),
      asst('ok'),
    ]);
    expectSendable(out.messages, out.meta);
  });

  it('joins the two assistant messages around a user message that held only orphaned results', () => {
    const out = run([user('q'), asst('thinking out loud'), user([result('nope')]), asst('final')]);
    expect(out.messages).toEqual([user('q'), asst([text('thinking out loud'), text('final')])]);
    expect(out.meta).toEqual([meta(0), meta(1)]);
  });

  it('drops empty messages and blank text blocks', () => {
    const out = run([user(''), user('  '), user([]), user([text(' \n'), text('real')]), asst([text('')]), asst('a')]);
    expect(out.messages).toEqual([user([text('real')]), asst('a')]);
    expect(out.meta).toEqual([meta(3), meta(5)]);
  });

  it('drops leading assistant messages so the history starts with the user', () => {
    const out = run([asst('hello, I am Rein'), user('hi'), asst('hi!')]);
    expect(out.messages).toEqual([user('hi'), asst('hi!')]);
    expect(out.meta).toEqual([meta(1), meta(2)]);
  });

  it('drops the results of a leading assistant it removed, and whatever that empties', () => {
    const out = run([asst([use('t1')]), user([result('t1')]), asst('orphaned reply'), user('real start'), asst('r')]);
    expect(out.messages).toEqual([user('real start'), asst('r')]);
  });

  it('returns an empty history when nothing sendable is left', () => {
    expect(run([asst('a'), asst([use('x')])])).toEqual({ messages: [], meta: [] });
    expect(run([])).toEqual({ messages: [], meta: [] });
  });

  it('does not modify its inputs', () => {
    const messages = [user('q'), asst([text('x'), use('t1')]), user([result('t2')]), user('more')];
    const meta = metaFor(messages);
    const before = structuredClone({ messages, meta });
    deepFreeze(messages);
    deepFreeze(meta);
    run(messages, meta);
    expect({ messages, meta }).toEqual(before);
  });

  it('refuses meta that is not aligned with the messages', () => {
    try {
      sanitizeHistory([user('a'), asst('b')], [meta(0)]);
      expect.unreachable('should throw');
    } catch (e) {
      expect(isReinError(e, 'invalid_input')).toBe(true);
    }
  });

  it('always yields a sendable history from random damaged histories', () => {
    const rand = seeded(20260308);
    for (let round = 0; round < 500; round++) {
      const messages = randomHistory(rand);
      const out = run(messages);
      expectSendable(out.messages, out.meta);
      // Idempotent: a sanitised history is left as it is.
      expect(run(out.messages, out.meta)).toEqual(out);
    }
  });
});

function randomHistory(rand: () => number): SessionMessage[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const ids = ['a', 'b', 'c', 'd'];
  const len = Math.floor(rand() * 9);
  const out: SessionMessage[] = [];
  for (let i = 0; i < len; i++) {
    const role = rand() < 0.5 ? 'user' : 'assistant';
    if (rand() < 0.2) {
      out.push({ role, content: pick(['', ' ', 'hello', 'world']) });
      continue;
    }
    const blocks: ContentBlockParam[] = [];
    const n = Math.floor(rand() * 4);
    for (let j = 0; j < n; j++) {
      const kind = rand();
      if (kind < 0.3) blocks.push(text(pick(['', 'x', 'some text'])));
      else if (kind < 0.65) blocks.push(role === 'assistant' || rand() < 0.1 ? use(pick(ids)) : result(pick(ids)));
      else blocks.push(role === 'user' || rand() < 0.1 ? result(pick(ids)) : use(pick(ids)));
    }
    out.push({ role, content: blocks });
  }
  return out;
}

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
