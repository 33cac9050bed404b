/**
 * Full-disk writes name their file (issue 26, item 2): the wording and codes of describeWriteError, and
 * on a real small tmpfs filled to the last byte, that an atomic write and a session save fail with the
 * file named, leave the old file byte for byte as it was, and leave no temp file behind.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReinError, isReinError } from '../../../src-main/core/errors.js';
import { SessionStore } from '../../../src-main/core/sessions/store.js';
import { atomicWriteFile } from '../../../src-main/core/util/atomicWrite.js';
import { boundedAppend } from '../../../src-main/core/memory/boundedAppend.js';
import { appendBeat, emptyBeat, heartbeatLogFile } from '../../../src-main/core/triggers/heartbeatLog.js';
import { describeWriteError, errnoOf, isDiskFull, isStorageFailure } from '../../../src-main/core/util/diskErrors.js';
import { mountSmallDisk, requireSmallDisk, smallDiskUnavailable, type SmallDisk } from '../../support/smallDisk.js';

const nodeError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('describeWriteError', () => {
  it('says which file could not be written and why, as strerror words it', () => {
    const e = describeWriteError(nodeError('ENOSPC', 'ENOSPC: no space left on device, write'), '/h/sessions/x.json');
    expect(e).toBeInstanceOf(ReinError);
    expect(e.code).toBe('disk_full');
    expect(e.message).toBe('cannot write /h/sessions/x.json: no space left on device');
    expect(e.details).toMatchObject({ file: '/h/sessions/x.json', errno: 'ENOSPC' });
  });

  it("takes the caller's action, and keeps errno and reason when an error it made is worded again", () => {
    const inner = describeWriteError(nodeError('EDQUOT', 'EDQUOT: disk quota exceeded, fsync'), '/h/s.json');
    const outer = describeWriteError(inner, '/h/s.json', 'save session S to /h/s.json');
    expect(outer.message).toBe('cannot save session S to /h/s.json: disk quota exceeded');
    expect(outer.code).toBe('disk_full');
    expect(errnoOf(outer)).toBe('EDQUOT');
    expect(isDiskFull(outer)).toBe(true);
  });

  it("calls other failures io_error, with Node's syscall suffix dropped", () => {
    expect(describeWriteError(nodeError('EIO', 'EIO: i/o error, write'), '/f').message).toBe(
      'cannot write /f: input/output error',
    );
    const odd = describeWriteError(
      nodeError('EXDEV', "EXDEV: cross-device link not permitted, rename '/a' -> '/b'"),
      '/f',
    );
    expect(odd.code).toBe('io_error');
    expect(odd.message).toBe('cannot write /f: cross-device link not permitted');
  });

  it("counts SQLite's full, I/O and read-only codes as storage failures, not its corruption", () => {
    for (const code of [
      'SQLITE_FULL',
      'SQLITE_IOERR_WRITE',
      'SQLITE_IOERR_SHMSIZE',
      'SQLITE_READONLY',
      'SQLITE_CANTOPEN',
      'ENOSPC',
      'EROFS',
    ]) {
      expect(isStorageFailure(nodeError(code, code)), code).toBe(true);
    }
    for (const code of ['SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_BUSY', 'ENOENT', 'EEXIST'])
      expect(isStorageFailure(nodeError(code, code)), code).toBe(false);
    // Looked for through a ReinError's cause, as the index's open errors wrap SQLite's.
    expect(
      isStorageFailure(
        new ReinError('internal', 'cannot open', {}, { cause: nodeError('SQLITE_FULL', 'database or disk is full') }),
      ),
    ).toBe(true);
  });
});

describe.skipIf(smallDiskUnavailable !== undefined && process.env.CI !== 'true')(
  `writes on a full disk${smallDiskUnavailable ? ` (skipped: ${smallDiskUnavailable})` : ''}`,
  () => {
    let disk: SmallDisk;
    beforeAll(async () => {
      requireSmallDisk();
      disk = await mountSmallDisk(1024 * 1024);
    });
    afterAll(() => disk?.unmount());

    it('an atomic write fails naming the file, keeps the old file byte for byte and leaves no temp file', async () => {
      const file = join(disk.dir, 'config.yaml');
      const before = Buffer.from('model: claude\n# ünïcode kept\n');
      await writeFile(file, before);
      await disk.fill();
      try {
        const err = await atomicWriteFile(file, 'model: other\n'.repeat(2000)).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isReinError(err, 'disk_full'), String(err)).toBe(true);
        expect((err as ReinError).message).toBe(`cannot write ${file}: no space left on device`);
        expect((err as ReinError).details?.file).toBe(file);
        expect((await readFile(file)).equals(before)).toBe(true);
        expect((await readdir(disk.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
      } finally {
        await disk.free();
      }
      // Room again: the same write goes through.
      await atomicWriteFile(file, 'model: other\n');
      expect(await readFile(file, 'utf8')).toBe('model: other\n');
    });

    it('a session save fails with "cannot save session S to FILE", and the saved session is unchanged', async () => {
      const store = new SessionStore(join(disk.dir, 'sessions'));
      const s = store.create({ agent: 'default', cwd: disk.dir, source: 'cli', title: 'kept' });
      s.messages.push({ role: 'user', content: [{ type: 'text', text: 'first words' }] });
      s.message_meta.push({ source: 'cli', timestamp: new Date().toISOString() });
      await store.save(s);
      const file = join(store.dir, `${s.id}.json`);
      const before = await readFile(file);
      await disk.fill();
      try {
        s.messages.push({ role: 'assistant', content: [{ type: 'text', text: 'x'.repeat(64 * 1024) }] });
        s.message_meta.push({ source: 'cli', timestamp: new Date().toISOString() });
        const err = await store.save(s).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isReinError(err, 'disk_full'), String(err)).toBe(true);
        expect((err as ReinError).message).toBe(`cannot save session ${s.id} to ${file}: no space left on device`);
        expect((await readFile(file)).equals(before)).toBe(true);
        expect((await readdir(store.dir)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
        // Still the session that was saved, for any reader.
        expect((await new SessionStore(store.dir).load(s.id)).messages).toHaveLength(1);
      } finally {
        await disk.free();
      }
    });
    it('a memory append fails naming MEMORY.md and leaves it as it was', async () => {
      const dir = join(disk.dir, 'memory');
      await boundedAppend(dir, '- the user likes tea');
      const file = join(dir, 'MEMORY.md');
      const before = await readFile(file);
      await disk.fill();
      try {
        await expect(boundedAppend(dir, `- ${'a long note '.repeat(500)}`)).rejects.toMatchObject({
          code: 'disk_full',
          message: `cannot write ${file}: no space left on device`,
        });
        expect((await readFile(file)).equals(before)).toBe(true);
      } finally {
        await disk.free();
      }
    });

    it('a heartbeat record the disk cuts short is cut off, so the next one is not glued to it', async () => {
      const home = join(disk.dir, 'hb');
      const file = heartbeatLogFile(home, 'ops');
      await mkdir(join(file, '..'), { recursive: true });
      // A log whose last page has a little room left: the next record fits only in part.
      const before = Buffer.from(`${'x'.repeat(4000)}\n`);
      await writeFile(file, before);
      await disk.fill();
      const beat = emptyBeat({
        at: new Date().toISOString(),
        day: '2026-03-08',
        agent: 'ops',
        trigger: 'timer',
        outcome: 'ok',
        message: 'm'.repeat(300),
      });
      try {
        await expect(appendBeat(home, beat)).rejects.toMatchObject({
          code: 'disk_full',
          message: `cannot write ${file}: no space left on device`,
        });
        expect((await readFile(file)).equals(before)).toBe(true);
      } finally {
        await disk.free();
      }
      await appendBeat(home, beat);
      const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
      expect(JSON.parse(lines.at(-1)!)).toMatchObject({ agent: 'ops', outcome: 'ok' });
    });
  },
);
