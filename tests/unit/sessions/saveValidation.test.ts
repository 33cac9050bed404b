/**
 * SessionStore.save checks only what changed since the session was last saved or loaded, yet refuses
 * exactly what a whole-file parse refuses and writes exactly the bytes a whole-file parse would give.
 * Work is observed through validatedHistory's schemaCheckCounts() test hook, never through timing.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReinError, isReinError } from '../../../src-main/core/errors.js';
import { sanitizeHistory } from '../../../src-main/core/sessions/sanitize.js';
import { SessionCache } from '../../../src-main/core/sessions/sessionCache.js';
import { SessionStore } from '../../../src-main/core/sessions/store.js';
import { SessionFile, type MessageMeta, type SessionMessage } from '../../../src-main/core/sessions/types.js';
import { schemaCheckCounts } from '../../../src-main/core/sessions/validatedHistory.js';
import { describeIssues } from '../../../src-main/core/util/zodIssues.js';

let root: string;
let dir: string;
let clock: number;
const now = () => new Date(clock);

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'rein-save-validation-'));
  dir = join(root, 'sessions');
  clock = Date.UTC(2026, 2, 8, 12, 0, 0);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const store = (cache?: SessionCache) => new SessionStore(dir, { now, ...(cache ? { cache } : {}) });
const fileOf = (s: SessionFile) => join(dir, `${s.id}.json`);
const at = () => now().toISOString();

/** Schema checks (messages, meta entries) done by `fn`. */
async function checksDuring(fn: () => Promise<unknown>): Promise<{ messages: number; meta: number }> {
  const before = schemaCheckCounts();
  await fn();
  const after = schemaCheckCounts();
  return { messages: after.messages - before.messages, meta: after.meta - before.meta };
}

/** What save() wrote before it checked incrementally: the whole session through the schema. */
function wholeParseText(s: SessionFile): string {
  return `${JSON.stringify(SessionFile.parse(s), null, 2)}\n`;
}

async function expectRefused(st: SessionStore, s: SessionFile): Promise<ReinError> {
  try {
    await st.save(s);
  } catch (e) {
    expect(isReinError(e, 'invalid_input'), String(e)).toBe(true);
    return e as ReinError;
  }
  throw new Error('expected the save to be refused');
}

function push(s: SessionFile, m: unknown, meta: unknown = { source: 'local', timestamp: at() }): void {
  s.messages.push(m as SessionMessage);
  s.message_meta.push(meta as MessageMeta);
}

function plainTurns(s: SessionFile, turns: number): SessionFile {
  for (let i = 0; i < turns; i++) {
    push(s, { role: 'user', content: [{ type: 'text', text: `question ${i}` }] });
    push(s, { role: 'assistant', content: [{ type: 'text', text: `answer ${i}` }] });
  }
  return s;
}

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** Every kind of message Rein stores, plus items a whole-file parse rewrites (key order, extra keys). */
function variedSession(s: SessionFile, rounds: number): SessionFile {
  for (let r = 0; r < rounds; r++) {
    const id = `toolu_${r}`;
    push(s, { role: 'user', content: `plain string prompt ${r} ✓ "quoted" \\ back\nslash` });
    push(s, {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `thinking ${r}`, signature: 'c2lnbmF0dXJl' },
        { type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' },
        { type: 'text', text: `let me look ${r}`, citations: null },
        {
          type: 'tool_use',
          id,
          name: 'read_file',
          input: { path: `/tmp/${r}.txt`, options: { lines: [1, 2, 3], deep: { x: null } } },
        },
      ],
    });
    push(
      s,
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: id,
            content: [
              { type: 'text', text: `file ${r} contents` },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            ],
            is_error: false,
          },
          {
            type: 'image',
            source: { type: 'base64', media_type: 'image/png', data: PNG },
            cache_control: { type: 'ephemeral' },
          },
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' }, title: 'notes' },
        ],
      },
      { source: 'slack', timestamp: at(), injected: true },
    );
    // Shapes the parse rewrites: keys out of the declared order, a key a message must not carry.
    push(
      s,
      { content: [{ text: `backwards ${r}`, type: 'text' }], role: 'assistant', name: 'legacy' },
      { timestamp: at(), source: 'local' },
    );
    push(
      s,
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'short' }] },
      { source: 'local', extra: 1, timestamp: at(), injected: false },
    );
    push(s, { role: 'assistant', content: [] }, { source: 'local', timestamp: at(), injected: undefined });
  }
  return s;
}

function newSession(st: SessionStore): SessionFile {
  return st.create({ agent: 'default', cwd: '/work', source: 'local' });
}

describe('SessionStore.save checks only what changed', () => {
  it('a save after appending one message checks only that message and its meta entry', async () => {
    const st = store();
    const s = plainTurns(newSession(st), 20);
    expect(await checksDuring(() => st.save(s))).toEqual({ messages: 40, meta: 40 });
    push(s, { role: 'user', content: [{ type: 'text', text: 'one more' }] });
    expect(await checksDuring(() => st.save(s))).toEqual({ messages: 1, meta: 1 });
    expect(await checksDuring(() => st.save(s))).toEqual({ messages: 0, meta: 0 });
    expect(await readFile(fileOf(s), 'utf8')).toBe(wholeParseText(s));
  });

  it('a loaded session is not checked again on its next save, with or without the session cache', async () => {
    const writer = store();
    const s = plainTurns(newSession(writer), 15);
    await writer.save(s);
    const fresh = store();
    const loaded = await fresh.load(s.id);
    expect(await checksDuring(() => fresh.save(loaded))).toEqual({ messages: 0, meta: 0 });

    const cache = new SessionCache();
    const cached = store(cache);
    await cached.save(await cached.load(s.id));
    const recalled = await cached.load(s.id); // from the cache: JSON.parse only
    push(recalled, { role: 'user', content: 'new' });
    expect(await checksDuring(() => cached.save(recalled))).toEqual({ messages: 1, meta: 1 });
  });

  it('a resumed history that needed no repair keeps its objects, so the first save of the run checks only new messages', async () => {
    const st = store();
    const s = plainTurns(newSession(st), 10);
    await st.save(s);
    const loaded = await store().load(s.id);
    const clean = sanitizeHistory(loaded.messages, loaded.message_meta);
    expect(clean.messages.every((m, i) => m === loaded.messages[i])).toBe(true);
    expect(clean.meta.every((e, i) => e === loaded.message_meta[i])).toBe(true);
    loaded.messages = clean.messages;
    loaded.message_meta = clean.meta;
    push(loaded, { role: 'user', content: [{ type: 'text', text: 'next prompt' }] });
    expect(await checksDuring(() => st.save(loaded))).toEqual({ messages: 1, meta: 1 });
  });

  it('a malformed new message is refused naming the session and the field, and the file is left as it was', async () => {
    const st = store();
    const s = plainTurns(newSession(st), 5);
    await st.save(s);
    const before = await readFile(fileOf(s), 'utf8');
    clock += 1000;
    push(s, { role: 'user', content: [{ text: 'no type' }] });
    const e = await expectRefused(st, s);
    expect(e.message).toContain(`session ${s.id}`);
    expect(e.message).toContain('messages[10].content[0].type');
    expect(e.details).toMatchObject({ id: s.id, field: 'messages[10].content[0].type' });
    expect(await readFile(fileOf(s), 'utf8')).toBe(before);
    expect(s.updated_at).toBe('2026-03-08T12:00:00.000Z');

    s.messages.pop();
    s.message_meta.pop();
    push(s, { role: 'assistant', content: 'fine' }, { source: '', timestamp: 'yesterday' });
    const m = await expectRefused(st, s);
    expect(m.message).toContain('message_meta[10].source');
    expect(m.message).toContain('message_meta[10].timestamp');
    expect(await readFile(fileOf(s), 'utf8')).toBe(before);
  });

  it('refuses with the same problems, in the same order, as a whole-file parse', async () => {
    const st = store();
    const cases: ((s: SessionFile) => void)[] = [
      (s) => {
        (s as { title: unknown }).title = 5;
        (s.messages[3] as { role: string }).role = 'system';
        (s.usage as { requests: number }).requests = -1;
      },
      (s) => {
        (s as { messages: unknown }).messages = 'nope';
      },
      (s) => {
        s.message_meta.pop();
      },
      (s) => {
        s.message_meta.pop();
        (s.messages[0] as { content: unknown }).content = 7;
      },
      (s) => {
        s.messages[1] = null as unknown as SessionMessage;
        (s.message_meta[2] as { injected: unknown }).injected = 'yes';
        (s as { created_at: unknown }).created_at = 'now';
      },
    ];
    for (const breakIt of cases) {
      const s = plainTurns(newSession(st), 3);
      await st.save(s);
      breakIt(s);
      const whole = SessionFile.safeParse({ ...s, updated_at: at() });
      expect(whole.success).toBe(false);
      const expected = describeIssues(whole.error!.issues, s)
        .map((p) => `session ${s.id}: ${p.field}: ${p.message}`)
        .join('\n');
      expect((await expectRefused(st, s)).message).toBe(expected);
    }
  });

  describe('in-place edits of checked messages', () => {
    /** Also returns the checks an unchanged save does (the items not in parsed form, see below). */
    async function savedSession() {
      const st = store();
      const s = variedSession(newSession(st), 2);
      await st.save(s);
      const idle = await checksDuring(() => st.save(s));
      const oneMore = { messages: idle.messages + 1, meta: idle.meta };
      return { st, s, oneMore };
    }
    const bad = { type: '' } as unknown as ContentBlockParam;

    it('a new content array (how the loop merges into the last user message) is checked again', async () => {
      const { st, s, oneMore } = await savedSession();
      const last = s.messages[2]!;
      last.content = [...(last.content as ContentBlockParam[]), { type: 'text', text: 'merged' }];
      expect(await checksDuring(() => st.save(s))).toEqual(oneMore);
      last.content = [...(last.content as ContentBlockParam[]), bad];
      expect((await expectRefused(st, s)).message).toContain('messages[2].content[4].type');
    });

    it('a block replaced, added or removed in place is checked again', async () => {
      const { st, s, oneMore } = await savedSession();
      const blocks = s.messages[1]!.content as ContentBlockParam[];
      blocks.push({ type: 'text', text: 'pushed' });
      expect(await checksDuring(() => st.save(s))).toEqual(oneMore);
      blocks[2] = { type: 'text', text: 'replaced by a block of the same type' };
      expect(await checksDuring(() => st.save(s))).toEqual(oneMore);
      blocks.splice(1, 1);
      expect(await checksDuring(() => st.save(s))).toEqual(oneMore);
      expect(await readFile(fileOf(s), 'utf8')).toBe(wholeParseText(s));
      // Same `type`, first key and all: only the object's identity tells it apart.
      const kept = blocks[1]!;
      blocks[1] = Object.assign([], { type: 'text' }) as unknown as ContentBlockParam;
      expect((await expectRefused(st, s)).message).toContain('messages[1].content[1]: expected object, got a list');
      blocks[1] = kept;
      blocks[2] = bad;
      expect((await expectRefused(st, s)).message).toContain('messages[1].content[2].type');
      blocks[2] = { type: 'text', text: 'ok' };
      blocks.push(bad);
      expect((await expectRefused(st, s)).message).toContain('messages[1].content[4].type');
    });

    it('a block whose type is changed in place is checked again and refused when the type is bad', async () => {
      const { st, s } = await savedSession();
      const block = (s.messages[7]!.content as ContentBlockParam[])[2] as { type: unknown };
      block.type = '';
      expect((await expectRefused(st, s)).message).toContain('messages[7].content[2].type');
      block.type = 42;
      expect((await expectRefused(st, s)).message).toContain('messages[7].content[2].type');
    });

    it('a role or meta entry changed in place is checked again', async () => {
      const { st, s } = await savedSession();
      (s.messages[4] as { role: string }).role = 'system';
      expect((await expectRefused(st, s)).message).toContain('messages[4].role');
      (s.messages[4] as { role: string }).role = 'user';
      s.message_meta[5]!.timestamp = 'yesterday';
      expect((await expectRefused(st, s)).message).toContain('message_meta[5].timestamp');
      s.message_meta[5]!.timestamp = at();
      (s.message_meta[6] as { injected: unknown }).injected = 'yes';
      expect((await expectRefused(st, s)).message).toContain('message_meta[6].injected');
    });

    it('edits that change only key order or add message keys are written as the parse would write them', async () => {
      const { st, s } = await savedSession();
      const block = (s.messages[1]!.content as ContentBlockParam[])[2] as unknown as Record<string, unknown>;
      const type = block.type;
      delete block.type;
      block.type = type; // now the last key: the parse puts it first again
      (s.messages[0] as unknown as Record<string, unknown>).name = 'dropped by the parse';
      const meta = s.message_meta[0] as unknown as Record<string, unknown>;
      const source = meta.source;
      delete meta.source;
      meta.source = source;
      await st.save(s);
      const text = await readFile(fileOf(s), 'utf8');
      expect(text).toBe(wholeParseText(s));
      expect(text).not.toContain('dropped by the parse');
    });
  });

  it('parses again at every save only the items a parse rewrites (key order, extra keys), and writes their parsed form', async () => {
    const st = store();
    const s = variedSession(newSession(st), 3);
    await st.save(s);
    // Per round: the message with keys out of order and a `name`, two meta entries with keys out of order.
    expect(await checksDuring(() => st.save(s))).toEqual({ messages: 3, meta: 6 });
    const text = await readFile(fileOf(s), 'utf8');
    expect(text).toBe(wholeParseText(s));
    expect(text).not.toContain('legacy');
    // Loaded, they are in parsed form: nothing is checked again.
    const other = store();
    const loaded = await other.load(s.id);
    expect(await checksDuring(() => other.save(loaded))).toEqual({ messages: 0, meta: 0 });
  });

  it('writes the bytes a whole-file parse gives, for a long varied session, save after save', async () => {
    const st = store();
    const s = variedSession(newSession(st), 40);
    Object.assign(s, {
      channel: 'C042',
      checkpoint: { summary: 'so far', keep: [1, { a: 2 }] },
      context: { deferred: { loaded: ['x'] } },
      pinned_by_newer_rein: true,
    });
    await st.save(s);
    expect(await readFile(fileOf(s), 'utf8')).toBe(wholeParseText(s));
    for (let round = 0; round < 3; round++) {
      clock += 1000;
      push(s, { role: 'user', content: [{ type: 'text', text: `round ${round}` }] });
      push(
        s,
        { role: 'assistant', content: [{ text: `reply ${round}`, type: 'text' }] },
        { timestamp: at(), source: 'local' },
      );
      await st.save(s);
      expect(await readFile(fileOf(s), 'utf8')).toBe(wholeParseText(s));
    }
    // The file loads back and reads the same.
    expect(wholeParseText(await store().load(s.id))).toBe(await readFile(fileOf(s), 'utf8'));
  });

  it('a load and save round trip leaves the file byte for byte as it was', async () => {
    const st = store();
    const s = variedSession(newSession(st), 10);
    await st.save(s);
    const written = await readFile(fileOf(s), 'utf8');
    const other = store();
    const loaded = await other.load(s.id);
    expect(await checksDuring(() => other.save(loaded))).toEqual({ messages: 0, meta: 0 });
    expect(await readFile(fileOf(s), 'utf8')).toBe(written);
  });

  it("only a block's type is checked by the schema (the in-place guard in validatedHistory.ts relies on it)", () => {
    // If this fails, the block schema now reads more than `type`: extend isUnchangedMessage's per-block
    // comparison in validatedHistory.ts to the newly checked fields before changing this test.
    const base = newSession(store());
    const s = {
      ...base,
      messages: [{ role: 'user', content: [{ type: 'text', text: 42, source: null, content: 'x' }] }],
      message_meta: [{ source: 'local', timestamp: at() }],
    };
    expect(SessionFile.safeParse(s).success).toBe(true);
  });
});
