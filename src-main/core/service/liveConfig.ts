/**
 * The global config as a long-lived process (the daemon, the desktop app) runs with it: re-read from
 * config.yaml, the working folder's project overlay and the trust file whenever one of them changed, so
 * a mode, rules, base_url or MCP servers edited in the file (by hand, by `rein mcp add` from another
 * process, by `rein trust`) apply from the next message without a restart. The files are stamped with
 * synchronous `stat` calls at most once per turn of the event loop (util/stampCache.ts), so fifty
 * messages arriving together cost one look.
 *
 * A config that stops loading after an edit is not papered over with the last good one, which may be
 * more permissive than what the person just wrote: `current()` throws the `config_invalid` error (file,
 * line, field) until the file is fixed, and `problem` says so for the settings view. `last` (what
 * synchronous readers such as the heartbeat timers see) keeps the last config that loaded.
 *
 * The overlay is loaded with the folder-trust rule (config/folderTrust.ts): nobody is asked here, so an
 * overlay the trust file does not trust is applied without its raising settings, with one warning (said
 * again only when it changes), and `untrusted` hears of it (the service offers it to a person in the app).
 */
import { loadConfig, type LoadedOverlay } from '../config/load.js';
import { paths } from '../config/paths.js';
import type { GlobalConfig } from '../config/schema.js';
import { ReinError, errorMessage, isReinError } from '../errors.js';
import { currentTurn, stampOf } from '../util/stampCache.js';

export interface LiveConfigOptions {
  home: string;
  /** The working folder whose `.rein/config.yaml` is the overlay. */
  cwd: string;
  warn: (message: string) => void;
}

export class LiveConfig {
  readonly #o: LiveConfigOptions | undefined;
  #config: GlobalConfig;
  #overlay: LoadedOverlay | undefined;
  #problem: ReinError | undefined;
  #stamp = '';
  #checked = -1;
  #loading: Promise<void> | undefined;
  #generation = 0;
  /** The warnings the last load gave (each said once while it stays the same). */
  #warned = new Set<string>();
  /** Told after each load that left an untrusted overlay's raising settings out. */
  untrusted: ((overlay: LoadedOverlay) => void) | undefined;

  private constructor(config: GlobalConfig, o: LiveConfigOptions | undefined) {
    this.#config = config;
    this.#o = o;
  }

  /** Loads the files once now (a config that does not load throws, as before any run), then follows them. */
  static async start(o: LiveConfigOptions): Promise<LiveConfig> {
    const stamp = stampOf(depsOf(o));
    const told: string[] = [];
    const loaded = await loadConfig({ home: o.home, cwd: o.cwd, trust: 'stored', warn: (m) => told.push(m) });
    const live = new LiveConfig(loaded.config, o);
    live.#stamp = stamp;
    live.#checked = currentTurn();
    live.#overlay = loaded.overlay;
    live.#warnNew(told, o);
    return live;
  }

  /** A config that is never re-read (tests, embedders, a CLI command's one-off service). */
  static fixed(config: GlobalConfig): LiveConfig {
    return new LiveConfig(config, undefined);
  }

  get follows(): boolean {
    return this.#o !== undefined;
  }

  /** The last config that loaded. */
  get last(): GlobalConfig {
    return this.#config;
  }

  /** The project overlay as last loaded. */
  get overlay(): LoadedOverlay | undefined {
    return this.#overlay;
  }

  /** Why the files do not load now, as of the last look (`refresh()` looks). */
  get problem(): ReinError | undefined {
    return this.#problem;
  }

  /** The config as the files say now; throws `config_invalid` (or `config_io`) while they do not load. */
  async current(): Promise<GlobalConfig> {
    await this.refresh();
    if (this.#problem) throw this.#problem;
    return this.#config;
  }

  /** Looks at the files (once per turn) and re-reads them when they changed; never throws. */
  refresh(): Promise<void> {
    const o = this.#o;
    if (!o) return Promise.resolve();
    const now = currentTurn();
    if (this.#checked !== now) {
      this.#checked = now;
      // Stamped before reading: a file changed while it is read leaves the stamp older, so it is read again.
      const stamp = stampOf(depsOf(o));
      if (stamp !== this.#stamp) {
        this.#stamp = stamp;
        const generation = ++this.#generation;
        const loading = this.#load(o, generation).finally(() => {
          if (this.#loading === loading) this.#loading = undefined;
        });
        this.#loading = loading;
      }
    }
    return this.#loading ?? Promise.resolve();
  }

  /**
   * A settings change this process saved: runs see it at once (`config`), and the files are read again
   * at the next look. A fixed config just takes it.
   */
  saved(config: GlobalConfig): void {
    this.#config = config;
    this.#problem = undefined;
    this.#stamp = '';
    this.#checked = -1;
  }

  /** Read the files again at the next look (the trust file changed in this process). */
  invalidate(): void {
    this.#stamp = '';
    this.#checked = -1;
  }

  async #load(o: LiveConfigOptions, generation: number): Promise<void> {
    try {
      const told: string[] = [];
      const loaded = await loadConfig({ home: o.home, cwd: o.cwd, trust: 'stored', warn: (m) => told.push(m) });
      if (generation !== this.#generation) return;
      this.#warnNew(told, o);
      this.#config = loaded.config;
      this.#overlay = loaded.overlay;
      if (this.#problem) o.warn('config loads again: runs use it from the next message');
      this.#problem = undefined;
      if (loaded.overlay && !loaded.overlay.applied) this.untrusted?.(loaded.overlay);
    } catch (e) {
      if (generation !== this.#generation) return;
      const problem = isReinError(e) ? e : new ReinError('config_io', `config: ${errorMessage(e)}`);
      if (this.#problem?.message !== problem.message)
        o.warn(`${problem.message}\n(no new message runs until it is fixed)`);
      this.#problem = problem;
    }
  }

  /** The untrusted-overlay line (and a damaged trust file) once while it lasts, not at every re-read. */
  #warnNew(told: readonly string[], o: LiveConfigOptions): void {
    for (const m of told) if (!this.#warned.has(m)) o.warn(m);
    this.#warned = new Set(told);
  }
}

function depsOf(o: LiveConfigOptions): string[] {
  return [paths.globalConfig(o.home), paths.projectConfig(o.cwd), paths.trustedFolders(o.home)];
}
