/**
 * Snapshots saved for `rein ax`, so the refs one command printed work in the next: `<dir>/<id>.json`
 * (0600, in a 0700 folder) holds the snapshot's elements and the ref table as of it, and `<dir>/latest`
 * names the newest. A new snapshot starts from the latest table, so an element keeps its ref across
 * snapshots. The newest 20 are kept. `dir` is `<REIN_HOME>/ax/snapshots` (the CLI passes it).
 */
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { AxError } from './axError.js';
import { Ancestor, AppInfo, AxRole, Bounds, WireElement } from './protocol.js';
import { RefTable, type RefElement, type SnapshotView } from './refs.js';

export const SNAPSHOTS_KEPT = 20;
const ID_RE = /^s-[0-9]{8}-[0-9]{6}-[0-9a-f]{4}$/;

const RefEntryJson = z.object({
  ref: z.string(),
  id: z.string(),
  role: AxRole,
  name: z.string(),
  app: z.object({ pid: z.number().int(), name: z.string() }),
  ancestry: z.array(Ancestor),
  identifier: z.string().optional(),
  bounds: Bounds.nullable().optional(),
  snapshot: z.string(),
});

const SavedSnapshot = z.object({
  version: z.literal(1),
  id: z.string(),
  kind: z.enum(['snapshot', 'find', 'annotate']),
  taken_at: z.string(),
  app: AppInfo,
  windows: z.array(z.object({ id: z.string(), name: z.string() })),
  truncated: z.boolean(),
  elements: z.array(WireElement.extend({ ref: z.string(), ancestry: z.array(Ancestor) })),
  refs: z.object({ next: z.number().int(), entries: z.array(RefEntryJson) }),
});
export type SavedSnapshot = z.infer<typeof SavedSnapshot>;

export function newSnapshotId(now = new Date(), rand = Math.random): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const day = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}`;
  const time = `${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  return `s-${day}-${time}-${Math.floor(rand() * 0x10000)
    .toString(16)
    .padStart(4, '0')}`;
}

export class SnapshotStore {
  constructor(readonly dir: string) {}

  /** The table to give the next snapshot's refs from: the latest snapshot's, or a new one. */
  async tableForNext(): Promise<RefTable> {
    const latest = await this.latestId();
    if (!latest) return new RefTable();
    try {
      return RefTable.fromJSON((await this.load(latest)).refs);
    } catch {
      return new RefTable();
    }
  }

  async save(
    kind: SavedSnapshot['kind'],
    view: Pick<SnapshotView, 'id' | 'app' | 'windows' | 'truncated' | 'takenAt'> & { elements: RefElement[] },
    table: RefTable,
  ): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const saved: SavedSnapshot = {
      version: 1,
      id: view.id,
      kind,
      taken_at: view.takenAt,
      app: view.app,
      windows: view.windows,
      truncated: view.truncated,
      elements: view.elements,
      refs: table.toJSON(),
    };
    await atomicWriteFile(this.#file(view.id), `${JSON.stringify(saved)}\n`, { mode: 0o600 });
    await atomicWriteFile(join(this.dir, 'latest'), `${view.id}\n`, { mode: 0o600 });
    await this.#prune();
  }

  /** Writes back a snapshot's ref table (an action re-matched a ref to the element's new identity). */
  async updateRefs(id: string, table: RefTable): Promise<void> {
    const saved = await this.load(id);
    saved.refs = table.toJSON();
    await atomicWriteFile(this.#file(id), `${JSON.stringify(saved)}\n`, { mode: 0o600 });
  }

  async latestId(): Promise<string | undefined> {
    try {
      const id = (await readFile(join(this.dir, 'latest'), 'utf8')).trim();
      return ID_RE.test(id) ? id : undefined;
    } catch {
      return undefined;
    }
  }

  /** The snapshot `id`, or the latest; NOT_FOUND with a hint when there is none. */
  async load(id?: string): Promise<SavedSnapshot> {
    const which = id ?? (await this.latestId());
    if (!which)
      throw new AxError('NOT_FOUND', 'no snapshot yet', undefined, { hint: 'run `rein ax snapshot --app NAME` first' });
    if (!ID_RE.test(which))
      throw new AxError('INVALID', `"${which}" is not a snapshot id (they look like s-20261129-153012-ab12)`);
    let text: string;
    try {
      text = await readFile(this.#file(which), 'utf8');
    } catch {
      throw new AxError(
        'NOT_FOUND',
        `snapshot ${which} does not exist (only the newest ${SNAPSHOTS_KEPT} are kept)`,
        undefined,
        { hint: 'take a new snapshot' },
      );
    }
    const parsed = SavedSnapshot.safeParse(JSON.parse(text));
    if (!parsed.success)
      throw new AxError('INVALID', `snapshot ${which} is damaged: ${parsed.error.issues[0]?.message ?? ''}`);
    return parsed.data;
  }

  #file(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  async #prune(): Promise<void> {
    const names = (await readdir(this.dir)).filter((n) => n.endsWith('.json') && ID_RE.test(n.slice(0, -5)));
    if (names.length <= SNAPSHOTS_KEPT) return;
    const dated = await Promise.all(names.map(async (n) => ({ n, t: (await stat(join(this.dir, n))).mtimeMs })));
    dated.sort((a, b) => b.t - a.t || (a.n < b.n ? 1 : -1));
    await Promise.all(dated.slice(SNAPSHOTS_KEPT).map((d) => rm(join(this.dir, d.n), { force: true })));
  }
}
