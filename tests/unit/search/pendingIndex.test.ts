// Sessions that `rein run` and schedule runs note instead of indexing: the next process that opens the
// index indexes them first, so a search still finds every finished run and a run never loads SQLite.
import { existsSync } from 'node:fs';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { paths } from '../../../src-main/core/config/paths.js';
import { notePendingIndex, pendingFile, PENDING_FILE_NAME, takePendingNotes } from '../../../src-main/core/search/pendingIndex.js';
import { SessionIndex } from '../../../src-main/core/search/sessionIndex.js';
import { makeTempHome, type TempHome } from './sessionFixtures.js';

let t: TempHome;
const open: SessionIndex[] = [];

async function openIndex(): Promise<SessionIndex> {
  const idx = await SessionIndex.open(t.home);
  open.push(idx);
  return idx;
}
const ids = (idx: SessionIndex, q: string, agent = 'default') => idx.search(q, { agent }).map((h) => h.sessionId);
const leftovers = async () => (await readdir(t.home)).filter((n) => n.startsWith(PENDING_FILE_NAME));

beforeEach(async () => {
  t = await makeTempHome();
});
afterEach(async () => {
  for (const idx of open.splice(0)) idx.close();
  await t.cleanup();
});

describe('sessions noted for the index', () => {
  it('are indexed by the next open, and the notes are gone after', async () => {
    // The index exists (built once), then two runs save sessions without opening it.
    (await openIndex()).close();
    open.length = 0;
    const a = await t.save({ turns: [{ user: 'Rotate the nginx certificates', answer: 'Done.' }] });
    const b = await t.save({ agent: 'ops', turns: [{ user: 'Check the nginx error log', answer: 'Clean.' }] });
    await notePendingIndex(t.home, { agent: 'default', id: a.id });
    await notePendingIndex(t.home, { agent: 'ops', id: b.id });
    await notePendingIndex(t.home, { agent: 'default', id: a.id }); // a resumed run notes it again

    const idx = await openIndex();
    expect(ids(idx, 'nginx')).toEqual([a.id]);
    expect(ids(idx, 'nginx', 'ops')).toEqual([b.id]);
    expect(await leftovers()).toEqual([]);
  });

  it('reach a long-lived index on its next catch-up (the daemon, the app)', async () => {
    const idx = await openIndex();
    const a = await t.save({ turns: [{ user: 'Summarise the quarterly budget', answer: 'Up 4%.' }] });
    await notePendingIndex(t.home, { agent: 'default', id: a.id });
    expect(ids(idx, 'budget')).toEqual([]);
    expect(await idx.catchUp()).toEqual({ indexed: 1, problems: [] });
    expect(ids(idx, 'budget')).toEqual([a.id]);
    expect(await idx.catchUp()).toEqual({ indexed: 0, problems: [] });
  });

  it('left taken by a process that died are taken again', async () => {
    (await openIndex()).close();
    open.length = 0;
    const a = await t.save({ turns: [{ user: 'Where is the invoice from March?', answer: 'In ~/Documents.' }] });
    await writeFile(`${pendingFile(t.home)}.taken-99999-abc-def`, `${JSON.stringify({ agent: 'default', id: a.id })}\n`);
    const idx = await openIndex();
    expect(ids(idx, 'invoice')).toEqual([a.id]);
    expect(await leftovers()).toEqual([]);
  });

  it('skip a line that is not a note, drop a session whose file is gone, and keep going', async () => {
    const idx = await openIndex();
    const gone = await t.save({ turns: [{ user: 'Draft the kubernetes upgrade plan', answer: 'Drafted.' }] });
    await idx.catchUp();
    await notePendingIndex(t.home, { agent: 'default', id: gone.id });
    expect(await idx.catchUp()).toMatchObject({ indexed: 1 });
    expect(ids(idx, 'kubernetes')).toEqual([gone.id]);

    const kept = await t.save({ turns: [{ user: 'Book the kubernetes training', answer: 'Booked.' }] });
    await rm(join(paths.sessionsDir(t.home), `${gone.id}.json`));
    await writeFile(pendingFile(t.home), `not json\n{"agent":"../etc","id":"x"}\n${JSON.stringify({ agent: 'default', id: gone.id })}\n${JSON.stringify({ agent: 'default', id: kept.id })}\n`);
    const taken = await takePendingNotes(t.home);
    expect(taken.notes.map((n) => n.id)).toEqual([gone.id, kept.id]);
    expect(taken.skipped).toHaveLength(2);
    // Not done(): the notes are still there for catchUp, which takes the taken file again.
    expect(await idx.catchUp()).toEqual({ indexed: 1, problems: [] });
    expect(ids(idx, 'kubernetes')).toEqual([kept.id]);
    expect(await leftovers()).toEqual([]);
  });

  it('refuses to note a session under a name that is not an agent name', async () => {
    await expect(notePendingIndex(t.home, { agent: '../x', id: '2026-03-08-abcdef012345' })).rejects.toThrow(/agent/);
    expect(existsSync(pendingFile(t.home))).toBe(false);
  });
});
