/**
 * Refs: the short names (`e12`) the model and the `rein ax` commands use for elements.
 *
 * A ref stands for the element as it was in the snapshot that showed it: its identity (the helper's id),
 * role, name, named ancestors and app. An action sends that whole description (a protocol `Target`); the
 * helper resolves it by identity and, only if the element was recreated, re-matches it by role + name +
 * ancestry, refusing on any doubt (docs/ax-protocol.md, Refs). So a ref never silently means whatever now
 * sits where the element was.
 *
 * Numbers are never reused within a table, and the same element keeps its ref across snapshots: taking a
 * new snapshot updates what a ref describes (the model has seen the new one) without renumbering the
 * others. The table lives in the session's tool slot (tools) or in a snapshot file (CLI).
 */
import { AxError } from './axError.js';
import {
  normName,
  type ActedOn,
  type Ancestor,
  type AppInfo,
  type Bounds,
  type SnapshotResult,
  type Target,
  type WireElement,
  type AxRole,
} from './protocol.js';

export interface RefEntry {
  ref: string;
  id: string;
  role: AxRole;
  name: string;
  app: { pid: number; name: string };
  ancestry: Ancestor[];
  identifier?: string;
  bounds?: Bounds | null;
  /** The snapshot (or find) that last showed it. */
  snapshot: string;
}

export interface RefElement extends WireElement {
  ref: string;
  ancestry: Ancestor[];
}

/** A snapshot with refs given to its elements. */
export interface SnapshotView {
  id: string;
  app: AppInfo;
  windows: { id: string; name: string }[];
  elements: RefElement[];
  truncated: boolean;
  tookMs?: number;
  takenAt: string;
}

export const REF_RE = /^e[1-9]\d*$/;
const MAX_REFS = 10_000;

export interface RefTableJson {
  next: number;
  entries: RefEntry[];
}

export class RefTable {
  #next = 1;
  readonly #byRef = new Map<string, RefEntry>();
  readonly #byId = new Map<string, string>();
  #views = 0;

  get size(): number {
    return this.#byRef.size;
  }

  /** Gives refs to a snapshot's elements (the same element keeps its ref) and remembers what they were. */
  ingestSnapshot(result: SnapshotResult, id = this.#nextViewId()): SnapshotView {
    const ancestries = ancestriesOf(result.elements);
    const app = { pid: result.app.pid, name: result.app.name };
    const elements = result.elements.map((el, i) => ({
      ...el,
      ref: this.#record(el, app, ancestries[i]!, id),
      ancestry: ancestries[i]!,
    }));
    this.#trim();
    return {
      id,
      app: result.app,
      windows: result.windows.map((w) => ({ id: w.id, name: w.name })),
      elements,
      truncated: result.truncated,
      ...(result.took_ms !== undefined ? { tookMs: result.took_ms } : {}),
      takenAt: new Date().toISOString(),
    };
  }

  /** Refs for find results (each carries its own ancestry). */
  ingestFound(app: AppInfo, found: readonly WireElement[], id = this.#nextViewId()): RefElement[] {
    const a = { pid: app.pid, name: app.name };
    const out = found.map((el) => {
      const ancestry = el.ancestry ?? [];
      return { ...el, ref: this.#record(el, a, ancestry, id), ancestry };
    });
    this.#trim();
    return out;
  }

  has(ref: string): boolean {
    return this.#byRef.has(ref);
  }

  get(ref: string): RefEntry {
    const entry = this.#byRef.get(ref.trim());
    if (!entry) {
      throw new AxError(
        'NOT_FOUND',
        REF_RE.test(ref.trim())
          ? `unknown ref ${ref}: it is not from a snapshot of this session`
          : `"${ref}" is not a ref (refs look like e12)`,
        undefined,
        { hint: 'take a snapshot (or find) and use a ref it lists' },
      );
    }
    return entry;
  }

  target(ref: string): Target {
    const e = this.get(ref);
    return {
      id: e.id,
      role: e.role,
      name: e.name,
      app: e.app,
      ancestry: e.ancestry,
      ...(e.identifier ? { identifier: e.identifier } : {}),
    };
  }

  /**
   * After an action: a re-matched element is the same element for the model, so the ref now names the new
   * identity (the old one is gone). Bounds follow what the helper saw.
   */
  noteActedOn(ref: string, acted: ActedOn | undefined): void {
    if (!acted) return;
    const e = this.#byRef.get(ref);
    if (!e) return;
    if (acted.id !== e.id) {
      this.#byId.delete(this.#key(e.app.pid, e.id));
      e.id = acted.id;
      this.#byId.set(this.#key(e.app.pid, e.id), ref);
    }
    e.bounds = acted.bounds;
  }

  toJSON(): RefTableJson {
    return { next: this.#next, entries: [...this.#byRef.values()] };
  }

  static fromJSON(json: RefTableJson): RefTable {
    const t = new RefTable();
    t.#next = Math.max(1, json.next);
    for (const e of json.entries) {
      t.#byRef.set(e.ref, { ...e });
      t.#byId.set(t.#key(e.app.pid, e.id), e.ref);
    }
    return t;
  }

  #nextViewId(): string {
    return `s${++this.#views}`;
  }

  #key(pid: number, id: string): string {
    return `${pid}\0${id}`;
  }

  #record(el: WireElement, app: { pid: number; name: string }, ancestry: Ancestor[], snapshot: string): string {
    const key = this.#key(app.pid, el.id);
    let ref = this.#byId.get(key);
    if (!ref) {
      ref = `e${this.#next++}`;
      this.#byId.set(key, ref);
    }
    const entry: RefEntry = {
      ref,
      id: el.id,
      role: el.role,
      name: normName(el.name),
      app,
      ancestry,
      ...(el.identifier ? { identifier: el.identifier } : {}),
      bounds: el.bounds ?? null,
      snapshot,
    };
    // Re-inserted so the Map's order is "least recently seen first" for trimming.
    this.#byRef.delete(ref);
    this.#byRef.set(ref, entry);
    return ref;
  }

  #trim(): void {
    while (this.#byRef.size > MAX_REFS) {
      const [ref, e] = this.#byRef.entries().next().value as [string, RefEntry];
      this.#byRef.delete(ref);
      this.#byId.delete(this.#key(e.app.pid, e.id));
    }
  }
}

/** For each element of a snapshot list, its named ancestors (and window) from the top down. */
export function ancestriesOf(elements: readonly WireElement[]): Ancestor[][] {
  const out: Ancestor[][] = [];
  elements.forEach((el, i) => {
    const p = el.parent ?? -1;
    if (p < 0 || p >= i) {
      out.push([]);
      return;
    }
    const parent = elements[p]!;
    const base = out[p]!;
    const counts = parent.name !== '' || parent.role === 'window' || parent.role === 'dialog';
    out.push(counts ? [...base, { role: parent.role, name: normName(parent.name) }] : base);
  });
  return out;
}
