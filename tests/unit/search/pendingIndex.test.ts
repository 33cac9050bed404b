// Sessions that `rein run` and schedule runs note instead of indexing: the next process that opens the
// index indexes them first, so a search still finds every finished run and a run never loads SQLite.
import { existsSync } from 'node:fs';
import { readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { paths } from '../../../src-main/core/config/paths.js';
import {
  noteSavedSession,
  notePendingIndex,
  pendingFile,
  PENDING_FILE_NAME,
  takePendingNotes,
} from '../../../src-main/core/search/pendingIndex.js';
import { SessionIndex } from '../../../src-main/core/search/sessionIndex.js';
import { appendTurn, makeTempHome, type TempHome } from './sessionFixtures.js';

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
  for (const idx of open.splice(0)) idx.dispose();
  await t.cleanup();
});

describe('sessions noted for the index', () => {
  it('are indexed by the next open, and the notes are gone after', async () => {
    // The index exists (built once), then two runs save sessions without opening it.
    (await openIndex()).dispose();
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
    (await openIndex()).dispose();
    open.length = 0;
    const a = await t.save({ turns: [{ user: 'Where is the invoice from March?', answer: 'In ~/Documents.' }] });
    await writeFile(
      `${pendingFile(t.home)}.taken-99999-abc-def`,
      `${JSON.stringify({ agent: 'default', id: a.id })}\n`,
    );
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
    await writeFile(
      pendingFile(t.home),
      `not json\n{"agent":"../etc","id":"x"}\n${JSON.stringify({ agent: 'default', id: gone.id })}\n${JSON.stringify({ agent: 'default', id: kept.id })}\n`,
    );
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

describe('sessions noted as they are saved (noteSavedSession)', () => {
  const noteLines = async () =>
    existsSync(pendingFile(t.home)) ? (await readFile(pendingFile(t.home), 'utf8')).split('\n').filter(Boolean) : [];

  it('notes a session once, at its first save; a taker then reads what later saves wrote', async () => {
    (await openIndex()).dispose();
    open.length = 0;
    const s = await t.save({ turns: [{ user: 'Plan the lighthouse trip', answer: 'Planned.' }] });
    for (let i = 0; i < 3; i++) await noteSavedSession(t.home, { agent: 'default', id: s.id });
    expect(await noteLines()).toEqual([JSON.stringify({ agent: 'default', id: s.id })]);
    // A later save, with no note of its own (the run was killed after it): the taker reads the file as it is.
    appendTurn(s, { user: 'Add the ferry timetable', answer: 'Added.' }, 'cli', new Date().toISOString());
    await t.store().save(s);
    const idx = await openIndex();
    expect(ids(idx, 'ferry')).toEqual([s.id]);
  });

  it('notes a session again once its notes were taken, so a long-lived index reads what came after', async () => {
    const idx = await openIndex();
    const s = await t.save({ turns: [{ user: 'Compare the tandem bikes', answer: 'Compared.' }] });
    await noteSavedSession(t.home, { agent: 'default', id: s.id });
    expect(await idx.catchUp()).toMatchObject({ indexed: 1 });
    appendTurn(s, { user: 'And the folding recumbents', answer: 'Listed.' }, 'cli', new Date().toISOString());
    await t.store().save(s);
    await noteSavedSession(t.home, { agent: 'default', id: s.id });
    expect(await noteLines()).toHaveLength(1); // the taken file was removed; this is a new note
    expect(await idx.catchUp()).toMatchObject({ indexed: 1 });
    expect(ids(idx, 'recumbents')).toEqual([s.id]);
  });

  it('notes again when the notes were taken and a new file took the old one’s inode number', async () => {
    const s = await t.save({ turns: [{ user: 'x', answer: 'y' }] });
    await noteSavedSession(t.home, { agent: 'default', id: s.id });
    // Taken and replaced by another process's notes (file systems reuse a freed inode number at once).
    await rename(pendingFile(t.home), `${pendingFile(t.home)}.gone`);
    await rm(`${pendingFile(t.home)}.gone`);
    await writeFile(pendingFile(t.home), `${JSON.stringify({ agent: 'ops', id: s.id })}\n`);
    await noteSavedSession(t.home, { agent: 'default', id: s.id });
    expect(await noteLines()).toEqual([
      JSON.stringify({ agent: 'ops', id: s.id }),
      JSON.stringify({ agent: 'default', id: s.id }),
    ]);
  });

  it('skips a noted session whose file has not changed since it was indexed', async () => {
    const idx = await openIndex();
    const s = await t.save({ turns: [{ user: 'Water the basil', answer: 'Watered.' }] });
    await notePendingIndex(t.home, { agent: 'default', id: s.id });
    expect(await idx.catchUp()).toMatchObject({ indexed: 1 });
    await notePendingIndex(t.home, { agent: 'default', id: s.id });
    expect(await idx.catchUp()).toEqual({ indexed: 0, problems: [] });
    expect(await leftovers()).toEqual([]);
  });
});

describe('the folder check when the index opens (the safety net behind the notes)', () => {
  it('finds a session saved with no note at all (an older Rein, a process killed before its note)', async () => {
    (await openIndex()).dispose();
    open.length = 0;
    const s = await t.save({ turns: [{ user: 'Renew the passport', answer: 'Form filled.' }] });
    const o = await t.save({ agent: 'ops', turns: [{ user: 'Renew the TLS passport cert', answer: 'Renewed.' }] });
    const idx = await openIndex();
    expect(idx.opened.checked).toEqual({ files: 2, indexed: 2, removed: 0, problems: [] });
    expect(ids(idx, 'passport')).toEqual([s.id]);
    expect(ids(idx, 'passport', 'ops')).toEqual([o.id]);
  });

  it('reads a file that changed since it was indexed, drops one that is gone, and leaves the rest unread', async () => {
    const a = await t.save({ turns: [{ user: 'Prune the apple tree', answer: 'Pruned.' }] });
    const b = await t.save({ turns: [{ user: 'Sharpen the apple peeler', answer: 'Sharp.' }] });
    await t.save({ turns: [{ user: 'Unrelated', answer: 'Fine.' }] });
    (await openIndex()).dispose();
    open.length = 0;
    appendTurn(a, { user: 'Then mulch around the quince', answer: 'Mulched.' }, 'cli', new Date().toISOString());
    await t.store().save(a);
    await rm(join(paths.sessionsDir(t.home), `${b.id}.json`));
    const idx = await openIndex();
    expect(idx.opened.checked).toEqual({ files: 2, indexed: 1, removed: 1, problems: [] });
    expect(ids(idx, 'quince')).toEqual([a.id]);
    expect(ids(idx, 'apple')).toEqual([a.id]);
  });

  it('reports a damaged file and keeps what the index had of it', async () => {
    const a = await t.save({ turns: [{ user: 'Tune the cello', answer: 'Tuned.' }] });
    (await openIndex()).dispose();
    open.length = 0;
    await writeFile(join(paths.sessionsDir(t.home), `${a.id}.json`), '{"version": 1, "id": "cut sh');
    const idx = await openIndex();
    expect(idx.opened.checked).toMatchObject({ files: 1, indexed: 0, removed: 0 });
    expect(idx.opened.checked?.problems.map((p) => p.file)).toEqual([join(paths.sessionsDir(t.home), `${a.id}.json`)]);
    expect(ids(idx, 'cello')).toEqual([a.id]);
  });
});
