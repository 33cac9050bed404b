/**
 * Long sessions (issue 26, item 7): a file above the size from which the store reads a message at a
 * time (sessionJson.ts) loads, saves and fails exactly as a small one does — the same file bytes, the
 * same errors naming the file — and a long-lived process hands the very object of a session too large
 * to keep to the next load while it still has it, without keeping any copy of it itself. Real files in
 * a temp folder; memory is measured by `npm run bench -- sessions`, not here.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isReinError, type ReinError } from '../../../src-main/core/errors.js';
import { SessionCache } from '../../../src-main/core/sessions/sessionCache.js';
import { PAGED_PARSE_FROM_BYTES } from '../../../src-main/core/sessions/sessionJson.js';
import { sessionSnapshot } from '../../../src-main/core/sessions/snapshot.js';
import { SessionStore } from '../../../src-main/core/sessions/store.js';
import { SessionFile, type SessionMessage } from '../../../src-main/core/sessions/types.js';

let dir: string;
let clock: number;
const now = () => new Date(clock);
beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'rein-large-')), 'sessions');
  clock = Date.UTC(2026, 2, 8, 12, 0, 0);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(join(dir, '..'), { recursive: true, force: true });
});

const fileOf = (s: SessionFile) => join(dir, `${s.id}.json`);
const push = (s: SessionFile, m: SessionMessage) => {
  s.messages.push(m);
  s.message_meta.push({ source: 'cli', timestamp: now().toISOString() });
};

/** A coding session of `results` tool results of 40 KB each: past 1 MB with 30 of them. */
function longSession(st: SessionStore, results = 30): SessionFile {
  const s = st.create({ agent: 'default', cwd: '/work', source: 'cli', title: 'Long “one”' });
  push(s, { role: 'user', content: [{ type: 'text', text: 'refactor the store ✓' }] });
  for (let i = 0; i < results; i++) {
    push(s, {
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'file_read', input: { path: `src/f${i}.ts` } }],
    });
    push(s, {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: `toolu_${i}`, content: `${i}: const "x" = \\ ✓ 😀\n`.repeat(1_600) },
      ],
    });
  }
  push(s, { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
  s.context = { deferred: { loaded: [] } };
  return s;
}

async function failure(p: Promise<unknown>): Promise<ReinError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isReinError(e)).toBe(true);
  return e as ReinError;
}

describe('a session file past the size read a message at a time', () => {
  it('is written exactly as JSON.stringify writes it, and loads back equal, from the file', async () => {
    const st = new SessionStore(dir, { now });
    const s = longSession(st);
    await st.save(s);
    const text = await readFile(fileOf(s), 'utf8');
    expect((await stat(fileOf(s))).size).toBeGreaterThan(PAGED_PARSE_FROM_BYTES);
    // The format other programs read: one 2-space JSON document of the validated session.
    expect(text).toBe(`${JSON.stringify(SessionFile.parse(JSON.parse(text)), null, 2)}\n`);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(s)));
    const loaded = await new SessionStore(dir).load(s.id);
    expect(loaded).toEqual(JSON.parse(text));
    // Loaded and saved again unchanged (same clock): the same bytes.
    await new SessionStore(dir, { now }).save(loaded);
    expect(await readFile(fileOf(s), 'utf8')).toBe(text);
  });

  it("cut short, it is session_corrupt with the whole-text parse's own words, naming the file", async () => {
    const st = new SessionStore(dir, { now });
    const s = longSession(st);
    await st.save(s);
    const text = await readFile(fileOf(s), 'utf8');
    const cut = text.slice(0, Math.floor(text.length * 0.7));
    await writeFile(fileOf(s), cut);
    let words = '';
    try {
      JSON.parse(cut);
    } catch (e) {
      words = (e as Error).message;
    }
    const e = await failure(new SessionStore(dir).load(s.id));
    expect(e.code).toBe('session_corrupt');
    expect(e.message).toBe(`${fileOf(s)}: not valid JSON: ${words}`);
    expect(await readFile(fileOf(s), 'utf8')).toBe(cut);
  });

  it('with a message that fails validation, it names the file and the field', async () => {
    const st = new SessionStore(dir, { now });
    const s = longSession(st);
    await st.save(s);
    const json = JSON.parse(await readFile(fileOf(s), 'utf8')) as { messages: Array<{ role: string }> };
    json.messages[7]!.role = 'robot';
    await writeFile(fileOf(s), JSON.stringify(json, null, 2));
    const e = await failure(new SessionStore(dir).load(s.id));
    expect(e.code).toBe('session_corrupt');
    expect(e.message.startsWith(`${fileOf(s)}: messages[7].role: `)).toBe(true);
    expect(e.details).toMatchObject({ file: fileOf(s), field: 'messages[7].role' });
  });

  it('not valid UTF-8, it is refused naming the byte, as a small file is', async () => {
    const st = new SessionStore(dir, { now });
    const s = longSession(st);
    await st.save(s);
    const good = await readFile(fileOf(s));
    const at = good.indexOf(Buffer.from('✓'), 1_000_000);
    const bad = Buffer.concat([good.subarray(0, at), Buffer.from([0xe2, 0x9c]), good.subarray(at + 3)]);
    await writeFile(fileOf(s), bad);
    const e = await failure(new SessionStore(dir).load(s.id));
    expect(e.message).toBe(`${fileOf(s)}: not valid UTF-8 at byte ${at}`);
  });

  it('a message JSON cannot hold fails the save as invalid_input, leaving the file and no temp file', async () => {
    const st = new SessionStore(dir, { now });
    const s = longSession(st);
    await st.save(s);
    const before = await readFile(fileOf(s));
    // Blocks keep every field as found (types.ts): a value JSON cannot hold is only found when written.
    push(s, { role: 'user', content: [{ type: 'text', text: 'x', extra: 1n } as never] });
    const e = await failure(st.save(s));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toMatch(new RegExp(`^session ${s.id}: cannot serialise: .*BigInt`));
    expect((await readFile(fileOf(s))).equals(before)).toBe(true);
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });
});

describe('a long-lived process and a session too large to keep', () => {
  /** A cache for which the long session is too large (the 32 MB default makes it 8 MB and up). */
  const small = () => new SessionCache(1_000_000);

  it('keeps no copy of it, yet hands the released object to the next load, which reads nothing', async () => {
    const cache = small();
    const st = new SessionStore(dir, { now, cache });
    const s = longSession(st);
    await st.save(s);
    expect((await stat(fileOf(s))).size).toBeGreaterThan(cache.entryLimit);
    expect(cache.recall(fileOf(s))).toBeUndefined();
    st.release(s);
    const parse = vi.spyOn(JSON, 'parse');
    const loaded = await new SessionStore(dir, { now, cache }).load(s.id);
    expect(loaded).toBe(s);
    expect(parse).not.toHaveBeenCalled();
    // Taken: a second load at the same time reads its own copy from the file.
    const second = await new SessionStore(dir, { now, cache }).load(s.id);
    expect(second).not.toBe(s);
    expect(second).toEqual(JSON.parse(JSON.stringify(s)));
  });

  it('not after another writer changed the file, nor after the object changed since its save', async () => {
    const cache = small();
    const st = new SessionStore(dir, { now, cache });
    const s = longSession(st);
    await st.save(s);
    st.release(s);
    const other = await new SessionStore(dir, { now }).load(s.id);
    other.title = 'changed elsewhere';
    clock += 60_000;
    await new SessionStore(dir, { now }).save(other);
    const afterOther = await st.load(s.id);
    expect(afterOther).not.toBe(s);
    expect(afterOther.title).toBe('changed elsewhere');

    await st.save(afterOther);
    st.release(afterOther);
    // Nobody should, but a holder changing it after its release makes it not what the save wrote.
    afterOther.messages[3] = { role: 'user', content: 'edited after release' };
    const fromFile = await st.load(afterOther.id);
    expect(fromFile).not.toBe(afterOther);
    expect(fromFile.messages[3]).not.toEqual({ role: 'user', content: 'edited after release' });
  });

  it('a save of it gathers no copy of its bytes once one save found it too large', async () => {
    const cache = small();
    const st = new SessionStore(dir, { now, cache });
    const s = longSession(st);
    await st.save(s);
    expect(cache.wantsBytes(fileOf(s))).toBe(false);
    const from = vi.spyOn(Buffer, 'from');
    push(s, { role: 'user', content: 'one more' });
    await st.save(s);
    // Buffer.from(buffer) is how the store copies a written piece for the cache.
    expect(from.mock.calls.filter(([a]) => Buffer.isBuffer(a))).toEqual([]);
    expect(existsSync(fileOf(s))).toBe(true);
  });
});

describe('sessionSnapshot', () => {
  it('is equal, shares the strings, and does not follow what a later run does to the session', () => {
    const st = new SessionStore(dir, { now });
    const s = longSession(st, 3);
    const snap = sessionSnapshot(s);
    expect(snap).toEqual(s);
    const result = (m: SessionMessage) => (m.content as Array<{ content: string }>)[0]!.content;
    expect(result(snap.messages[2]!)).toBe(result(s.messages[2]!));
    const before = JSON.stringify(snap);
    push(s, { role: 'user', content: 'later' });
    s.messages[1]!.content = [{ type: 'text', text: 'merged' }];
    (s.messages[2]!.content as unknown[]).push({ type: 'text', text: 'appended' });
    s.message_meta[0]!.injected = true;
    s.usage.requests = 99;
    s.title = 'renamed';
    expect(JSON.stringify(snap)).toBe(before);
  });
});
