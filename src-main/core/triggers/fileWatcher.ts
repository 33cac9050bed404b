/**
 * File watchers: every agent's `watch` entries (`path`, `glob`, `debounce`, `prompt`) on chokidar.
 *
 * - One chokidar watcher per folder that no other watched folder contains: an event is fanned out to
 *   every entry, of every agent, whose folder contains the file, so nested folders are watched once.
 * - `glob` is matched against the file's name (picomatch; `*` does not match a leading dot). Without
 *   one, every file but hidden ones (`.DS_Store`, editors' swap files) counts.
 * - Folders named in SKIPPED_DIRS (dependencies, VCS data, build output, caches) are never entered,
 *   unless they are a watched folder themselves or lie on the way to one. Symlinked folders are not
 *   followed.
 * - At most `maxDirs` (4,096) folders are watched across every agent; past that, a warning is logged
 *   once and further folders are left out.
 * - File events only: added → `created`, changed → `modified`, removed → `deleted` (a rename is a
 *   delete and a create). Each entry collects its files (path → change) until nothing happened for
 *   its `debounce` (2 s by default; every event starts the wait again), then the batch becomes one
 *   unattended run of its agent (entry and source `watcher`, a session of its own). While the agent's
 *   previous watcher run is still going, batches wait for it, merged per entry: nothing is lost and an
 *   agent never has two watcher runs at once.
 * - Config changes are followed without a restart (followAgents.ts): `agent_changed` reads that agent
 *   again, a rescan every minute catches hand edits and folders that appeared; folders are added and
 *   removed to match.
 * - A folder this process may not read is never watched blind: each refresh opens it and reads an
 *   entry (util/folderAccess.ts; macOS privacy settings refuse Desktop, Documents, Downloads with EPERM,
 *   and chokidar, told to ignore permission errors, would watch nothing without a word). Such a watch
 *   is `unreadable`, with the reason: in `status()` (the agent's activity), as a warning, and as a
 *   `watch_status` event on the bus (the app and the windowless notices turn it into a notification).
 *   A chokidar error makes the watchers look at their folders again at once. Every state change is
 *   announced; a watch that starts fine announces nothing.
 *
 * Owned: `dispose()` stops the follower and the debounce timers, drops batches not yet started and
 * awaits every chokidar `close()`. Runs already started belong to the service (its dispose() ends them).
 */
import { lstatSync, type Stats } from 'node:fs';
import { basename, relative, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import picomatch from 'picomatch';
import type { AsyncDisposable, Disposable } from '../base/lifecycle.js';
import { errorMessage, isReinError } from '../errors.js';
import { originFor, type RunRequest } from '../runtime/runRequest.js';
import { folderAccess, unreadableHint } from '../util/folderAccess.js';
import { followAgents, Serial } from './followAgents.js';
import { agentConfigOf, agentsToRefresh, type TriggerHost } from './host.js';
import { mergeChange, watchPrompt, type ChangeType } from './watchPrompt.js';

export const MAX_WATCHED_DIRS = 4_096;
export const WATCHER_SOURCE = 'watcher';

/** Folder names never entered below a watched folder. */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  'node_modules',
  '.git',
  'vendor',
  '.build',
  'DerivedData',
  'Pods',
  '.svn',
  '.hg',
  '__pycache__',
  '.venv',
  'venv',
  '.tox',
  'target',
  'dist',
  'build',
  '.next',
  '.nuxt',
  '.cache',
  '.gradle',
]);

export interface WatcherManagerOptions {
  warn?: (message: string) => void;
  /** The folder cap across every agent (default 4,096; tests lower it). */
  maxDirs?: number;
  /** How often agent configs and folders are looked at again (default a minute; 0: only on `agent_changed`). */
  rescanMs?: number;
  /** Reads a folder far enough to know it can be watched; throws when it cannot (default: open it and read an entry). */
  probe?: (dir: string) => Promise<void>;
  /** Whose words the hint of an unreadable folder uses (default this machine's). */
  platform?: NodeJS.Platform;
}

export type WatchState = 'watching' | 'unreadable' | 'missing' | 'not_a_folder';

/** One watch entry's folder as the watchers see it. */
export interface WatchStatus {
  agent: string;
  /** The folder as the agent's config.yaml names it. */
  path: string;
  state: WatchState;
  reason?: string;
  /** What to do about it (unreadable). */
  hint?: string;
}

/** One `watch` entry of one agent, its folder resolved. */
interface Entry {
  key: string;
  agent: string;
  root: string;
  match: (name: string) => boolean;
  debounceMs: number;
  prompt?: string;
  signature: string;
}

interface Batch {
  entry: Entry;
  changes: Map<string, ChangeType>;
  timer?: NodeJS.Timeout;
}

interface AgentQueue {
  running: boolean;
  /** Batches that came while a run was going, per entry key, in arrival order. */
  pending: Map<string, Batch>;
}

export class WatcherManager implements AsyncDisposable {
  readonly #host: TriggerHost;
  readonly #warn: (m: string) => void;
  readonly #maxDirs: number;
  readonly #rescanMs: number | undefined;
  readonly #entries = new Map<string, Entry[]>();
  readonly #watchers = new Map<string, { fsw: FSWatcher; ready: Promise<void> }>();
  /** Every folder admitted for watching, across all roots (the cap counts these). */
  readonly #dirs = new Set<string>();
  readonly #batches = new Map<string, Batch>();
  readonly #queues = new Map<string, AgentQueue>();
  readonly #serial = new Serial();
  readonly #reported = new Map<string, string>();
  readonly #probe: ((dir: string) => Promise<void>) | undefined;
  readonly #platform: NodeJS.Platform;
  /** Each entry's folder state, by agent and configured path. */
  readonly #states = new Map<string, WatchStatus>();
  #recheckPending = false;
  #roots: string[] = [];
  #capWarned = false;
  #follow: Disposable | undefined;
  #disposed = false;

  constructor(host: TriggerHost, opts: WatcherManagerOptions = {}) {
    this.#host = host;
    this.#warn = opts.warn ?? (() => undefined);
    this.#maxDirs = opts.maxDirs ?? MAX_WATCHED_DIRS;
    this.#rescanMs = opts.rescanMs;
    this.#probe = opts.probe;
    this.#platform = opts.platform ?? process.platform;
  }

  async start(): Promise<void> {
    if (this.#disposed || this.#follow) return;
    this.#follow = followAgents(this.#host, (agent) => void this.refresh(agent), this.#rescanMs);
    await this.refresh();
  }

  /** Reads one agent's (or every agent's) watch list again and adds or removes folders to match. */
  refresh(agent?: string): Promise<void> {
    return this.#serial.run(async () => {
      await this.#refresh(agent);
      await this.#reconcile();
    });
  }

  /** Resolves once pending refreshes are done and every chokidar watcher has finished its first scan. */
  async ready(): Promise<void> {
    await this.#serial.idle();
    await Promise.all([...this.#watchers.values()].map((w) => w.ready));
  }

  /** The folders chokidar watches from (those no other watched folder contains). */
  get roots(): string[] {
    return [...this.#watchers.keys()].sort();
  }

  /** Each watch entry's folder state (one agent's, or every agent's), by agent and path. */
  status(agent?: string): WatchStatus[] {
    return [...this.#states.values()]
      .filter((s) => agent === undefined || s.agent === agent)
      .sort((a, b) => (a.agent + a.path < b.agent + b.path ? -1 : 1));
  }

  /** Folders being watched, across every root. */
  get watchedDirs(): number {
    return this.#dirs.size;
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#follow?.dispose();
    await this.#serial.idle();
    for (const b of this.#batches.values()) clearTimeout(b.timer);
    this.#batches.clear();
    this.#queues.clear();
    const closing = [...this.#watchers.values()].map((w) => w.fsw.close().catch(() => undefined));
    this.#watchers.clear();
    this.#dirs.clear();
    await Promise.all(closing);
  }

  async #refresh(only?: string): Promise<void> {
    if (this.#disposed) return;
    const found = await agentsToRefresh(this.#host, only, (m) => this.#warn(`watchers: ${m}`));
    if (!found) return;
    const names = found.names;
    if (found.complete) {
      for (const name of [...this.#entries.keys()]) if (!names.includes(name)) this.#setEntries(name, []);
      for (const s of [...this.#states.values()]) if (!names.includes(s.agent)) this.#keepStates(s.agent, []);
    }
    for (const name of names) {
      if (this.#disposed) return;
      let watch;
      try {
        watch = (await agentConfigOf(this.#host, name)).watch;
        this.#reported.delete(name);
      } catch (err) {
        this.#setEntries(name, []);
        this.#keepStates(name, []);
        if (isReinError(err, 'not_found') || isReinError(err, 'agent_not_found')) continue;
        this.#report(name, `watchers of ${name} are off: its config cannot be read: ${errorMessage(err)}`);
        continue;
      }
      const entries: Entry[] = [];
      for (const [i, w] of watch.entries()) {
        const root = await this.#resolveRoot(name, w.path);
        if (root === undefined) continue;
        entries.push({
          key: `${name}\0${i}`,
          agent: name,
          root,
          match: w.glob ? picomatch(w.glob) : (file: string) => !file.startsWith('.'),
          debounceMs: w.debounceMs,
          ...(w.prompt !== undefined ? { prompt: w.prompt } : {}),
          signature: JSON.stringify([root, w.glob ?? null, w.debounceMs, w.prompt ?? null]),
        });
      }
      this.#setEntries(name, entries);
      this.#keepStates(
        name,
        watch.map((w) => w.path),
      );
    }
  }

  /**
   * A folder that exists and this process can read, with symlinks resolved. A missing or unreadable one
   * is reported once (and its state announced) and skipped: the next refresh looks again.
   */
  async #resolveRoot(agent: string, path: string): Promise<string | undefined> {
    const key = `${agent}\0${path}`;
    const access = await folderAccess(path, this.#probe);
    if (access.ok) {
      this.#reported.delete(key);
      this.#setState({ agent, path, state: 'watching' });
      return access.real;
    }
    if (access.kind === 'unreadable') {
      const hint = unreadableHint(this.#platform);
      this.#setState({ agent, path, state: 'unreadable', reason: access.reason, hint });
      this.#report(
        key,
        `watch folder ${path} of ${agent} is not watched: it cannot be read (${access.code ?? access.reason}); ${hint}`,
      );
    } else if (access.kind === 'not_a_folder') {
      this.#setState({ agent, path, state: 'not_a_folder', reason: access.reason });
      this.#report(key, `watch folder ${path} of ${agent} is not a folder; skipped`);
    } else {
      this.#setState({ agent, path, state: 'missing', reason: access.reason });
      this.#report(
        key,
        `watch folder ${path} of ${agent} cannot be watched (${access.code ?? access.reason}); skipped until it exists`,
      );
    }
    return undefined;
  }

  /** Records an entry's folder state; a change (other than a first `watching`) goes on the bus. */
  #setState(next: WatchStatus): void {
    const key = `${next.agent}\0${next.path}`;
    const prev = this.#states.get(key);
    this.#states.set(key, next);
    if ((prev?.state ?? 'watching') === next.state) return;
    try {
      this.#host.publish({
        type: 'watch_status',
        at: new Date().toISOString(),
        agent: next.agent,
        path: next.path,
        state: next.state,
        ...(next.reason !== undefined ? { reason: next.reason } : {}),
        ...(next.hint !== undefined ? { hint: next.hint } : {}),
      });
    } catch (e) {
      this.#warn(`watchers: could not announce the state of ${next.path}: ${errorMessage(e)}`);
    }
  }

  /** Forgets the states of the agent's folders it no longer watches. */
  #keepStates(agent: string, paths: readonly string[]): void {
    for (const [key, s] of this.#states) if (s.agent === agent && !paths.includes(s.path)) this.#states.delete(key);
  }

  /** chokidar reported an error: every folder is looked at again (once, however many errors come). */
  #recheck(): void {
    if (this.#recheckPending || this.#disposed) return;
    this.#recheckPending = true;
    void this.refresh()
      .catch((e: unknown) => this.#warn(`watchers: ${errorMessage(e)}`))
      .finally(() => {
        this.#recheckPending = false;
      });
  }

  #report(key: string, message: string): void {
    if (this.#reported.get(key) === message) return;
    this.#reported.set(key, message);
    this.#warn(message);
  }

  /** The agent's entries from now on; batches of entries that changed or went are dropped. */
  #setEntries(agent: string, entries: Entry[]): void {
    const keep = new Map(entries.map((e) => [e.key, e.signature]));
    for (const [key, b] of this.#batches) {
      if (b.entry.agent === agent && keep.get(key) !== b.entry.signature) {
        clearTimeout(b.timer);
        this.#batches.delete(key);
      }
    }
    const q = this.#queues.get(agent);
    if (q) for (const [key, b] of q.pending) if (keep.get(key) !== b.entry.signature) q.pending.delete(key);
    if (entries.length === 0) this.#entries.delete(agent);
    else this.#entries.set(agent, entries);
  }

  /** Watches exactly the folders no other watched folder contains. */
  async #reconcile(): Promise<void> {
    if (this.#disposed) return;
    const roots = [...new Set([...this.#entries.values()].flat().map((e) => e.root))].sort();
    this.#roots = roots;
    const cover = roots.filter((r) => !roots.some((o) => o !== r && inside(r, o)));
    const closing: Promise<void>[] = [];
    for (const [root, w] of this.#watchers) {
      if (cover.includes(root)) continue;
      this.#watchers.delete(root);
      for (const d of this.#dirs) if (d === root || inside(d, root)) this.#dirs.delete(d);
      closing.push(w.fsw.close().catch(() => undefined));
    }
    await Promise.all(closing);
    for (const root of cover) if (!this.#watchers.has(root)) this.#startWatcher(root);
  }

  #startWatcher(root: string): void {
    const fsw = watch(root, {
      ignoreInitial: true,
      followSymlinks: false,
      ignorePermissionErrors: true,
      ignored: (path: string, stats?: Stats) => this.#ignored(path, stats),
    });
    const ready = new Promise<void>((resolve) => fsw.once('ready', () => resolve()));
    fsw.on('add', (p) => this.#event('created', p));
    fsw.on('change', (p) => this.#event('modified', p));
    fsw.on('unlink', (p) => this.#event('deleted', p));
    fsw.on('unlinkDir', (p) => void this.#dirs.delete(p));
    fsw.on('error', (err) => {
      this.#warn(`watching ${root}: ${errorMessage(err)}`);
      // The folder may have become unreadable (access revoked) or gone: the probe says which.
      this.#recheck();
    });
    this.#watchers.set(root, { fsw, ready });
  }

  /** chokidar's filter: skipped folders, folders past the cap. Called with and without `stats`. */
  #ignored(path: string, stats: Stats | undefined): boolean {
    const roots = this.#roots;
    // A watched folder, or one on the way to one, is always entered (it may itself be called `build`).
    const onTheWay = roots.some((r) => r === path || inside(r, path));
    if (!onTheWay) {
      const containing = roots.filter((r) => inside(path, r));
      if (containing.length > 0 && containing.every((r) => skippedBelow(r, path, stats))) return true;
    }
    if (stats?.isDirectory()) return !this.#admitDir(path);
    return false;
  }

  #admitDir(path: string): boolean {
    if (this.#dirs.has(path)) return true;
    if (this.#dirs.size >= this.#maxDirs) {
      if (!this.#capWarned) {
        this.#capWarned = true;
        this.#warn(
          `file watchers: ${this.#maxDirs} folders are watched, the most Rein watches; ${path} and further folders are left out`,
        );
      }
      return false;
    }
    this.#dirs.add(path);
    return true;
  }

  #event(type: ChangeType, path: string): void {
    if (this.#disposed) return;
    const name = basename(path);
    for (const entries of this.#entries.values()) {
      for (const e of entries) {
        if (!inside(path, e.root) || dirSkipped(e.root, path) || !e.match(name)) continue;
        this.#enqueue(e, path, type);
      }
    }
  }

  #enqueue(entry: Entry, path: string, type: ChangeType): void {
    let batch = this.#batches.get(entry.key);
    if (!batch) this.#batches.set(entry.key, (batch = { entry, changes: new Map() }));
    const merged = mergeChange(batch.changes.get(path), type);
    if (merged === undefined) batch.changes.delete(path);
    else batch.changes.set(path, merged);
    clearTimeout(batch.timer);
    batch.timer = setTimeout(() => this.#flush(entry.key), entry.debounceMs);
  }

  #flush(key: string): void {
    const batch = this.#batches.get(key);
    if (!batch || this.#disposed) return;
    this.#batches.delete(key);
    if (batch.changes.size === 0) return;
    const agent = batch.entry.agent;
    let q = this.#queues.get(agent);
    if (!q) this.#queues.set(agent, (q = { running: false, pending: new Map() }));
    const waiting = q.pending.get(key);
    if (waiting)
      for (const [p, t] of batch.changes) {
        const merged = mergeChange(waiting.changes.get(p), t);
        if (merged === undefined) waiting.changes.delete(p);
        else waiting.changes.set(p, merged);
      }
    else q.pending.set(key, { entry: batch.entry, changes: batch.changes });
    this.#drain(agent);
  }

  /** Starts the agent's next waiting batch unless one of its watcher runs is going. */
  #drain(agent: string): void {
    const q = this.#queues.get(agent);
    if (!q || q.running || this.#disposed) return;
    const next = q.pending.entries().next();
    if (next.done) {
      this.#queues.delete(agent);
      return;
    }
    const [key, batch] = next.value;
    q.pending.delete(key);
    if (batch.changes.size === 0) return this.#drain(agent);
    q.running = true;
    void this.#run(batch).finally(() => {
      q.running = false;
      this.#drain(agent);
    });
  }

  async #run(batch: Batch): Promise<void> {
    const request: RunRequest = {
      agent: batch.entry.agent,
      text: watchPrompt(batch.entry.prompt, batch.changes),
      source: WATCHER_SOURCE,
      origin: originFor('watcher', WATCHER_SOURCE),
      entry: 'watcher',
      // Each batch is a run in a session of its own: it never lands in (or cancels) a person's conversation.
      session: { kind: 'ephemeral' },
    };
    try {
      const outcome = await this.#host.submit(request);
      if (!outcome.injected)
        await outcome.run.done.catch((err: unknown) =>
          this.#warn(`watcher run of ${batch.entry.agent} failed: ${errorMessage(err)}`),
        );
    } catch (err) {
      this.#warn(
        `watcher run of ${batch.entry.agent} could not start (${batch.changes.size} change(s) dropped): ${errorMessage(err)}`,
      );
    }
  }
}

/** `path` is `root` or lies below it. */
function inside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** A folder between `root` and the file at `path` is one of the skipped ones. */
function dirSkipped(root: string, path: string): boolean {
  const parts = relative(root, path).split(sep);
  parts.pop();
  return parts.some((p) => SKIPPED_DIRS.has(p));
}

/** `path` (below `root`) is in, or is, a skipped folder. Only a folder's name counts: a file may be called `build`. */
function skippedBelow(root: string, path: string, stats: Stats | undefined): boolean {
  if (dirSkipped(root, path)) return true;
  const name = basename(path);
  if (!SKIPPED_DIRS.has(name) || path === root) return false;
  return stats ? stats.isDirectory() : (lstatSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false);
}
