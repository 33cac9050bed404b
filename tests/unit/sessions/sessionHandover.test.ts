/**
 * A finished run hands its session object back to the store (SessionStore.release), and the next load
 * of that session takes that very object instead of parsing the file, but only while it is exactly what
 * the last save wrote and the file is still that save. Whether the object path was taken is seen
 * through identity and through JSON.parse calls, never through timing.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { isReinError } from '../../../src-main/core/errors.js';
import type { LlmClient, LlmEvent, ModelResponse } from '../../../src-main/core/llm/client.js';
import { createRuntime, startRun, type Runtime } from '../../../src-main/core/runtime/runtime.js';
import { RuntimeCache } from '../../../src-main/core/runtime/runtimeCache.js';
import { SessionCache } from '../../../src-main/core/sessions/sessionCache.js';
import { SessionStore } from '../../../src-main/core/sessions/store.js';
import type { SessionFile, SessionMessage } from '../../../src-main/core/sessions/types.js';
import { schemaCheckCounts } from '../../../src-main/core/sessions/validatedHistory.js';

let root: string;
let dir: string;
let clock: number;
const now = () => new Date(clock);
const at = () => now().toISOString();

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'rein-handover-'));
  dir = join(root, 'sessions');
  clock = Date.UTC(2026, 2, 8, 12, 0, 0);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(root, { recursive: true, force: true });
});

const storeWith = (cache: SessionCache) => new SessionStore(dir, { now, cache });
const fileOf = (s: SessionFile) => join(dir, `${s.id}.json`);
const nextTurn = () => new Promise<void>((ok) => setImmediate(ok));

function push(s: SessionFile, m: SessionMessage): void {
  s.messages.push(m);
  s.message_meta.push({ source: 'local', timestamp: at() });
}

function conversation(st: SessionStore, turns = 5, title = 'Handover'): SessionFile {
  const s = st.create({ agent: 'default', cwd: '/work', source: 'local', title });
  for (let i = 0; i < turns; i++) {
    push(s, { role: 'user', content: [{ type: 'text', text: `question ${i}` }] });
    push(s, { role: 'assistant', content: [{ type: 'text', text: `answer ${i}` }] });
  }
  return s;
}

/** What a load that parses the file returns: the file's content. */
async function fileContent(s: SessionFile): Promise<unknown> {
  return JSON.parse(await readFile(fileOf(s), 'utf8'));
}

/** Calls to JSON.parse made by `fn`, and its result. */
async function parsesDuring<T>(fn: () => Promise<T>): Promise<{ value: T; parses: number }> {
  const spy = vi.spyOn(JSON, 'parse');
  try {
    const value = await fn();
    return { value, parses: spy.mock.calls.length };
  } finally {
    spy.mockRestore();
  }
}

describe('SessionStore hands a released session to the next load', () => {
  it('after save and release, the next load is that very object, and neither reads nor parses the file', async () => {
    const cache = new SessionCache();
    const st = storeWith(cache);
    const s = conversation(st);
    await st.save(s);

    // Without a release, the load parses the saved bytes: the spy sees it.
    const parsed = await parsesDuring(() => st.load(s.id));
    expect(parsed.value).not.toBe(s);
    expect(parsed.parses).toBeGreaterThan(0);

    await st.save(s);
    st.release(s);
    const handed = await parsesDuring(() => storeWith(cache).load(s.id));
    expect(handed.value).toBe(s);
    expect(handed.parses).toBe(0);
    expect(JSON.parse(JSON.stringify(s))).toEqual(await fileContent(s));

    // As after any load, the next save checks only what changed since.
    const before = schemaCheckCounts();
    await st.save(s);
    push(s, { role: 'user', content: 'one more' });
    await st.save(s);
    const after = schemaCheckCounts();
    expect({ messages: after.messages - before.messages, meta: after.meta - before.meta }).toEqual({
      messages: 1,
      meta: 1,
    });
  });

  it("a load taken out of the store is the caller's: a second load at the same time gets its own equal copy", async () => {
    const cache = new SessionCache();
    const st = storeWith(cache);
    const s = conversation(st);
    await st.save(s);
    st.release(s);
    const [a, b] = await Promise.all([st.load(s.id), st.load(s.id)]);
    expect(a).toBe(s);
    expect(b).not.toBe(s);
    expect(b.messages[0]).not.toBe(s.messages[0]);
    expect(b).toEqual(a);
    // And nothing is left behind for a third.
    expect(await st.load(s.id)).not.toBe(s);
  });

  it('a session released without being saved since its load goes back as it is, and one released twice is held once', async () => {
    const cache = new SessionCache();
    const st = storeWith(cache);
    const s = conversation(st);
    await st.save(s);
    st.release(s);
    const taken = await st.load(s.id);
    st.release(taken);
    st.release(taken);
    expect(await st.load(s.id)).toBe(s);
    expect(await st.load(s.id)).not.toBe(s);
  });

  const changes: Array<[string, (s: SessionFile) => void]> = [
    ['a message pushed', (s) => push(s, { role: 'user', content: 'later' })],
    ['a message content replaced', (s) => void (s.messages[1]!.content = [{ type: 'text', text: 'rewritten' }])],
    ['a message replaced by an equal copy', (s) => void (s.messages[2] = structuredClone(s.messages[2]!))],
    [
      'two messages of the save swapped',
      (s) => void ([s.messages[0], s.messages[2]] = [s.messages[2]!, s.messages[0]!]),
    ],
    [
      'a block added to a message',
      (s) => void (s.messages[3]!.content as unknown[]).push({ type: 'text', text: 'more' }),
    ],
    ['a meta entry changed', (s) => void (s.message_meta[0]!.source = 'slack')],
    ['the title changed', (s) => void (s.title = 'Renamed')],
    ['the usage changed in place', (s) => void (s.usage.requests += 1)],
    ['the history array replaced', (s) => void (s.messages = [...s.messages])],
    ['the last message popped (with its meta)', (s) => void (s.messages.pop(), s.message_meta.pop())],
  ];

  for (const [what, change] of changes) {
    for (const when of ['before', 'after'] as const) {
      it(`is not handed over with ${what} ${when} its release; the load reads the file's content`, async () => {
        const cache = new SessionCache();
        const st = storeWith(cache);
        const s = conversation(st);
        await st.save(s);
        const written = await fileContent(s);
        if (when === 'before') change(s);
        st.release(s);
        if (when === 'after') change(s);
        const loaded = await st.load(s.id);
        expect(loaded).not.toBe(s);
        expect(loaded).toEqual(written);
      });
    }
  }

  it('a message another save checked, put in place of one this save wrote, is not taken for it', async () => {
    const cache = new SessionCache();
    const st = storeWith(cache);
    const other = conversation(st, 2);
    await st.save(other); // its messages are remembered as checked, unchanged since
    const s = conversation(st, 2);
    await st.save(s);
    const written = await fileContent(s);
    s.messages[1] = other.messages[1]!;
    st.release(s);
    const loaded = await st.load(s.id);
    expect(loaded).not.toBe(s);
    expect(loaded).toEqual(written);
  });

  it('a message changed and saved, then changed back after the save, is not taken for what the save wrote', async () => {
    const cache = new SessionCache();
    const st = storeWith(cache);
    const s = conversation(st, 2);
    await st.save(s);
    const original = s.messages[0]!.content;
    s.messages[0]!.content = [{ type: 'text', text: 'edited' }];
    await st.save(s);
    const written = await fileContent(s);
    s.messages[0]!.content = original;
    st.release(s);
    const loaded = await st.load(s.id);
    expect(loaded).not.toBe(s);
    expect(loaded).toEqual(written);
  });

  it("another writer changing the file: the file's content is loaded", async () => {
    const cache = new SessionCache();
    const st = storeWith(cache);
    const s = conversation(st);
    await st.save(s);
    st.release(s);
    const edited = { ...((await fileContent(s)) as SessionFile), title: 'Renamed by a CLI run elsewhere' };
    await writeFile(fileOf(s), `${JSON.stringify(edited, null, 2)}\n`);
    const loaded = await st.load(s.id);
    expect(loaded).not.toBe(s);
    expect(loaded.title).toBe('Renamed by a CLI run elsewhere');
  });

  const failures: Array<[string, (s: SessionFile) => void]> = [
    ['refused by validation', (s) => void ((s as unknown as { title: unknown }).title = 42)],
    ['not serialisable', (s) => void (s.context = { n: 1n })],
  ];
  for (const [why, spoil] of failures) {
    it(`a save that fails (${why}) leaves nothing to hand over, and the load reads the file`, async () => {
      const cache = new SessionCache();
      const st = storeWith(cache);
      const s = conversation(st);
      await st.save(s);
      const written = await fileContent(s);
      st.release(s);
      // Another copy of the same session fails to save: the file is untouched, its stamp the same.
      const copy = structuredClone(written) as SessionFile;
      spoil(copy);
      const before = await stat(fileOf(s));
      await expect(st.save(copy)).rejects.toSatisfy((e) => isReinError(e, 'invalid_input'));
      expect((await stat(fileOf(s))).mtimeMs).toBe(before.mtimeMs);
      expect(cache.recall(fileOf(s))).toBeUndefined();
      const loaded = await parsesDuring(() => st.load(s.id));
      expect(loaded.value).not.toBe(s);
      expect(loaded.value).toEqual(written);
      expect(loaded.parses).toBeGreaterThan(0);
    });
  }

  it('a held object counts toward the size bound as its bytes again, and eviction drops it with the bytes', async () => {
    // Three sessions whose files are the same size.
    const probe = new SessionStore(join(root, 'probe'), { now });
    const p = conversation(probe);
    await probe.save(p);
    const size = (await stat(join(root, 'probe', `${p.id}.json`))).size;

    const cache = new SessionCache(Math.floor(4.5 * size));
    const st = storeWith(cache);
    const [a, b, c] = [conversation(st), conversation(st), conversation(st)];
    await st.save(a);
    st.release(a); // 2 × size
    await st.save(b);
    st.release(b); // 4 × size
    await st.save(c); // 5 × size: a (bytes and object) goes; counted as bytes alone it would have stayed
    expect(cache.recall(fileOf(a))).toBeUndefined();
    const loadedA = await st.load(a.id);
    expect(loadedA).not.toBe(a);
    expect(loadedA).toEqual(await fileContent(a));
    expect(await st.load(b.id)).toBe(b);
  });
});

describe('startRun releases the session when its events are over', () => {
  const llm: LlmClient = {
    async *turn(): AsyncGenerator<LlmEvent, ModelResponse> {
      yield { type: 'text_delta', text: 'ok' };
      return {
        content: [{ type: 'text', text: 'ok' }],
        stopReason: 'end_turn',
        model: 'm',
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 },
      };
    },
  };

  async function runtime(cache: RuntimeCache | undefined): Promise<Runtime> {
    const home = join(root, 'home');
    const cwd = join(root, 'work');
    await mkdir(cwd, { recursive: true });
    await mkdir(home, { recursive: true });
    return createRuntime({
      home,
      cwd,
      env: {},
      config: GlobalConfig.parse({}),
      origin: 'attended',
      faces: [],
      llm,
      bundledSkillsDir: join(root, 'none'),
      ...(cache ? { cache } : {}),
    });
  }
  const start = (rt: Runtime, sessionId?: string) =>
    startRun(rt, {
      prompt: 'hello',
      cwd: join(root, 'work'),
      home: join(root, 'home'),
      signal: new AbortController().signal,
      ...(sessionId ? { sessionId } : {}),
    });

  it('on a normal end: same events and outcome, and the next run continues that very object', async () => {
    const rt = await runtime(new RuntimeCache());
    const release = vi.spyOn(rt.store, 'release');
    const { session, events } = await start(rt);
    const seen: string[] = [];
    let outcome;
    for (;;) {
      const step = await events.next();
      if (step.done) {
        outcome = step.value;
        break;
      }
      seen.push(step.value.type);
    }
    expect(outcome.stopReason).toBe('final');
    expect(seen[0]).toBe('session_start');
    expect(seen.at(-1)).toBe('session_end');
    expect(await events.next()).toEqual({ done: true, value: undefined });
    await nextTurn();
    expect(release).toHaveBeenCalledTimes(1);
    expect(release).toHaveBeenCalledWith(session);

    const next = await start(rt, session.id);
    expect(next.session).toBe(session);
    for await (const _ of next.events) void _;
    expect(session.messages.filter((m) => m.role === 'user')).toHaveLength(2);
    const onDisk = JSON.parse(await readFile(join(rt.store.dir, `${session.id}.json`), 'utf8'));
    expect(onDisk).toEqual(JSON.parse(JSON.stringify(session)));
  });

  it('on a failed save: the run ends with its error (a value, never a throw), and the session is released', async () => {
    const rt = await runtime(new RuntimeCache());
    const release = vi.spyOn(rt.store, 'release');
    vi.spyOn(rt.store, 'save').mockRejectedValueOnce(new Error('disk full'));
    const { session, events } = await start(rt);
    const seen: Array<{ type: string; code?: string; message?: string; stop_reason?: string }> = [];
    for await (const e of events) seen.push(e as (typeof seen)[number]);
    expect(seen.filter((e) => e.type === 'error')).toEqual([
      expect.objectContaining({ code: 'session_save_failed', message: expect.stringContaining('disk full') }),
    ]);
    expect(seen.at(-1)).toMatchObject({ type: 'session_end', stop_reason: 'error' });
    await nextTurn();
    expect(release).toHaveBeenCalledExactlyOnceWith(session);
  });

  it('on a throw from the consumer: it propagates, and the session is released', async () => {
    const rt = await runtime(new RuntimeCache());
    const release = vi.spyOn(rt.store, 'release');
    const { session, events } = await start(rt);
    expect((await events.next()).value).toMatchObject({ type: 'session_start' });
    await expect(events.throw(new Error('consumer gave up'))).rejects.toThrow('consumer gave up');
    await nextTurn();
    expect(release).toHaveBeenCalledExactlyOnceWith(session);
  });

  it('on an early return() from the consumer, before or after the first event', async () => {
    const rt = await runtime(new RuntimeCache());
    const release = vi.spyOn(rt.store, 'release');
    const first = await start(rt);
    expect(await first.events.return(undefined as never)).toEqual({ done: true, value: undefined });
    await nextTurn();
    expect(release).toHaveBeenCalledExactlyOnceWith(first.session);

    const second = await start(rt);
    for await (const ev of second.events) if (ev.type === 'session_start') break;
    await nextTurn();
    expect(release).toHaveBeenCalledTimes(2);
    expect(release).toHaveBeenLastCalledWith(second.session);
  });

  it('waits for the turn to end: what the consumer does on seeing the end still finds the session there', async () => {
    const rt = await runtime(new RuntimeCache());
    const release = vi.spyOn(rt.store, 'release');
    const { events } = await start(rt);
    for await (const _ of events) void _;
    await Promise.resolve();
    expect(release).not.toHaveBeenCalled();
    await nextTurn();
    expect(release).toHaveBeenCalledTimes(1);
  });

  it('a consumer done with the session releases it at once; before the end, or a second time, release does nothing', async () => {
    const rt = await runtime(new RuntimeCache());
    const storeRelease = vi.spyOn(rt.store, 'release');
    const run = await start(rt);
    expect((await run.events.next()).value).toMatchObject({ type: 'session_start' });
    run.release(); // not over yet: the run still uses its session
    expect(storeRelease).not.toHaveBeenCalled();
    for (;;) if ((await run.events.next()).done) break;
    run.release();
    expect(storeRelease).toHaveBeenCalledExactlyOnceWith(run.session);
    // The next load continues that very object, without waiting for the next turn.
    const next = await start(rt, run.session.id);
    expect(next.session).toBe(run.session);
    run.release();
    await nextTurn(); // the release the end scheduled finds it done
    expect(storeRelease).toHaveBeenCalledTimes(1);
    for await (const _ of next.events) void _;
  });

  it("without a cache (`rein run`), nothing is handed back to the store; only the session's writer lock goes", async () => {
    const rt = await runtime(undefined);
    const release = vi.spyOn(rt.store, 'release');
    const { session, events, release: releaseNow } = await start(rt);
    const lock = join(rt.store.dir, `${session.id}.json.lock`);
    // Held from the start of the run (sessions/sessionLock.ts) to its last save.
    expect(existsSync(lock)).toBe(true);
    for await (const _ of events) void _;
    releaseNow();
    await vi.waitFor(() => expect(existsSync(lock)).toBe(false));
    expect(release).not.toHaveBeenCalled();
  });
});
