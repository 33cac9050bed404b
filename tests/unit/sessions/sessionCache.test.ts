import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionCache } from '../../../src-main/core/sessions/sessionCache.js';
import { SessionStore } from '../../../src-main/core/sessions/store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-scache-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('SessionCache', () => {
  it('recalls what was written while the file is that write, and forgets it once another writer changed it', async () => {
    const cache = new SessionCache();
    const file = join(dir, 's.json');
    await writeFile(file, '{"a":1}');
    cache.remember(file, '{"a":1}');
    expect(cache.recall(file)).toBe('{"a":1}');
    await writeFile(file, '{"a":22}');
    expect(cache.recall(file)).toBeUndefined();
    expect(cache.recall(file)).toBeUndefined();
  });

  it('stays within its size, oldest out', async () => {
    const cache = new SessionCache(400);
    const files = ['a', 'b', 'c'].map((n) => join(dir, `${n}.json`));
    for (const f of files) {
      await writeFile(f, 'x'.repeat(100));
      cache.remember(f, 'x'.repeat(100));
    }
    expect(files.map((f) => cache.recall(f) !== undefined)).toEqual([true, true, true]);
    const d = join(dir, 'd.json');
    await writeFile(d, 'y'.repeat(100));
    cache.remember(d, 'y'.repeat(100));
    await writeFile(join(dir, 'e.json'), 'z'.repeat(100));
    cache.remember(join(dir, 'e.json'), 'z'.repeat(100));
    // a was used least recently: it went first.
    expect(cache.recall(files[0]!)).toBeUndefined();
    expect(cache.recall(join(dir, 'e.json'))).toBe('z'.repeat(100));
  });

  it('behind a SessionStore: a load after a save returns the saved session, and a deleted session is gone', async () => {
    const cache = new SessionCache();
    const store = new SessionStore(dir, { cache });
    const s = store.create({ agent: 'default', cwd: dir, source: 'test', title: 'Cached' });
    s.messages.push({ role: 'user', content: 'hi' });
    s.message_meta.push({ source: 'test', timestamp: new Date().toISOString() });
    await store.save(s);
    const file = join(dir, `${s.id}.json`);
    expect(cache.recall(file)).toContain('"title": "Cached"');
    const loaded = await store.load(s.id);
    expect(loaded.messages).toEqual(s.messages);
    expect(loaded).not.toBe(s);
    await store.delete(s.id);
    expect(cache.recall(file)).toBeUndefined();
    await expect(store.load(s.id)).rejects.toMatchObject({ code: 'session_not_found' });
  });
});
