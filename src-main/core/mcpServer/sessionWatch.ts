/**
 * Watches the serving agent's session folder for one MCP connection: `resources/subscribe` on
 * `rein://sessions/<id>` is told when that file changes (`notifications/resources/updated`, once per
 * burst of saves), and a client that listed resources is told when sessions are added or removed
 * (`notifications/resources/list_changed`).
 *
 * One `fs.watch` on the folder (sessions are saved by an atomic rename, so watching the file itself
 * would lose it at the first save); a folder that does not exist yet, or a watch the system refuses
 * (inotify limits), is polled instead. A change is confirmed by the file's stamp (inode, size, mtime)
 * before anybody is told, so a touched-but-equal file or the save's temp file tells nothing.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Disposable } from '../base/lifecycle.js';
import { isSessionId } from '../sessions/id.js';

/** Saves closer together than this are told once. */
export const WATCH_SETTLE_MS = 100;
/** How often a folder without a working watch is looked at. */
export const WATCH_POLL_MS = 2_000;

export interface SessionWatchOptions {
  dir: () => Promise<string>;
  onUpdated: (id: string) => void;
  onListChanged: () => void;
  warn?: (message: string) => void;
}

export class SessionWatch implements Disposable {
  readonly #opts: SessionWatchOptions;
  /** Subscribed ids → their file's stamp when last told (or subscribed). */
  readonly #subscribed = new Map<string, string | undefined>();
  /** Ids in the folder, once the client listed resources (undefined: list changes are not watched). */
  #known: Set<string> | undefined;
  #dir: string | undefined;
  #watcher: FSWatcher | undefined;
  #poll: NodeJS.Timeout | undefined;
  #settle: NodeJS.Timeout | undefined;
  readonly #pending = new Set<string>();
  #rescan = false;
  #closed = false;

  constructor(opts: SessionWatchOptions) {
    this.#opts = opts;
  }

  async subscribe(id: string): Promise<void> {
    await this.#start();
    if (!this.#subscribed.has(id)) this.#subscribed.set(id, await this.#stamp(id));
  }

  unsubscribe(id: string): void {
    this.#subscribed.delete(id);
  }

  /** The client listed resources: from now on, tell it when sessions come and go. */
  async watchList(): Promise<void> {
    await this.#start();
    if (this.#known === undefined) this.#known = new Set(await this.#ids());
  }

  dispose(): void {
    this.#closed = true;
    this.#watcher?.close();
    this.#watcher = undefined;
    clearInterval(this.#poll);
    clearTimeout(this.#settle);
  }

  async #start(): Promise<void> {
    if (this.#dir !== undefined || this.#closed) return;
    this.#dir = await this.#opts.dir();
    this.#tryWatch();
  }

  #tryWatch(): void {
    if (this.#closed || this.#watcher) return;
    try {
      const w = watch(this.#dir!, { persistent: false }, (_event, name) =>
        this.#changed(typeof name === 'string' ? name : undefined),
      );
      w.on('error', () => {
        // The folder went away or the watch broke: poll until it can be watched again.
        w.close();
        if (this.#watcher === w) this.#watcher = undefined;
        this.#startPolling();
      });
      this.#watcher = w;
      clearInterval(this.#poll);
      this.#poll = undefined;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        this.#opts.warn?.(
          `cannot watch ${this.#dir} (${code ?? 'error'}); looking every ${WATCH_POLL_MS / 1000} s instead`,
        );
      this.#startPolling();
    }
  }

  #startPolling(): void {
    if (this.#closed || this.#poll) return;
    this.#poll = setInterval(() => {
      this.#tryWatch();
      this.#changed(undefined);
    }, WATCH_POLL_MS);
    this.#poll.unref();
  }

  /** A name changed in the folder (undefined: something did, look at everything). */
  #changed(name: string | undefined): void {
    if (this.#closed) return;
    if (name === undefined) this.#rescan = true;
    else {
      if (!name.endsWith('.json')) return;
      const id = name.slice(0, -'.json'.length);
      if (!isSessionId(id)) return;
      this.#pending.add(id);
    }
    if (this.#settle) return;
    this.#settle = setTimeout(() => {
      this.#settle = undefined;
      void this.#flush();
    }, WATCH_SETTLE_MS);
    this.#settle.unref();
  }

  async #flush(): Promise<void> {
    const rescan = this.#rescan;
    this.#rescan = false;
    const ids = rescan ? new Set([...this.#subscribed.keys(), ...this.#pending]) : new Set(this.#pending);
    this.#pending.clear();
    let listChanged = false;
    for (const id of ids) {
      const now = await this.#stamp(id);
      if (this.#subscribed.has(id) && this.#subscribed.get(id) !== now) {
        this.#subscribed.set(id, now);
        if (now !== undefined && !this.#closed) this.#opts.onUpdated(id);
      }
      if (this.#known && !rescan) {
        if ((now !== undefined) !== this.#known.has(id)) {
          if (now !== undefined) this.#known.add(id);
          else this.#known.delete(id);
          listChanged = true;
        }
      }
    }
    if (this.#known && rescan) {
      const present = new Set(await this.#ids());
      if (present.size !== this.#known.size || [...present].some((id) => !this.#known!.has(id))) {
        this.#known = present;
        listChanged = true;
      }
    }
    if (listChanged && !this.#closed) this.#opts.onListChanged();
  }

  async #stamp(id: string): Promise<string | undefined> {
    try {
      const st = await stat(join(this.#dir!, `${id}.json`), { bigint: true });
      return `${st.ino}:${st.size}:${st.mtimeNs}`;
    } catch {
      return undefined;
    }
  }

  async #ids(): Promise<string[]> {
    try {
      return (await readdir(this.#dir!))
        .filter((n) => n.endsWith('.json'))
        .map((n) => n.slice(0, -5))
        .filter(isSessionId);
    } catch {
      return [];
    }
  }
}
