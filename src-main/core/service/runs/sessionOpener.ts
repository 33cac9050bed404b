/**
 * Opens the session a run works on, and checks first what must fail as an error to the caller rather
 * than as a run that ends badly: the agent's config loads, the model can be reached (a key or a local
 * base URL), and the session is there — the one named, the lane's current one (a new one, with a
 * warning, when that cannot be continued), or a new one.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { agentExists } from '../../agents/index.js';
import { UNATTENDED_SOURCES } from '../../api/patterns.js';
import { DEFAULT_AGENT, paths } from '../../config/paths.js';
import type { GlobalConfig } from '../../config/schema.js';
import { ReinError, errorMessage, isReinError } from '../../errors.js';
import { resolveModelAccess } from '../../runtime/runtime.js';
import type { RuntimeCache } from '../../runtime/runtimeCache.js';
import type { RunRequest } from '../../runtime/runRequest.js';
import { sessionWaitMs } from '../../sessions/sessionLock.js';
import { SessionStore } from '../../sessions/store.js';
import { titleFromPrompt } from '../../sessions/title.js';
import type { SessionFile } from '../../sessions/types.js';
import type { HeldLock, LockOwner } from '../../util/ownedLock.js';
import type { RouteTable } from '../routeTable.js';
import { sessionChannel } from '../routing.js';
import type { Lanes } from './lanes.js';
import type { RouteRun } from './routeRun.js';

export interface OpenedSession {
  session: SessionFile;
  /** The store it was opened from (the run hands the session back to it when it is over). */
  store: SessionStore;
  /** The session's writer lock (sessions/sessionLock.ts), held until the run is over. */
  lock: HeldLock;
  cwd: string;
  model: string;
}

export interface SessionOpenerOptions {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The global config as the files say now; throws `config_invalid` while they do not load. */
  config(): Promise<GlobalConfig>;
  cache: RuntimeCache;
  lanes: Lanes;
  routes: RouteTable;
  /** Without the default model client (an embedder brings its own), model access is not checked. */
  checkModelAccess: boolean;
  warn(message: string): void;
}

export class SessionOpener {
  readonly #o: SessionOpenerOptions;

  constructor(opts: SessionOpenerOptions) {
    this.#o = opts;
  }

  /** Refusals that must not take a lane: a named agent that does not exist, a named session that does not. */
  async precheck(req: RunRequest): Promise<void> {
    if (req.agent !== DEFAULT_AGENT && !(await agentExists(this.#o.home, req.agent))) {
      throw new ReinError('agent_not_found', `agent "${req.agent}" not found`);
    }
    if (req.session.kind === 'session') {
      const file = join(paths.sessionsDir(this.#o.home, req.agent), `${req.session.id}.json`);
      try {
        await access(file);
      } catch {
        throw new ReinError('session_not_found', `no session ${req.session.id} for agent "${req.agent}"`);
      }
    }
  }

  async open(run: RouteRun): Promise<OpenedSession> {
    const o = this.#o;
    const req = run.request;
    // Read when the run starts, not when it was queued: an edit made meanwhile applies to it.
    const config = await o.config();
    run.config = config;
    const rc = await o.cache.agentConfig(o.home, config, run.agent);
    if (o.checkModelAccess) await resolveModelAccess(o.env, rc.effective.config, o.home);
    const cwd = rc.cwd ?? o.cwd;
    const model = req.overrides?.model ?? rc.effective.model;
    const store = new SessionStore(rc.sessionsDir, { cache: o.cache.sessions, onLeftover: (n) => o.warn(n.message) });
    // One writer per session across processes: a turn that `rein run --session` (or the app, or another
    // daemon route) is writing is waited for on this lane, then continued from the file as it left it;
    // still busy after the wait, the message is refused with `session_busy` naming the process.
    const lockOpts = {
      waitMs: sessionWaitMs(o.env),
      signal: run.controller.signal,
      // Another process, said in the log; a run of this one (a route's follow-up, just letting go) is no news.
      onWait: (m: string, owner: LockOwner | undefined) =>
        owner?.pid !== process.pid && o.warn(`route ${run.key}: ${m}`),
    };
    const continued = async (id: string): Promise<OpenedSession> => {
      const lock = await store.lock(id, lockOpts);
      try {
        return { session: await store.load(id), store, lock, cwd, model };
      } catch (err) {
        await lock.release();
        throw err;
      }
    };
    if (req.session.kind === 'session') return continued(req.session.id);
    const remembered = req.session.kind === 'new' || run.ephemeral ? undefined : await this.#remembered(run, store);
    if (remembered) {
      try {
        return await continued(remembered);
      } catch (err) {
        if (!isReinError(err, 'session_not_found') && !isReinError(err, 'session_corrupt')) throw err;
        o.warn(
          `route ${run.key}: session ${remembered} cannot be continued (${errorMessage(err)}); starting a new one`,
        );
      }
    }
    const session = store.create({ agent: run.agent, cwd, source: run.source, title: titleFromPrompt(req.text) });
    const channel = sessionChannel(req);
    // The loop saves this object on its first step, so the channel lands in the file with no extra write.
    if (channel !== undefined) session.channel = channel;
    const lock = await store.lock(session.id, { ...lockOpts, newSession: true });
    return { session, store, lock, cwd, model };
  }

  async #remembered(run: RouteRun, store: SessionStore): Promise<string | undefined> {
    const known = this.#o.lanes.sessionOf(run.key) ?? this.#o.routes.get(run.key)?.session_id;
    if (known) return known;
    if (run.key.startsWith('agent:')) {
      // A named agent's lane, first message since the daemon started: continue its latest conversation
      // with a person — not a schedule's, a heartbeat's or a watcher's run.
      return (await store.latest((s) => !UNATTENDED_SOURCES.has(s.source)))?.id;
    }
    return undefined;
  }
}
