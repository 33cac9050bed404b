/**
 * Interrupted saves: temp files (`.<id>.json.<pid>.<n>.tmp`) of writers that were killed are settled
 * when a store lists its sessions or a run takes a session's lock — a newer complete one recovered as
 * the session (the file it replaces kept), any other moved to leftovers/ — and always reported. Temp
 * files of live processes are writes in progress and are left alone.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LeftoverNote } from '../../../src-main/core/sessions/leftovers.js';
import { SessionStore } from '../../../src-main/core/sessions/store.js';
import type { SessionFile } from '../../../src-main/core/sessions/types.js';
import { acquireOwnedLock } from '../../../src-main/core/util/ownedLock.js';

let root: string;
let dir: string;
let notes: LeftoverNote[];
let clock: number;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'rein-leftovers-'));
  dir = join(root, 'sessions');
  notes = [];
  clock = Date.UTC(2026, 2, 8, 12, 0, 0);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const store = () => new SessionStore(dir, { now: () => new Date(clock), onLeftover: (n) => notes.push(n) });

/** The pid of a process that has ended (spawned, exited and reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.on('close', r));
  return child.pid!;
}

async function savedSession(turns: number): Promise<SessionFile> {
  const st = new SessionStore(dir, { now: () => new Date(clock) });
  const s = st.create({ agent: 'default', cwd: '/w', source: 'cli' });
  for (let i = 0; i < turns; i++) addTurn(s, `question ${i}`, `answer ${i}`);
  await st.save(s);
  return JSON.parse(await readFile(join(dir, `${s.id}.json`), 'utf8')) as SessionFile;
}

function addTurn(s: SessionFile, q: string, a: string): void {
  const at = new Date(clock).toISOString();
  s.messages.push({ role: 'user', content: q }, { role: 'assistant', content: [{ type: 'text', text: a }] });
  s.message_meta.push({ source: 'cli', timestamp: at }, { source: 'cli', timestamp: at });
}

/** A version of `s` one turn further, saved later: what a killed writer had fsynced but not renamed. */
function newerVersion(s: SessionFile): SessionFile {
  const next = structuredClone(s);
  addTurn(next, 'the interrupted question', 'the interrupted answer');
  next.updated_at = new Date(clock + 60_000).toISOString();
  return next;
}

const tempName = (id: string, pid: number, n = 0) => `.${id}.json.${pid}.${n.toString(36)}.tmp`;
const json = (s: SessionFile) => `${JSON.stringify(s, null, 2)}\n`;

describe('interrupted saves of dead writers', () => {
  it('recovers a newer complete temp file as the session when the folder is listed, keeping the file it replaced', async () => {
    const old = await savedSession(1);
    const pid = await deadPid();
    const temp = join(dir, tempName(old.id, pid));
    await writeFile(temp, json(newerVersion(old)), { mode: 0o600 });

    const listed = await store().list();

    expect(listed.map((s) => [s.id, s.messageCount])).toEqual([[old.id, 4]]);
    expect(existsSync(temp)).toBe(false);
    const now = await store().load(old.id);
    expect(JSON.stringify(now.messages)).toContain('the interrupted answer');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ id: old.id, kind: 'recovered' });
    expect(notes[0]!.message).toContain(`recovered session ${old.id} from an interrupted save`);
    // The version it replaced is kept, byte for byte.
    const kept = JSON.parse(await readFile(notes[0]!.replaced!, 'utf8')) as SessionFile;
    expect(kept).toEqual(old);
    expect(notes[0]!.replaced!.startsWith(join(dir, 'leftovers'))).toBe(true);
  });

  it('reports it once: a second listing finds nothing left to settle', async () => {
    const old = await savedSession(1);
    await writeFile(join(dir, tempName(old.id, await deadPid())), json(newerVersion(old)));
    await store().list();
    await store().listWithDamaged();
    expect(notes.map((n) => n.kind)).toEqual(['recovered']);
  });

  it('moves a cut-short temp file to leftovers/ and leaves the session as it was', async () => {
    const old = await savedSession(2);
    const before = await readFile(join(dir, `${old.id}.json`), 'utf8');
    const name = tempName(old.id, await deadPid(), 7);
    const whole = json(newerVersion(old));
    await writeFile(join(dir, name), whole.slice(0, Math.floor(whole.length / 2)));

    await store().listWithDamaged();

    expect(await readFile(join(dir, `${old.id}.json`), 'utf8')).toBe(before);
    expect(notes).toEqual([
      expect.objectContaining({ id: old.id, kind: 'damaged', file: join(dir, 'leftovers', name.slice(1)) }),
    ]);
    expect(notes[0]!.message).toMatch(/kept an incomplete copy .* \(not valid JSON/);
    expect(await readFile(join(dir, 'leftovers', name.slice(1)), 'utf8')).toBe(
      whole.slice(0, Math.floor(whole.length / 2)),
    );
    expect((await readdir(dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('moves a complete but older temp file to leftovers/ (the session file is newer)', async () => {
    const old = await savedSession(1);
    const stale = structuredClone(old);
    stale.updated_at = new Date(clock - 60_000).toISOString();
    stale.messages.pop();
    stale.message_meta.pop();
    stale.messages.pop();
    stale.message_meta.pop();
    const name = tempName(old.id, await deadPid());
    await writeFile(join(dir, name), json(stale));

    await store().list();

    expect((await store().load(old.id)).messages).toHaveLength(2);
    expect(notes).toEqual([expect.objectContaining({ kind: 'older', file: join(dir, 'leftovers', name.slice(1)) })]);
  });

  it('recovers a session whose only copy is the temp file (killed on its first save), and lists it', async () => {
    const s = await savedSession(1);
    const name = tempName(s.id, await deadPid());
    await writeFile(join(dir, name), json(s));
    await rm(join(dir, `${s.id}.json`));

    const listed = await store().list();

    expect(listed.map((x) => x.id)).toEqual([s.id]);
    expect(notes).toEqual([expect.objectContaining({ kind: 'recovered', id: s.id })]);
    expect(notes[0]!.replaced).toBeUndefined();
  });

  it('leaves the temp files of live processes alone (a save in progress)', async () => {
    const old = await savedSession(1);
    // The parent of this test process is alive for as long as the test runs.
    const name = tempName(old.id, process.ppid);
    await writeFile(join(dir, name), json(newerVersion(old)));

    await store().list();

    expect(existsSync(join(dir, name))).toBe(true);
    expect((await store().load(old.id)).messages).toHaveLength(2);
    expect(notes).toEqual([]);
  });

  it('settles the session when a run takes its lock, so the load that follows reads the recovered version', async () => {
    const old = await savedSession(1);
    await writeFile(join(dir, tempName(old.id, await deadPid())), json(newerVersion(old)));
    const st = store();

    const lock = await st.lock(old.id, { waitMs: 0 });
    try {
      expect((await st.load(old.id)).messages).toHaveLength(4);
    } finally {
      await lock.release();
    }
    expect(notes.map((n) => n.kind)).toEqual(['recovered']);
  });

  it('skips a session another process is writing: its writer settles it when it takes the lock', async () => {
    const old = await savedSession(1);
    const name = tempName(old.id, await deadPid());
    await writeFile(join(dir, name), json(newerVersion(old)));
    const held = await acquireOwnedLock(join(dir, `${old.id}.json.lock`), { waitMs: 0 });
    try {
      await store().list();
      expect(existsSync(join(dir, name))).toBe(true);
      expect(notes).toEqual([]);
    } finally {
      await held.release();
    }
    await store().list();
    expect(notes.map((n) => n.kind)).toEqual(['recovered']);
  });

  it('keeps a temp file that names another session aside as damaged, never as that session', async () => {
    const a = await savedSession(1);
    clock += 1000;
    const b = await savedSession(1);
    const name = tempName(a.id, await deadPid());
    // b's content in a temp file named for a: not a version of a.
    await writeFile(join(dir, name), json(newerVersion(b)));

    await store().list();

    expect((await store().load(a.id)).id).toBe(a.id);
    expect(notes).toEqual([expect.objectContaining({ id: a.id, kind: 'damaged' })]);
    expect(notes[0]!.message).toContain(`says ${b.id}`);
  });
});
