/**
 * The search index on a disk that cannot take a write (issue 26, item 2), on a real small tmpfs: opening
 * it never fails because nothing can be written. Full with another process holding the index open (a
 * daemon): it opens and searches, and the sessions noted meanwhile wait for a disk with room. Full
 * with no index: built in memory from the session files, the file left alone. Read-only: read as it is, or built in memory.
 * Each case says once, naming the file, that the index could not be updated.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { notePendingIndex } from '../../../src-main/core/search/pendingIndex.js';
import { SessionIndex, indexFile } from '../../../src-main/core/search/sessionIndex.js';
import { mountSmallDisk, requireSmallDisk, smallDiskUnavailable, type SmallDisk } from '../../support/smallDisk.js';
import { makeTempHome, type TempHome } from './sessionFixtures.js';

const skip = smallDiskUnavailable !== undefined && process.env.CI !== 'true';
let disk: SmallDisk;
let t: TempHome;
const open: SessionIndex[] = [];
const track = (i: SessionIndex) => (open.push(i), i);

describe.skipIf(skip)(
  `the search index on a disk that cannot take a write${smallDiskUnavailable ? ` (skipped: ${smallDiskUnavailable})` : ''}`,
  () => {
    beforeAll(async () => {
      requireSmallDisk();
      disk = await mountSmallDisk(2 * 1024 * 1024);
    });
    afterAll(() => disk?.unmount());
    afterEach(async () => {
      for (const i of open.splice(0)) i.dispose();
      execFileSync('mount', ['-o', 'remount,rw', disk.dir]);
      await disk.free();
      await t.cleanup();
    });

    const ids = (hits: Array<{ sessionId: string }>) => hits.map((h) => h.sessionId);

    it('full, with the index held open elsewhere: opens, searches, and indexes the noted sessions once there is room', async () => {
      t = await makeTempHome(disk.dir);
      const old = await t.save({ turns: [{ user: 'orchid watering schedule', answer: 'twice a week' }] });
      const daemon = track(await SessionIndex.open(t.home));
      const later = await t.save({ turns: [{ user: 'orchid repotting', answer: 'in spring' }] });
      await notePendingIndex(t.home, { agent: 'default', id: later.id });

      await disk.fill();
      const cli = track(await SessionIndex.open(t.home));
      expect(ids(await cli.withRepair(() => cli.search('orchid', { agent: 'default' })))).toContain(old.id);
      if (cli.opened.notUpdated) {
        expect(cli.opened.notUpdated).toBe(
          `the search index ${indexFile(t.home)} could not be updated (no space left on device); sessions saved since are not in the results yet`,
        );
        // The note waits for the next opener (a taken file is taken again).
        expect((await readdir(t.home)).some((n) => n.startsWith('rein.db.pending'))).toBe(true);
      }
      cli.dispose();
      daemon.dispose();

      await disk.free();
      const after = track(await SessionIndex.open(t.home));
      expect(after.opened.notUpdated).toBeUndefined();
      expect(ids(after.search('orchid', { agent: 'default' })).sort()).toEqual([old.id, later.id].sort());
    });

    it('full, with no index yet: builds one in memory from the files and writes nothing', async () => {
      t = await makeTempHome(disk.dir);
      const s = await t.save({ turns: [{ user: 'volcano documentary', answer: 'ok' }] });
      await disk.fill();
      const index = track(await SessionIndex.open(t.home));
      expect(index.opened).toMatchObject({ inMemory: true });
      expect(index.opened.notUpdated).toBe(
        `the search index ${indexFile(t.home)} could not be written (no space left on device); it was built in memory from the session files for now`,
      );
      expect(ids(index.search('volcano', { agent: 'default' }))).toEqual([s.id]);
      expect(index.list().map((r) => r.id)).toEqual([s.id]);
      // At most an empty file was left where the index goes; nothing was indexed into it.
      if (existsSync(indexFile(t.home))) expect((await stat(indexFile(t.home))).size).toBe(0);
    });

    it('read-only: searches still answer, and the note says why the index was not updated', async () => {
      t = await makeTempHome(disk.dir);
      const s = await t.save({ turns: [{ user: 'saffron risotto', answer: 'ok' }] });
      track(await SessionIndex.open(t.home)).dispose();
      execFileSync('mount', ['-o', 'remount,ro', disk.dir]);
      const index = track(await SessionIndex.open(t.home));
      // Read as it is where SQLite can, else built in memory (a WAL index without its -shm cannot be read on a read-only disk).
      expect(index.opened.readOnly || index.opened.inMemory).toBe(true);
      expect(index.opened.notUpdated).toMatch(
        new RegExp(`^the search index ${indexFile(t.home)} could not be (updated|written) \\(read-only file system\\)`),
      );
      expect(ids(await index.withRepair(() => index.search('saffron', { agent: 'default' })))).toEqual([s.id]);
    });
  },
);
