import { describe, expect, it } from 'vitest';
import { TOOL_OUTPUT_INDEX_CHARS, extractRows, toolCallLine } from '../../../src-main/core/search/extract.js';
import type { MessageMeta, SessionMessage } from '../../../src-main/core/sessions/types.js';
import { renderVolatile } from '../../../src-main/core/context/promptAssembly.js';

const meta = (extra: Partial<MessageMeta> = {}): MessageMeta => ({
  source: 'cli',
  timestamp: '2026-03-08T12:00:00.000Z',
  ...extra,
});

function rows(messages: SessionMessage[], metas: MessageMeta[] = messages.map(() => meta())) {
  return extractRows({ messages, message_meta: metas }).map((r) => [r.msgIndex, r.role, r.content, r.substrings]);
}

describe('extractRows', () => {
  it('takes user text without the <context> block, in string or block form', () => {
    expect(
      rows([
        {
          role: 'user',
          content: [
            { type: 'text', text: '<context>Current local time: 2026-03-08 10:00 (UTC)</context>' },
            { type: 'text', text: 'fix the build' },
          ],
        },
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
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 't1', name: 'x', input: {} },
          { type: 'tool_use', id: 't2', name: 'y', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: long },
          {
            type: 'tool_result',
            tool_use_id: 't2',
            content: [
              { type: 'text', text: '会議の資料' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            ],
          },
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

  it("leaves out Rein's per-turn block wherever it sits: first, after tool results, inside one string; with its memory", () => {
    const volatile = renderVolatile({
      now: new Date('2026-03-08T10:00:00Z'),
      timeZone: 'UTC',
      cwd: '/work/folder',
      model: 'claude-sonnet-5-5',
      contextWindow: 200_000,
      memory: 'likes </memory> tricks and marmalade',
    });
    expect(volatile).toMatch(
      /^<!-- cache_break -->\n<context>\nCurrent local time: .*\nWorking folder: \/work\/folder\n/,
    );
    expect(volatile).toContain('<memory>');
    const out = rows([
      {
        role: 'user',
        content: [
          { type: 'text', text: volatile },
          { type: 'text', text: 'fix the build' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'think', input: { thought: 'x' } }] },
      // A run stopped after its tools: the next turn's block follows the results in the same user message.
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'ok' },
          { type: 'text', text: volatile },
          { type: 'text', text: 'and the tests' },
        ],
      },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: `${volatile}\nthird question` },
      { role: 'user', content: [{ type: 'text', text: `before ${volatile} after` }] },
    ]);
    expect(out).toEqual([
      [0, 'user', 'fix the build', true],
      [1, 'tool_call', 'think: {"thought":"x"}', true],
      [2, 'tool_result', 'ok', false],
      [2, 'user', 'and the tests', true],
      [3, 'assistant', 'done', true],
      [4, 'user', 'third question', true],
      [5, 'user', 'before  after', true],
    ]);
    expect(JSON.stringify(out)).not.toMatch(/Current local time|Working folder|cache_break|marmalade|context window/i);
  });

  it("leaves out a SessionStart hook's output, keeping what the person typed", () => {
    expect(
      rows([
        {
          role: 'user',
          content: [
            { type: 'text', text: '<hook-context>\nbranch: main\nopen tickets: 3\n</hook-context>' },
            { type: 'text', text: 'what changed yesterday?' },
          ],
        },
      ]),
    ).toEqual([[0, 'user', 'what changed yesterday?', true]]);
  });

  it('summarises tool inputs by their telling fields, else as JSON', () => {
    expect(toolCallLine('grep', { pattern: 'TODO', path: 'src' })).toBe('grep: TODO src');
    expect(toolCallLine('think', {})).toBe('think');
    expect(toolCallLine('mcp_x', { a: 1 })).toBe('mcp_x: {"a":1}');
  });
});
