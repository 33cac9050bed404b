/**
 * Damaged files through the real CLI (issue 26, item 6): a page of garbage inside rein.db (its 100-byte
 * header intact) is found by `rein sessions list` / `search`, which move the index aside as
 * `rein.db.corrupt-<time>` (kept) and rebuild it from the session files, and answer; a session file
 * that is not valid UTF-8 is listed DAMAGED, and continuing it is refused naming the file and the byte
 * offset — the file is never rewritten.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { paths } from '../../src-main/core/config/paths.js';
import { SessionStore } from '../../src-main/core/sessions/store.js';
import { cliWorld, rein } from '../support/cli.js';
import { text, type FakeAnthropic } from '../support/fakeAnthropic.js';

let fake: FakeAnthropic;
let home: string;
let cwd: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  ({ fake, home, cwd, env } = await cliWorld());
});
afterEach(async () => {
  await fake.close();
});

/** `n` sessions written as runs write them; the first one talks about glaciers. */
async function sessions(n: number): Promise<string[]> {
  const store = new SessionStore(paths.sessionsDir(home, 'default'));
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const s = store.create({ agent: 'default', cwd, source: 'cli', title: i === 0 ? 'glacier hike' : `errand ${i}` });
    const words = i === 0 ? 'plan a glacier hike in the alps' : `errand number ${i} ${'ordinary words '.repeat(80)}`;
    s.messages.push(
      { role: 'user', content: [{ type: 'text', text: words }] },
      { role: 'assistant', content: [{ type: 'text', text: `done ${i}` }] },
    );
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
    s.message_meta.push({ source: 'cli', timestamp: at }, { source: 'cli', timestamp: at });
    await store.save(s);
    ids.push(s.id);
  }
  return ids;
}

function page(name: string): { page: number; size: number } {
  const db = new Database(join(home, 'rein.db'), { readonly: true });
  try {
    const { rootpage } = db.prepare(`SELECT rootpage FROM sqlite_schema WHERE name = ?`).get(name) as {
      rootpage: number;
    };
    return { page: rootpage, size: db.pragma('page_size', { simple: true }) as number };
  } finally {
    db.close();
  }
}

async function garbage({ page: p, size }: { page: number; size: number }): Promise<void> {
  expect(p).toBeGreaterThan(1); // page 1 holds the header, which stays
  const file = join(home, 'rein.db');
  const bytes = await readFile(file);
  bytes.fill(0x5a, (p - 1) * size, p * size);
  await writeFile(file, bytes);
}

const corruptCopies = async () => (await readdir(home)).filter((n) => /^rein\.db\.corrupt-[\dT-]+Z$/.test(n));

describe('rein.db damaged inside', () => {
  it('rein sessions list finds the damage, keeps the damaged copy, rebuilds and lists every session', async () => {
    const ids = await sessions(40);
    expect((await rein(['sessions', 'list', '--limit', '100'], { env, cwd })).code).toBe(0);
    await garbage(page('sessions'));

    const list = await rein(['sessions', 'list', '--json', '--limit', '100'], { env, cwd });
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ id: string }>).map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(list.stderr).toMatch(
      /rein: the search index was damaged: kept as \S+rein\.db\.corrupt-\S+, and rebuilt from the session files/,
    );
    expect(await corruptCopies()).toHaveLength(1);
    // Rebuilt: the next listing has nothing to repair.
    const again = await rein(['sessions', 'list', '--limit', '100'], { env, cwd });
    expect(again.stderr).toBe('');
    expect(await corruptCopies()).toHaveLength(1);
  });

  it('rein sessions search finds damage in the full-text index, rebuilds and finds the session', async () => {
    const [glacier] = await sessions(40);
    expect((await rein(['sessions', 'list'], { env, cwd })).code).toBe(0);
    await garbage(page('conversation_words_data'));

    const search = await rein(['sessions', 'search', 'glacier', '--json'], { env, cwd });
    expect(search.code, search.stderr).toBe(0);
    expect((JSON.parse(search.stdout) as Array<{ session_id: string }>).map((h) => h.session_id)).toEqual([glacier]);
    expect(await corruptCopies()).toHaveLength(1);
    const list = await rein(['sessions', 'list', '--json', '--limit', '100'], { env, cwd });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toHaveLength(40);
  });
});

describe('a session file that is not valid UTF-8', () => {
  it('is listed DAMAGED, and continuing it is refused naming the file and the byte offset; the file is never rewritten', async () => {
    fake.enqueue(text('Café au lait, coming up.'));
    expect((await rein(['run', 'one café au lait please'], { env, cwd })).code).toBe(0);
    const dir = join(home, 'sessions');
    const [name] = (await readdir(dir)).filter((n) => n.endsWith('.json'));
    const id = name!.slice(0, -5);
    const file = join(dir, name!);
    const good = await readFile(file);
    const at = good.indexOf(Buffer.from('café au lait please')) + 3;
    const bad = Buffer.concat([good.subarray(0, at), Buffer.from([0xff]), good.subarray(at + 2)]);
    await writeFile(file, bad);

    const list = await rein(['sessions', 'list'], { env, cwd });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${id} .* DAMAGED: not valid UTF-8 at byte ${at}`, 'm'));

    fake.enqueue(text('never asked'));
    const cont = await rein(['run', '--session', id, 'and a croissant'], { env, cwd });
    expect(cont.code).toBe(1);
    expect(cont.stderr).toContain(`rein: ${file}: not valid UTF-8 at byte ${at}`);
    const show = await rein(['sessions', 'show', id], { env, cwd });
    expect(show.code).toBe(1);
    expect(show.stderr).toContain(`not valid UTF-8 at byte ${at}`);
    expect((await readFile(file)).equals(bad)).toBe(true);
  });
});
