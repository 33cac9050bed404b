import { describe, expect, it } from 'vitest';
import { TOOL_OUTPUT_INDEX_CHARS, extractRows, toolCallLine } from '../../../src-main/core/search/extract.js';
import type { MessageMeta, SessionMessage } from '../../../src-main/core/sessions/types.js';

const meta = (extra: Partial<MessageMeta> = {}): MessageMeta => ({ source: 'cli', timestamp: '2026-03-08T12:00:00.000Z', ...extra });

function rows(messages: SessionMessage[], metas: MessageMeta[] = messages.map(() => meta())) {
  return extractRows({ messages, message_meta: metas }).map((r) => [r.msgIndex, r.role, r.content, r.substrings]);
}

describe('extractRows', () => {
  it('takes user text without the <context> block, in string or block form', () => {
    expect(
      rows([
        { role: 'user', content: [{ type: 'text', text: '<context>Current local time: 2026-03-08 10:00 (UTC)</context>' }, { type: 'text', text: 'fix the build' }] },
        { role: 'assistant', content: 'done' },
        { role: 'user', content: '<context>t</context>\nsecond question' },
      ]),
    ).toEqual([
      [0, 'user', 'fix the build', true],
      [1, 'assistant', 'done', true],
      [2, 'user', 'second question', true],
    ]);
  });

  it('keeps only assistant text after the last tool call, and one line per tool call', () => {
    expect(
      rows([
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 's' },
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: 't1', name: 'bash', input: { command: 'git status' } },
            { type: 'tool_use', id: 't2', name: 'file_read', input: { path: '/a/b.ts', offset: 3 } },
            { type: 'text', text: 'Both started.' },
          ],
        },
      ]),
    ).toEqual([
      [0, 'user', 'q', true],
      [1, 'tool_call', 'bash: git status', true],
      [1, 'tool_call', 'file_read: /a/b.ts', true],
      [1, 'assistant', 'Both started.', true],
    ]);
  });

  it('cuts tool output to 2,000 characters and keeps it out of the substring index unless it has CJK', () => {
    const long = 'a'.repeat(TOOL_OUTPUT_INDEX_CHARS + 500);
    const out = rows([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }, { type: 'tool_use', id: 't2', name: 'y', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: long },
          { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: '会議の資料' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] },
        ],
      },
    ]);
    expect(out[3]).toEqual([2, 'tool_result', 'a'.repeat(TOOL_OUTPUT_INDEX_CHARS), false]);
    expect(out[4]).toEqual([2, 'tool_result', '会議の資料', true]);
  });

  it("keeps a person's injected follow-up (without its prefix) and skips Rein's nudges", () => {
    expect(
      rows(
        [
          { role: 'user', content: [{ type: 'text', text: '[New message from user]\nalso do X' }] },
          { role: 'user', content: [{ type: 'text', text: 'Continue from where you stopped.' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'nudged reply' }] },
        ],
        [meta({ injected: true }), meta({ injected: true }), meta({ injected: true })],
      ),
    ).toEqual([[0, 'user', 'also do X', true]]);
  });

  it('summarises tool inputs by their telling fields, else as JSON', () => {
    expect(toolCallLine('grep', { pattern: 'TODO', path: 'src' })).toBe('grep: TODO src');
    expect(toolCallLine('think', {})).toBe('think');
    expect(toolCallLine('mcp_x', { a: 1 })).toBe('mcp_x: {"a":1}');
  });
});
