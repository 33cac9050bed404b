// Snapshots saved for `rein ax`: private files, `latest`, refs carried from one snapshot to the next,
// re-matched refs written back, clear errors for missing or damaged snapshots, and only the newest kept.
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RefTable } from '../../../src-main/core/ax/refs.js';
import { newSnapshotId, SnapshotStore, SNAPSHOTS_KEPT } from '../../../src-main/core/ax/snapshotStore.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'rein-axstore-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const result = (names: string[]) => ({
  app: { name: 'A', pid: 1 },
  windows: [],
  truncated: false,
  elements: names.map((n, i) => ({
    id: `id-${n}`,
    role: 'button' as const,
    name: n,
    parent: -1,
    depth: 0,
    bounds: [i, 0, 1, 1] as [number, number, number, number],
  })),
});

describe('SnapshotStore', () => {
  it('saves privately, names the latest, and carries refs into the next snapshot', async () => {
    const store = new SnapshotStore(join(root, 'ax', 'snapshots'));
    const t1 = await store.tableForNext();
    const v1 = t1.ingestSnapshot(
      result(['Save', 'Open']),
      newSnapshotId(new Date(2026, 10, 29, 15, 30, 12), () => 0.5),
    );
    expect(v1.id).toBe('s-20261129-153012-8000');
    await store.save('snapshot', v1, t1);
    expect((await stat(store.dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(store.dir, `${v1.id}.json`))).mode & 0o777).toBe(0o600);
    expect(await store.latestId()).toBe(v1.id);
    const t2 = await store.tableForNext();
    const v2 = t2.ingestSnapshot(result(['Open', 'Close']), newSnapshotId());
    expect(v2.elements.map((e) => e.ref)).toEqual(['e2', 'e3']);
    await store.save('snapshot', v2, t2);
    const loaded = await store.load(v1.id);
    expect(RefTable.fromJSON(loaded.refs).target('e1').name).toBe('Save');
  });

  it('writes back a re-matched ref', async () => {
    const store = new SnapshotStore(root);
    const t = new RefTable();
    const v = t.ingestSnapshot(result(['Save']), newSnapshotId());
    await store.save('snapshot', v, t);
    t.noteActedOn('e1', { id: 'id-Save-2', role: 'button', name: 'Save', bounds: null, resolved_by: 'rematch' });
    await store.updateRefs(v.id, t);
    expect(RefTable.fromJSON((await store.load()).refs).target('e1').id).toBe('id-Save-2');
  });

  it('says what is wrong with a missing, malformed or damaged snapshot', async () => {
    const store = new SnapshotStore(root);
    await expect(store.load()).rejects.toMatchObject({
      code: 'NOT_FOUND',
      hint: expect.stringContaining('rein ax snapshot'),
    });
    await expect(store.load('../../etc/passwd')).rejects.toMatchObject({ code: 'INVALID' });
    await expect(store.load('s-20260101-000000-0000')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await writeFile(join(root, 's-20260101-000000-0000.json'), '{"version":1}');
    await expect(store.load('s-20260101-000000-0000')).rejects.toMatchObject({
      code: 'INVALID',
      message: expect.stringContaining('damaged'),
    });
  });

  it(`keeps the newest ${SNAPSHOTS_KEPT}`, async () => {
    const store = new SnapshotStore(root);
    const t = new RefTable();
    for (let i = 0; i < SNAPSHOTS_KEPT + 3; i++) {
      const v = t.ingestSnapshot(result(['x']), newSnapshotId(new Date(2026, 0, 1, 0, 0, i)));
      await store.save('snapshot', v, t);
    }
    const files = (await readdir(root)).filter((n) => n.endsWith('.json'));
    expect(files).toHaveLength(SNAPSHOTS_KEPT);
  });
});
