/**
 * The session file's text read and written a message at a time (sessions/sessionJson.ts): the pieces
 * are, byte for byte, `JSON.stringify(data, null, 2) + '\n'`, and the paged reader gives what
 * `JSON.parse` of the whole text gives or declines, handing back the file's bytes (the whole-text parse
 * then decides) — never a value JSON.parse would not give. Real files in a temp folder; reads in pieces as small as one byte, so every
 * boundary falls everywhere.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSessionFile, sessionJsonPieces } from '../../../src-main/core/sessions/sessionJson.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-sessionjson-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The pieces joined (each copied when it comes: the writer's buffer is used again for the next). */
function joined(data: object, chunkChars?: number): string {
  return Buffer.concat(Array.from(sessionJsonPieces(data, chunkChars), (b) => Buffer.from(b))).toString('utf8');
}

const session = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  version: 1,
  id: '2026-03-08-0123456789ab',
  agent: 'default',
  title: 'Ünïcødé “quotes” \\ back\\slash',
  cwd: '/work',
  source: 'cli',
  created_at: '2026-03-08T12:00:00.000Z',
  updated_at: '2026-03-08T12:00:00.000Z',
  messages,
  message_meta: messages.map(() => ({ source: 'cli', timestamp: '2026-03-08T12:00:00.000Z' })),
  usage: {
    input_tokens: 1,
    output_tokens: 2,
    cache_read_tokens: 0,
    cache_creation_tokens: 0,
    cost_usd: 0.5,
    requests: 1,
  },
  ...extra,
});

const messages = [
  {
    role: 'user',
    content: [
      { type: 'text', text: '<!-- cache_break -->\n<context>\nnow\n</context>' },
      { type: 'text', text: 'read "a.txt" ✓ 😀' },
    ],
  },
  {
    role: 'assistant',
    content: [
      {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'file_read',
        input: { path: 'a.txt', nested: { list: [1, 2.5, null, true], empty: {}, none: [] } },
      },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: 'line "one"\nline \\two\\\n\ttab \u0000 nul \u2028 sep\n'.repeat(50),
      },
    ],
  },
  { role: 'assistant', content: 'plain string content' },
];

describe('sessionJsonPieces', () => {
  const cases: Array<[string, object]> = [
    ['a conversation with every kind of text', session(messages)],
    ['no messages', session([])],
    [
      'fields JSON leaves out or turns (undefined, a function, a Date), unknown and odd keys',
      {
        ...session(messages, {
          channel: undefined,
          checkpoint: { when: new Date(Date.UTC(2026, 0, 1)) },
          context: { deferred: { loaded: [] } },
          later_field: [[]],
        }),
        fn: () => 1,
        ['__proto__']: { odd: true },
        '': 'empty key',
      },
    ],
    ['a message list with a hole JSON writes as null', session([messages[0], undefined, messages[1]])],
    ['messages not an array (written as JSON writes any value)', { ...session([]), messages: { not: 'an array' } }],
  ];
  for (const [what, data] of cases) {
    it(`writes exactly JSON.stringify(data, null, 2) + '\\n': ${what}`, () => {
      const expected = `${JSON.stringify(data, null, 2)}\n`;
      for (const chunk of [1, 50, 4096, undefined]) expect(joined(data, chunk)).toBe(expected);
    });
  }

  it('cuts a long history into pieces no larger than about the piece size, and each pass starts again', () => {
    const long = session(
      Array.from({ length: 200 }, (_, i) => ({
        role: i % 2 ? 'assistant' : 'user',
        content: [{ type: 'text', text: `message ${i} `.repeat(100) }],
      })),
    );
    const pieces = Array.from(sessionJsonPieces(long, 10_000), (b) => Buffer.from(b));
    expect(pieces.length).toBeGreaterThan(20);
    // A piece ends with the group of messages that takes it past the size: groups aim at a quarter of a
    // piece, a message (≈1.3 KB) more at most. The last one also holds the fields after the history.
    for (const p of pieces.slice(0, -1)) expect(p.byteLength).toBeLessThan(10_000 * 1.25 + 2_000);
    const text = sessionJsonPieces(long, 10_000);
    expect(
      Buffer.concat(Array.from(text, (b) => Buffer.from(b))).equals(
        Buffer.concat(Array.from(text, (b) => Buffer.from(b))),
      ),
    ).toBe(true);
  });

  it('a field JSON cannot hold throws at once; a message JSON cannot hold throws from its piece', () => {
    expect(() => sessionJsonPieces(session(messages, { context: { n: 1n } }))).toThrow(/BigInt/);
    const many = Array.from({ length: 40 }, (_, i) => messages[i % messages.length]);
    const pieces = sessionJsonPieces(
      session([...many, { role: 'user', content: [{ type: 'text', text: 'x', n: 1n }] }]),
      1,
    );
    const seen: number[] = [];
    expect(() => {
      for (const p of pieces) seen.push(p.byteLength);
    }).toThrow(/BigInt/);
    // The pieces before the bad message came out; the one holding it never did.
    expect(seen.length).toBeGreaterThan(0);
  });

  it('the message list is the one at the call: a message added afterwards is not written', () => {
    const list = [...messages];
    const data = session(list);
    const expected = `${JSON.stringify(data, null, 2)}\n`;
    const pieces = sessionJsonPieces(data);
    list.push({ role: 'user', content: 'later' });
    expect(Buffer.concat(Array.from(pieces, (b) => Buffer.from(b))).toString('utf8')).toBe(expected);
  });
});

/** JSON with every kind of space JSON allows, everywhere it allows it. */
function spaced(v: unknown): string {
  const ws = ' \t\r\n';
  if (Array.isArray(v)) return `[${ws}${v.map((x) => `${ws}${spaced(x)}${ws}`).join(',')}${ws}]`;
  if (v && typeof v === 'object') {
    return `{${ws}${Object.entries(v)
      .map(([k, x]) => `${ws}${JSON.stringify(k)}${ws}:${ws}${spaced(x)}${ws}`)
      .join(',')}}${ws}`;
  }
  return JSON.stringify(v);
}

describe('readSessionFile', () => {
  const write = async (text: string | Buffer) => {
    const file = join(dir, 'file.json');
    await writeFile(file, text);
    return file;
  };
  /** The paged reading at several piece sizes, each time from a fresh start. */
  const readAll = async (file: string) =>
    Promise.all([1, 3, 64, 4096, 1 << 20].map((chunkBytes) => readSessionFile(file, { pagedFrom: 0, chunkBytes })));

  const layouts: Array<[string, (v: unknown) => string]> = [
    ['as Rein writes it', (v) => `${JSON.stringify(v, null, 2)}\n`],
    ['minified', (v) => JSON.stringify(v)],
    ['tabs and CRLF line ends', (v) => JSON.stringify(v, null, '\t').replace(/\n/g, '\r\n')],
    ['space everywhere JSON allows it', (v) => spaced(v)],
  ];
  for (const [what, layout] of layouts) {
    it(`gives what JSON.parse gives, at every piece size: ${what}`, async () => {
      const data = session(messages, {
        context: { approvals: { grants: ['call:ls'] } },
        checkpoint: { summary: 'so far "x"' },
      });
      const text = layout(data);
      expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(data)));
      const file = await write(text);
      for (const r of await readAll(file)) expect(r).toEqual({ value: JSON.parse(text) });
    });
  }

  it('reads an empty message list, a field spelled with escapes and the key order as JSON.parse does', async () => {
    for (const text of [
      JSON.stringify(session([])),
      '{"version":1,"m\\u0065ssages":[{"role":"user","content":"hi"}],"message_meta":[],"z":1}',
      '{"messages":5,"a":1,"messages":[1,2]}',
    ]) {
      const file = await write(text);
      for (const r of await readAll(file)) {
        expect('value' in r).toBe(true);
        expect(JSON.stringify((r as { value: unknown }).value)).toBe(JSON.stringify(JSON.parse(text)));
      }
    }
  });

  it('gives the bytes, for the whole-text parse, of what it does not take: small files, other shapes, not UTF-8, not JSON', async () => {
    const good = `${JSON.stringify(session(messages), null, 2)}\n`;
    // Below the size from which it reads in pieces (1 MB by default): the whole-text parse is cheaper.
    expect(await readSessionFile(await write(good))).toEqual({ bytes: Buffer.from(good) });
    const declined: Array<string | Buffer> = [
      '',
      '[]',
      '{}',
      '"text"',
      '{"version":1}',
      '{"messages":{"0":1}}',
      '{"messages":[1],"messages":[2]}',
      '{"messages":[1],"messages":3}',
      good.slice(0, good.length / 2),
      good.slice(0, -3),
      `${good}x`,
      `${good}}`,
      `\ufeff${good}`,
      good.replace('"role": "assistant"', '"role": assistant'),
      good.replace('"version": 1', '"version": 01'),
      good.replace('"role": "user"', '"role": "user",'),
      good.replace('"messages": [', '"messages": [,'),
      Buffer.concat([Buffer.from(good.slice(0, 400)), Buffer.from([0xff, 0xfe]), Buffer.from(good.slice(400))]),
    ];
    for (const text of declined) {
      const file = await write(text);
      // The whole file, from its start, however far the paged reading got.
      for (const r of await readAll(file)) expect(r, String(text).slice(0, 80)).toEqual({ bytes: Buffer.from(text) });
    }
  });

  it('damaged at any one byte or cut at any length, it gives what JSON.parse gives, or declines', async () => {
    const good = Buffer.from(`${JSON.stringify(session(messages.slice(0, 2)), null, 2)}\n`);
    let seed = 11;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const damaged: Buffer[] = [];
    for (let i = 0; i < 100; i++) {
      const b = Buffer.from(good);
      b[Math.floor(rand() * b.length)] = '{}[],:"\\ 0a\n'.charCodeAt(Math.floor(rand() * 13));
      damaged.push(b);
    }
    for (let n = 0; n < good.length; n += 7) damaged.push(good.subarray(0, n));
    let taken = 0;
    for (const b of damaged) {
      const file = await write(b);
      let whole: { value: unknown } | undefined;
      try {
        whole = { value: JSON.parse(b.toString('utf8')) };
      } catch {
        whole = undefined;
      }
      for (const chunkBytes of [1, 1 << 20]) {
        const r = await readSessionFile(file, { pagedFrom: 0, chunkBytes });
        if ('value' in r) {
          expect(r).toEqual(whole);
          taken++;
        } else expect(r.bytes.equals(b)).toBe(true);
      }
    }
    // A byte changed inside a string still makes JSON: those were read, and read as JSON.parse reads them.
    expect(taken).toBeGreaterThan(20);
  });

  it('throws the error of opening the file as it is', async () => {
    await expect(readSessionFile(join(dir, 'missing.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
