import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { folderAndEntries, StampCache, stampOf } from '../../../src-main/core/util/stampCache.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-stamp-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The next turn of the event loop: lookups in one turn share their file check. */
const nextTurn = () => new Promise<void>((ok) => setImmediate(ok));

function counting<T>(value: () => Promise<T>) {
  let loads = 0;
  return {
    load: () => {
      loads++;
      return value();
    },
    get loads() {
      return loads;
    },
  };
}

describe('stampOf', () => {
  it('changes when a file is written, created or removed, and not otherwise', async () => {
    const file = join(dir, 'a.md');
    const missing = stampOf([file]);
    expect(stampOf([file])).toBe(missing);
    await writeFile(file, 'one');
    const one = stampOf([file]);
    expect(one).not.toBe(missing);
    expect(stampOf([file])).toBe(one);
    await writeFile(file, 'two, longer');
    expect(stampOf([file])).not.toBe(one);
    await rm(file);
    expect(stampOf([file])).toBe(missing);
  });
});

describe('StampCache', () => {
  it('keeps a value while its files are unchanged and loads again once one changes', async () => {
    const file = join(dir, 'AGENT.md');
    await writeFile(file, 'v1');
    const cache = new StampCache<Promise<string>>();
    const { readFile } = await import('node:fs/promises');
    const c = counting(() => readFile(file, 'utf8'));
    expect(await cache.get('k', () => [file], c.load)).toBe('v1');
    await nextTurn();
    expect(await cache.get('k', () => [file], c.load)).toBe('v1');
    expect(c.loads).toBe(1);

    await writeFile(file, 'v2 edited');
    await nextTurn();
    expect(await cache.get('k', () => [file], c.load)).toBe('v2 edited');
    expect(c.loads).toBe(2);
  });

  it('sees a file appear where there was none, and a new entry in a followed folder', async () => {
    const skills = join(dir, 'skills');
    await mkdir(skills);
    const cache = new StampCache<Promise<number>>();
    let n = 0;
    const deps = () => [join(dir, 'CLAUDE.md'), ...folderAndEntries(skills)];
    await cache.get('k', deps, async () => ++n);
    await writeFile(join(dir, 'CLAUDE.md'), 'rules');
    await nextTurn();
    expect(await cache.get('k', deps, async () => ++n)).toBe(2);
    await mkdir(join(skills, 'new-skill'));
    await nextTurn();
    expect(await cache.get('k', deps, async () => ++n)).toBe(3);
    await nextTurn();
    expect(await cache.get('k', deps, async () => ++n)).toBe(3);
  });

  it('checks the files once per turn of the event loop: lookups made together see the same state', async () => {
    const file = join(dir, 'x');
    await writeFile(file, '1');
    const cache = new StampCache<Promise<number>>();
    let n = 0;
    await cache.get(
      'k',
      () => [file],
      async () => ++n,
    );
    await nextTurn();
    expect(
      await cache.get(
        'k',
        () => [file],
        async () => ++n,
      ),
    ).toBe(1);
    // Same turn as the lookup above: no new check yet…
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, '22');
    expect(
      await cache.get(
        'k',
        () => [file],
        async () => ++n,
      ),
    ).toBe(1);
    // …the next turn sees the edit.
    await nextTurn();
    expect(
      await cache.get(
        'k',
        () => [file],
        async () => ++n,
      ),
    ).toBe(2);
  });

  it('stamps before loading, so a file changed during the load is loaded again next time', async () => {
    const file = join(dir, 'racy.md');
    await writeFile(file, 'old');
    const cache = new StampCache<Promise<string>>();
    const first = await cache.get(
      'k',
      () => [file],
      async () => {
        const text = 'old';
        await writeFile(file, 'new, written while loading');
        return text;
      },
    );
    expect(first).toBe('old');
    await nextTurn();
    expect(
      await cache.get(
        'k',
        () => [file],
        async () => 'reloaded',
      ),
    ).toBe('reloaded');
  });

  it('shares one load between lookups made while it runs, and forgets a failed load', async () => {
    const cache = new StampCache<Promise<string>>();
    let calls = 0;
    let release!: (v: string) => void;
    const slow = () => {
      calls++;
      return new Promise<string>((ok) => (release = ok));
    };
    const a = cache.get('k', () => [], slow);
    const b = cache.get('k', () => [], slow);
    release('shared');
    expect(await Promise.all([a, b])).toEqual(['shared', 'shared']);
    expect(calls).toBe(1);

    await expect(
      cache.get(
        'bad',
        () => [],
        () => Promise.reject(new Error('broken file')),
      ),
    ).rejects.toThrow('broken file');
    await nextTurn();
    expect(
      await cache.get(
        'bad',
        () => [],
        async () => 'fixed',
      ),
    ).toBe('fixed');
  });

  it('holds at most its bound of entries, dropping the least recently used', async () => {
    const cache = new StampCache<Promise<string>>(2);
    await cache.get(
      'a',
      () => [],
      async () => 'a',
    );
    await cache.get(
      'b',
      () => [],
      async () => 'b',
    );
    await cache.get(
      'a',
      () => [],
      async () => 'a again',
    );
    await cache.get(
      'c',
      () => [],
      async () => 'c',
    );
    expect(cache.stats.size).toBe(2);
    expect(
      await cache.get(
        'a',
        () => [],
        async () => 'reloaded',
      ),
    ).toBe('a');
    expect(
      await cache.get(
        'b',
        () => [],
        async () => 'b reloaded',
      ),
    ).toBe('b reloaded');
  });
});
