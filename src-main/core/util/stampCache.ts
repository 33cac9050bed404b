/**
 * Values derived from files, kept while the files are unchanged. A value is stored with the list of
 * paths it depends on (files that may or may not exist, and folders whose entries matter) and their
 * stamp: inode, size, mtime and ctime of each, taken with synchronous `stat` calls — a few microseconds
 * each, and, unlike the async calls, never stuck behind other runs' fsyncs in libuv's thread pool.
 *
 * The stamp is taken *before* the value is loaded: a file changed while it was being read leaves the
 * stored stamp older than the file, so the next lookup loads again. Nothing is ever served that the
 * files on disk, as last stamped, do not back.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One path's identity: changes whenever the file is written, replaced, created or removed. */
function stampOne(path: string): string {
  try {
    const s = statSync(path, { bigint: true, throwIfNoEntry: false });
    return s ? `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}` : '-';
  } catch {
    // ENOTDIR, EACCES…: as good as absent, and a change from it is still a change.
    return '!';
  }
}

export function stampOf(paths: readonly string[]): string {
  let out = '';
  for (const p of paths) out += `${stampOne(p)}|`;
  return out;
}

/** The folder and each entry's path (file or folder), for dependency lists that follow a folder's contents. */
export function folderAndEntries(dir: string, filter: (name: string) => boolean = () => true): string[] {
  try {
    return [
      dir,
      ...readdirSync(dir)
        .filter(filter)
        .map((n) => join(dir, n)),
    ];
  } catch {
    return [dir];
  }
}

interface Entry<T> {
  deps: readonly string[];
  stamp: string;
  value: T;
  /** The turn of the event loop in which the stamp was last found unchanged. */
  checked: number;
}

/**
 * Turns of the event loop, counted lazily: lookups in the same turn (fifty messages arriving together)
 * check the files once. All of them see the files as they were at that instant, as if they had started
 * at the same moment; the next turn checks again.
 */
let turn = 0;
let turnEnding = false;
export function currentTurn(): number {
  if (!turnEnding) {
    turnEnding = true;
    setImmediate(() => {
      turn++;
      turnEnding = false;
    });
  }
  return turn;
}

export class StampCache<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #max: number;
  #hits = 0;
  #misses = 0;

  constructor(maxEntries = 128) {
    this.#max = maxEntries;
  }

  /**
   * The value for `key`: the stored one while the stamp of its dependencies is unchanged, else a fresh
   * `load()`. `deps()` names the paths the value depends on; it is called before each load. A loaded
   * promise that rejects is not kept. Concurrent lookups of one key share a load in progress.
   */
  get(key: string, deps: () => readonly string[], load: () => T): T {
    const hit = this.#entries.get(key);
    const now = currentTurn();
    if (hit && (hit.checked === now || stampOf(hit.deps) === hit.stamp)) {
      hit.checked = now;
      this.#hits++;
      // Most recently used last, so eviction takes the oldest.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit.value;
    }
    this.#misses++;
    const paths = deps();
    const entry: Entry<T> = { deps: paths, stamp: stampOf(paths), value: load(), checked: now };
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (entry.value instanceof Promise) {
      entry.value.catch(() => {
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
      });
    }
    while (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    return entry.value;
  }

  /** Forgets every value (a setting that changes how values are derived has changed). */
  clear(): void {
    this.#entries.clear();
  }

  get stats(): { hits: number; misses: number; size: number } {
    return { hits: this.#hits, misses: this.#misses, size: this.#entries.size };
  }
}
