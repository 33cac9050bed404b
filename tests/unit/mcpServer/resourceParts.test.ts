/**
 * The pure parts behind `rein mcp serve`'s resources and prompts: which URIs name what (and that
 * nothing else reaches a path), the Markdown transcript without Rein's own text or secrets, the choices
 * an argument hint spells out, and the bounded SSE event store's replay.
 */
import { describe, expect, it } from 'vitest';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedEventStore, STANDALONE_STREAM_ID } from '../../../src-main/core/mcpServer/eventStore.js';
import { hintChoices } from '../../../src-main/core/mcpServer/prompts.js';
import { parseReinUri } from '../../../src-main/core/mcpServer/resources.js';
import { renderTranscript, TRANSCRIPT_TOOL_OUTPUT_CHARS } from '../../../src-main/core/mcpServer/transcript.js';
import type { SessionFile } from '../../../src-main/core/sessions/types.js';

const ID = '2026-03-01-0123456789ab';

describe('parseReinUri', () => {
  it.each([
    [`rein://sessions/${ID}`, { kind: 'session', id: ID }],
    ['rein://sessions', { kind: 'sessions' }],
    ['rein://sessions?query=glacier%20hike', { kind: 'sessions', query: 'glacier hike' }],
    ['rein://sessions?query=', { kind: 'sessions' }],
    ['rein://agents/ops/memory', { kind: 'memory', agent: 'ops' }],
  ])('%s', (uri, want) => expect(parseReinUri(uri)).toEqual(want));

  it.each([
    'rein://sessions/../secrets/mcp-serve.token',
    'rein://sessions/..%2F..%2Fsecrets',
    `rein://sessions/${ID}/../x`,
    `rein://sessions/${ID}.json`,
    'rein://sessions/2026-03-01-XYZ',
    'rein://agents/../memory',
    'rein://agents/Ops%2F..%2F/memory',
    'rein://agents/a/b/memory',
    'rein://sessions?query=a&query=b',
    'rein://sessions?path=/etc/passwd',
    'file:///etc/passwd',
    'REIN://sessions',
  ])('%s names nothing', (uri) => expect(parseReinUri(uri)).toBeUndefined());
});

function session(
  messages: SessionFile['messages'],
  meta: Array<Partial<SessionFile['message_meta'][number]>> = [],
): SessionFile {
  return {
    version: 1,
    id: ID,
    agent: 'default',
    title: 'Tea\nplans',
    cwd: '/work',
    source: 'cli',
    created_at: '2026-03-01T10:00:00.000Z',
    updated_at: '2026-03-01T10:05:00.000Z',
    messages,
    message_meta: messages.map((_, i) => ({ source: 'cli', timestamp: '2026-03-01T10:00:00.000Z', ...meta[i] })),
    usage: {
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_creation_tokens: 0,
      cost_usd: 0,
      requests: 0,
    },
  } as SessionFile;
}

describe('renderTranscript', () => {
  it('keeps what was said and done, and leaves out Rein’s per-turn block, hook output, nudges and thinking', () => {
    const text = renderTranscript(
      session(
        [
          {
            role: 'user',
            content: [
              {
                type: 'text',
                text: 'Brew me some tea\n\n<!-- cache_break -->\n<context>time: 10:00, cwd /work</context>\n<memory>- secret-ish note</memory>',
              },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'private musing', signature: 'sig' },
              { type: 'text', text: 'Let me check the kettle.' },
              { type: 'tool_use', id: 't1', name: 'bash', input: { command: 'cat kettle.txt' } },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't1',
                content: `full\n${'x'.repeat(TRANSCRIPT_TOOL_OUTPUT_CHARS + 50)}`,
              },
            ],
          },
          { role: 'user', content: [{ type: 'text', text: 'Keep going: you stopped early.' }] },
          { role: 'user', content: [{ type: 'text', text: '[New message from user] green, please' }] },
          { role: 'user', content: [{ type: 'text', text: '<hook-context>branch main</hook-context>\nand quick' }] },
          { role: 'assistant', content: 'Your green tea is ready. The API key was sk-ant-abcdefghijklmnopqrstuvwxyz.' },
        ],
        [{}, {}, {}, { injected: true }, { injected: true }, {}, {}],
      ),
    );
    expect(text).toMatch(/^# Tea plans\n/);
    expect(text).toContain(`Session: \`${ID}\``);
    expect(text).toContain('Brew me some tea');
    expect(text).toContain('Let me check the kettle.');
    expect(text).toContain('**Tool call:** `bash: cat kettle.txt`');
    expect(text).toContain('**Tool output:**');
    expect(text).toContain('… (55 more characters)');
    expect(text).toContain('*(sent while the agent was working)* green, please');
    expect(text).toContain('and quick');
    expect(text).toContain('Your green tea is ready.');
    for (const gone of [
      '<context>',
      'cache_break',
      '<memory>',
      'secret-ish note',
      'branch main',
      'Keep going',
      'private musing',
      'sk-ant-abcdefghijklmnop',
    ]) {
      expect(text).not.toContain(gone);
    }
    expect(text).toContain('[REDACTED]');
  });

  it('fences tool output so backticks in it cannot end the block', () => {
    const text = renderTranscript(
      session([
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't', name: 'file_read', input: { path: 'README.md' } }],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't', content: 'text\n```\n# not a heading of the transcript\n```' },
          ],
        },
      ]),
    );
    expect(text).toContain('````text\ntext\n```\n# not a heading of the transcript\n```\n````');
  });
});

describe('hintChoices', () => {
  it.each([
    ['<file> [strict|lenient]', ['strict', 'lenient']],
    ['env=(staging|production) <tag>', ['staging', 'production']],
    ['<a|b> [b|c]', ['a', 'b', 'c']],
    ['<file>', []],
  ])('%s', (hint, want) => expect(hintChoices(hint)).toEqual(want));
});

describe('BoundedEventStore', () => {
  const msg = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/message', params: { n } });

  it('replays what came after an id on the same stream only, and forgets the oldest beyond its bound', async () => {
    const store = new BoundedEventStore(4);
    const priming = await store.storeEvent('a', {} as JSONRPCMessage);
    const a1 = await store.storeEvent('a', msg(1));
    await store.storeEvent('b', msg(2));
    await store.storeEvent('a', msg(3));
    const sent: Array<[string, unknown]> = [];
    expect(await store.replayEventsAfter(priming, { send: async (id, m) => void sent.push([id, m]) })).toBe('a');
    expect(sent.map(([, m]) => (m as { params: { n: number } }).params.n)).toEqual([1, 3]);
    expect(await store.getStreamIdForEventId(a1)).toBe('a');

    await store.storeEvent('a', msg(4));
    // Five stored, four kept: the priming event is gone, and with it the way to resume from it.
    expect(await store.getStreamIdForEventId(priming)).toBeUndefined();
    expect(await store.replayEventsAfter(priming, { send: async () => undefined })).toBe('');
  });

  it('primes a stream at once (the GET stream, serve.ts): its id resumes that stream, and it is never replayed', async () => {
    const store = new BoundedEventStore();
    const before = await store.storeEvent(STANDALONE_STREAM_ID, msg(0));
    const priming = store.prime(STANDALONE_STREAM_ID);
    expect(Number(priming)).toBeGreaterThan(Number(before));
    await store.storeEvent(STANDALONE_STREAM_ID, msg(1));
    const sent: unknown[] = [];
    expect(await store.getStreamIdForEventId(priming)).toBe(STANDALONE_STREAM_ID);
    expect(await store.replayEventsAfter(before, { send: async (_id, m) => void sent.push(m) })).toBe(
      STANDALONE_STREAM_ID,
    );
    expect(sent).toEqual([msg(1)]);
  });
});
