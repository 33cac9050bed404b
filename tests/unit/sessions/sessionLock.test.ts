/**
 * One writer per session across processes (sessions/sessionLock.ts through SessionStore.lock): a
 * second writer waits for the first, is told who it waits for, and is refused with `session_busy`
 * naming the process when the wait runs out; a holder killed with SIGKILL gives the lock up at once.
 * The other writer is a real child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isReinError, type ReinError } from '../../../src-main/core/errors.js';
import type { LeftoverNote } from '../../../src-main/core/sessions/leftovers.js';
import { SessionCache } from '../../../src-main/core/sessions/sessionCache.js';
import { sessionWaitMs } from '../../../src-main/core/sessions/sessionLock.js';
import { SessionStore } from '../../../src-main/core/sessions/store.js';
import type { SessionFile } from '../../../src-main/core/sessions/types.js';

const CHILD = resolve(__dirname, '../../fixtures/sessions/sessionLockChild.ts');

let root: string;
let dir: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'rein-session-lock-'));
  dir = join(root, 'sessions');
});
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await rm(root, { recursive: true, force: true });
});

interface Child {
  proc: ChildProcess;
  line: (want: string) => Promise<void>;
  exited: Promise<number | null>;
  out: () => string;
}

/** The highest N of the "saved N" lines a `saves` child printed. */
function lastReported(c: Child): number {
  return Math.max(0, ...[...c.out().matchAll(/^saved (\d+)$/gm)].map((m) => Number(m[1])));
}

function child(id: string, ...args: string[]): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, id, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(proc);
  let out = '';
  let err = '';
  const waiters: Array<() => void> = [];
  proc.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const w of waiters.splice(0)) w();
  });
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((r) => proc.on('close', (code) => r(code)));
  const line = (want: string) =>
    new Promise<void>((ok, fail) => {
      const check = () => {
        if (out.split('\n').includes(want)) ok();
        else waiters.push(check);
      };
      void exited.then(() =>
        out.split('\n').includes(want) ? ok() : fail(new Error(`child exited without "${want}": ${err}`)),
      );
      check();
    });
  return { proc, line, exited, out: () => out };
}

async function savedSession(): Promise<SessionFile> {
  const st = new SessionStore(dir);
  const s = st.create({ agent: 'default', cwd: '/w', source: 'cli' });
  await st.save(s);
  return s;
}

async function rejection(p: Promise<unknown>): Promise<ReinError> {
  try {
    await p;
  } catch (e) {
    if (isReinError(e)) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('the session writer lock across processes', () => {
  it('refuses a second writer with session_busy naming the process that holds it, after saying it waits', async () => {
    const s = await savedSession();
    const holder = child(s.id, 'hold');
    await holder.line('locked');
    const told: string[] = [];

    const err = await rejection(new SessionStore(dir).lock(s.id, { waitMs: 300, onWait: (m) => told.push(m) }));

    expect(told).toEqual([`session ${s.id} is in use by rein run (pid ${holder.proc.pid}); waiting…`]);
    expect(err.code).toBe('session_busy');
    expect(err.message).toBe(
      `session ${s.id} is in use by rein run (pid ${holder.proc.pid}) and was not freed within 0.3 s; try again when its turn is over`,
    );
    expect(err.details).toMatchObject({ id: s.id, pid: holder.proc.pid });
  });

  it('lets the second writer in once the first lets go', async () => {
    const s = await savedSession();
    const holder = child(s.id, 'hold');
    await holder.line('locked');
    const store = new SessionStore(dir);
    let waiting!: () => void;
    const told = new Promise<void>((r) => (waiting = r));
    let got = false;
    const mine = store.lock(s.id, { waitMs: 30_000, onWait: () => waiting() }).then((l) => {
      got = true;
      return l;
    });
    await told;
    expect(got).toBe(false);
    holder.proc.stdin!.write('release\n');
    const lock = await mine;
    await lock.release();
    expect(await holder.exited).toBe(0);
  });

  it('takes the lock of a holder killed with SIGKILL at once (no wait)', async () => {
    const s = await savedSession();
    const holder = child(s.id, 'hold');
    await holder.line('locked');
    holder.proc.kill('SIGKILL');
    await holder.exited;
    const told: string[] = [];

    // waitMs 0: a live holder would be a refusal; a dead one is taken over.
    const lock = await new SessionStore(dir).lock(s.id, { waitMs: 0, onWait: (m) => told.push(m) });

    expect(told).toEqual([]);
    await lock.release();
  });

  it('continues from another process’s write, not from what this process remembers of the session', async () => {
    const cache = new SessionCache();
    const store = new SessionStore(dir, { cache });
    const s = store.create({ agent: 'default', cwd: '/w', source: 'cli' });
    const first = await store.lock(s.id, { newSession: true });
    await store.save(s);
    await first.release();
    store.release(s);

    const other = child(s.id, 'append', 'written elsewhere');
    await other.line('done');
    expect(await other.exited).toBe(0);

    const lock = await store.lock(s.id);
    try {
      const now = await store.load(s.id);
      expect(JSON.stringify(now.messages)).toContain('written elsewhere');
      expect(now).not.toBe(s);
    } finally {
      await lock.release();
    }
  });

  it('serialises two writers of one process too (two routes of one daemon on one session)', async () => {
    const s = await savedSession();
    const a = new SessionStore(dir);
    const b = new SessionStore(dir);
    const first = await a.lock(s.id);
    const told: string[] = [];
    let waiting!: () => void;
    const isWaiting = new Promise<void>((r) => (waiting = r));
    const second = b.lock(s.id, {
      onWait: (m) => {
        told.push(m);
        waiting();
      },
    });
    await isWaiting;
    expect(told[0]).toContain(`(pid ${process.pid}); waiting…`);
    await first.release();
    await (await second).release();
  });
});

describe('a writer killed with SIGKILL at random moments of its saves', () => {
  it('leaves the session whole with every reported save, and the next writer settles whatever temp file it left', async () => {
    for (let round = 0; round < 6; round++) {
      const s = await savedSession();
      const writer = child(s.id, 'saves');
      const saves = 1 + Math.floor(Math.random() * 6);
      await writer.line(`saved ${saves}`);
      // Somewhere in a later save: writing the temp file, syncing it, renaming it, or between saves.
      await new Promise((r) => setTimeout(r, Math.random() * 25));
      writer.proc.kill('SIGKILL');
      await writer.exited;
      const notes: LeftoverNote[] = [];
      const store = new SessionStore(dir, { onLeftover: (n) => notes.push(n) });

      // At once (no wait): its lock names a process that is gone.
      const lock = await store.lock(s.id, { waitMs: 0 });
      try {
        const turns = (await store.load(s.id)).messages.length / 2;
        // Every save it reported is there; at most the one it was killed after (renamed, not yet reported).
        expect(turns).toBeGreaterThanOrEqual(saves);
        expect([0, 1]).toContain(turns - Math.max(saves, lastReported(writer)));
      } finally {
        await lock.release();
      }
      const left = (await readdir(dir)).filter((n) => n.includes(`.${writer.proc.pid}.`));
      expect(left, 'no temp file of the killed writer stays in the folder').toEqual([]);
      for (const n of notes) expect(['recovered', 'older', 'damaged']).toContain(n.kind);
    }
  }, 120_000);
});

describe('REIN_SESSION_WAIT_MS', () => {
  it('is the wait in milliseconds, 30 s when unset or not a number', () => {
    expect(sessionWaitMs({})).toBe(30_000);
    expect(sessionWaitMs({ REIN_SESSION_WAIT_MS: '0' })).toBe(0);
    expect(sessionWaitMs({ REIN_SESSION_WAIT_MS: '1500' })).toBe(1500);
    expect(sessionWaitMs({ REIN_SESSION_WAIT_MS: 'soon' })).toBe(30_000);
  });
});
