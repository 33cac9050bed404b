/**
 * Turns messages into runs. Each route (see routing.ts) has at most one run in flight; a message for a
 * busy route goes into that run's Inbox instead of starting a second run. Different routes run
 * concurrently up to `maxConcurrent`; the rest wait in a FIFO queue and are told their position.
 *
 * Every run gets its own runtime (createRuntime) whose only approval face is the daemon's desk, so a
 * synchronous HTTP caller gets no more power than a streaming one. Every event of every run goes to
 * the bus with its route, and to the listener of the request that started it.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { emptyUsage, type ReinEvent } from '../api/events.js';
import { agentExists } from '../agents/index.js';
import { expandSlashCommand, loadCommands } from '../commands/index.js';
import { DEFAULT_AGENT, paths } from '../config/paths.js';
import type { GlobalConfig } from '../config/schema.js';
import { errorMessage, isReinError } from '../errors.js';
import { Inbox } from '../harness/inbox.js';
import type { RunOutcome } from '../harness/loop.js';
import { createRuntime, resolveModelAccess, startRun, type Runtime, type StartedRun } from '../runtime/runtime.js';
import { SessionStore } from '../sessions/store.js';
import { titleFromPrompt } from '../sessions/title.js';
import { RuntimeCache } from '../runtime/runtimeCache.js';
import { Turnstile } from '../util/turnstile.js';
import type { SessionFile } from '../sessions/types.js';
import type { ApprovalFace } from '../permissions/types.js';
import type { ApprovalDesk } from './approvalDesk.js';
import type { BusEntry, EventBus } from './eventBus.js';
import { HttpError } from './httpError.js';
import type { MessageRequest, MessageResult, RoutedEvent } from './protocol.js';
import type { RouteTable } from './routeTable.js';
import { routeFor, sessionChannel } from './routing.js';

export type RunListener = (entry: BusEntry) => void;

export interface RouterOptions {
  home: string;
  /** Working folder of runs whose agent sets none. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: GlobalConfig;
  bus: EventBus;
  desk: ApprovalDesk;
  routes: RouteTable;
  maxConcurrent: number;
  warn?: (message: string) => void;
  /** Tests and embedders may build runtimes their own way (e.g. with an in-process model client). */
  createRuntime?: typeof createRuntime;
  /** Faces besides the daemon's own that every run asks too (the desktop app's card); first answer wins. */
  extraFaces?: (route: string, agent: string) => ApprovalFace[];
  /** Told about each session a run ended with, as saved (the daemon keeps its search index current). */
  afterRun?: (session: SessionFile) => void;
  /** Parts of runtimes kept between runs; the router makes its own when none is given. */
  cache?: RuntimeCache;
}

export type SubmitOutcome = { injected: true; result: MessageResult } | { injected: false; run: RouteRun };

export class RouteRun {
  readonly inbox = new Inbox();
  readonly controller = new AbortController();
  state: 'queued' | 'running' | 'done' = 'queued';
  sessionId: string | undefined;
  startedAt: string | undefined;
  readonly #listeners = new Set<RunListener>();
  readonly done: Promise<MessageResult>;
  settle!: (r: MessageResult) => void;
  fail!: (e: unknown) => void;

  constructor(
    readonly key: string,
    readonly agent: string,
    readonly source: string,
    readonly msg: MessageRequest,
    readonly ephemeral: boolean,
  ) {
    this.done = new Promise<MessageResult>((ok, bad) => {
      this.settle = ok;
      this.fail = bad;
    });
    // The HTTP handler awaits `done`; background runs (chained follow-ups) may have nobody awaiting.
    this.done.catch(() => undefined);
  }

  listen(l: RunListener): () => void {
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }

  emit(entry: BusEntry): void {
    for (const l of this.#listeners) {
      try {
        l(entry);
      } catch {
        // A listener's own failure (a closed socket) is its own business.
      }
    }
  }
}

interface RouteState {
  run?: RouteRun;
  /** The session the next run on this route continues. */
  sessionId?: string;
}

export class RunRouter {
  readonly #opts: RouterOptions;
  readonly #routes = new Map<string, RouteState>();
  readonly #queue: RouteRun[] = [];
  readonly #running = new Set<RouteRun>();
  #closing = false;
  readonly #warn: (m: string) => void;
  readonly #createRuntime: typeof createRuntime;
  readonly #cache: RuntimeCache;
  readonly #turnstile = new Turnstile();
  /** One function for every run and model client, so they share one paced transport (RuntimeCache). */
  readonly #pace = () => this.#turnstile.pass();

  constructor(opts: RouterOptions) {
    this.#opts = opts;
    this.#cache = opts.cache ?? new RuntimeCache();
    this.#warn = opts.warn ?? (() => undefined);
    this.#createRuntime = opts.createRuntime ?? createRuntime;
  }

  /** New global config (the settings view saved it): runs started from now on use it. */
  updateConfig(config: GlobalConfig): void {
    this.#opts.config = config;
  }

  get running(): readonly RouteRun[] {
    return [...this.#running];
  }

  get queued(): readonly RouteRun[] {
    return [...this.#queue];
  }

  /**
   * Starts (or queues) a run for the message, or injects it into the route's run in flight. `listener`
   * is attached before anything is emitted, so it sees `run_queued` and `session_start`.
   */
  async submit(msg: MessageRequest, opts: { listener?: RunListener; defaultSource?: string } = {}): Promise<SubmitOutcome> {
    if (this.#closing) throw new HttpError(503, 'shutting_down', 'the daemon is shutting down');
    const routed = routeFor(msg, opts.defaultSource);
    // Only text that starts with "/" waits for the commands to load; everything else stays synchronous up to injection.
    if (msg.text.trimStart().startsWith('/')) msg = await this.#expandCommand(msg, routed.agent);
    const injected = this.#tryInject(routed.key, routed.agent, msg);
    if (injected) return injected;

    // Refuse what cannot run before taking the route, so a typo does not block a lane.
    if (routed.agent !== DEFAULT_AGENT && !(await agentExists(this.#opts.home, routed.agent))) {
      throw new HttpError(404, 'agent_not_found', `agent "${routed.agent}" not found`);
    }
    if (msg.session_id) {
      const file = join(paths.sessionsDir(this.#opts.home, routed.agent), `${msg.session_id}.json`);
      try {
        await access(file);
      } catch {
        throw new HttpError(404, 'session_not_found', `no session ${msg.session_id} for agent "${routed.agent}"`);
      }
    }
    if (this.#closing) throw new HttpError(503, 'shutting_down', 'the daemon is shutting down');
    // Another message may have taken the route while we checked.
    const late = this.#tryInject(routed.key, routed.agent, msg);
    if (late) return late;

    const run = new RouteRun(routed.key, routed.agent, routed.source, msg, routed.ephemeral);
    if (opts.listener) run.listen(opts.listener);
    this.#take(run);
    return { injected: false, run };
  }

  /** Cancels the run (running or queued) matching the request; undefined when none does. */
  cancel(target: { route?: string; session_id?: string; agent?: string }): RouteRun | undefined {
    const key = target.route ?? (target.agent && target.agent !== DEFAULT_AGENT ? `agent:${target.agent}` : undefined);
    let run: RouteRun | undefined;
    if (key) run = this.#routes.get(key)?.run;
    else if (target.session_id) {
      run = [...this.#running, ...this.#queue].find((r) => r.sessionId === target.session_id || (r.state === 'queued' && this.#routes.get(r.key)?.sessionId === target.session_id));
    }
    if (!run || run.state === 'done') return undefined;
    this.#cancelRun(run, 'cancelled');
    return run;
  }

  /** The session a route continues, if known (for status and tests). */
  sessionOf(routeKey: string): string | undefined {
    return this.#routes.get(routeKey)?.sessionId ?? this.#opts.routes.get(routeKey)?.session_id;
  }

  /**
   * An agent is being deleted: cancel its runs (running and queued), wait up to `waitMs` for them to
   * save and end, and forget its routes, so nothing writes into its folder once it has been moved.
   */
  async evictAgent(agent: string, waitMs = 5_000): Promise<void> {
    const runs: RouteRun[] = [];
    for (const [key, state] of this.#routes) {
      if (state.run && state.run.agent === agent && state.run.state !== 'done') {
        runs.push(state.run);
        this.#cancelRun(state.run, 'agent deleted');
      }
      if (key === `agent:${agent}`) state.sessionId = undefined;
    }
    await raceTimeout(Promise.all(runs.map((r) => r.done.catch(() => undefined))), waitMs);
    for (const [key, state] of this.#routes) if (key === `agent:${agent}` && !state.run) this.#routes.delete(key);
    this.#opts.routes.forgetAgent(agent);
  }

  /**
   * Stops taking messages, drops the queue, lets running runs finish for up to `graceMs`, then cancels
   * them and waits up to `cancelMs` for them to save and end.
   */
  async close(graceMs: number, cancelMs: number): Promise<void> {
    this.#closing = true;
    for (const run of [...this.#queue]) this.#cancelRun(run, 'shutting down');
    const allDone = () => Promise.all([...this.#running].map((r) => r.done.catch(() => undefined)));
    await raceTimeout(allDone(), graceMs);
    for (const run of [...this.#running]) run.controller.abort(new Error('daemon shutting down'));
    this.#opts.desk.denyAll('shutdown');
    await raceTimeout(allDone(), cancelMs);
    await this.#opts.routes.flush();
  }

  /**
   * `/name args` becomes the prompt of the agent's command `name`, for every client alike (the page,
   * Slack through a webhook, scripts), as `rein run` does. Text that only looks like a path
   * (`/usr/bin/env …`) and the names the clients keep for themselves (`/help`, `/new`…) go through as
   * typed; a well-formed name no command has is refused, naming the commands there are.
   */
  async #expandCommand(msg: MessageRequest, agent: string): Promise<MessageRequest> {
    const { commands } = await loadCommands({ home: this.#opts.home, agent });
    const expanded = expandSlashCommand(msg.text, commands);
    if (expanded === null) return msg;
    if ('error' in expanded) throw new HttpError(400, 'unknown_command', expanded.error, 'text');
    return { ...msg, text: expanded.prompt };
  }

  #tryInject(key: string, agent: string, msg: MessageRequest): SubmitOutcome | undefined {
    const active = this.#routes.get(key)?.run;
    if (!active || active.state === 'done') return undefined;
    active.inbox.push(msg.sender ? `${msg.sender}: ${msg.text}` : msg.text);
    const sessionId = active.sessionId ?? this.#routes.get(key)?.sessionId;
    return { injected: true, result: { injected: true, route: key, agent, ...(sessionId ? { session_id: sessionId } : {}) } };
  }

  #take(run: RouteRun): void {
    const state = this.#routes.get(run.key) ?? {};
    state.run = run;
    this.#routes.set(run.key, state);
    if (this.#running.size < this.#opts.maxConcurrent) {
      this.#start(run);
      return;
    }
    this.#queue.push(run);
    this.#publish(run, { type: 'run_queued', at: new Date().toISOString(), route: run.key, agent: run.agent, position: this.#queue.length });
  }

  #start(run: RouteRun): void {
    run.state = 'running';
    run.startedAt = new Date().toISOString();
    this.#running.add(run);
    void this.#execute(run).finally(() => {
      this.#running.delete(run);
      this.#next();
    });
  }

  #next(): void {
    while (this.#running.size < this.#opts.maxConcurrent && this.#queue.length > 0) this.#start(this.#queue.shift()!);
  }

  #cancelRun(run: RouteRun, why: string): void {
    if (run.state === 'queued') {
      const i = this.#queue.indexOf(run);
      if (i >= 0) this.#queue.splice(i, 1);
      run.state = 'done';
      this.#release(run);
      run.settle({
        injected: false,
        route: run.key,
        agent: run.agent,
        session_id: this.#routes.get(run.key)?.sessionId ?? '',
        text: '',
        stop_reason: 'cancelled',
        usage: emptyUsage(),
        iterations: 0,
        error: { code: 'cancelled', message: `the run was ${why} before it started` },
      });
      return;
    }
    run.controller.abort(new Error(why));
  }

  async #execute(run: RouteRun): Promise<void> {
    let outcome: RunOutcome | undefined;
    let session: SessionFile;
    let cwd: string;
    let model: string;
    try {
      ({ session, cwd, model } = await this.#openSession(run));
    } catch (err) {
      // Nothing ran (no agent config, no model access, no session): the caller gets the error itself.
      run.state = 'done';
      this.#release(run);
      run.fail(err);
      return;
    }
    run.sessionId = session.id;
    const state = this.#routes.get(run.key);
    if (state) state.sessionId = session.id;
    if (!run.ephemeral) this.#opts.routes.set(run.key, run.agent, session.id);
    // The session is announced before the rest of the run is built (its tools, permissions, prompt
    // parts), and the run gives way right after: fifty messages arriving together all get their
    // session_start before any of them goes on. From then on runs take turns with each other, behind
    // the I/O that is ready (see Turnstile).
    this.#emitRunEvent(run, {
      type: 'session_start',
      sessionId: session.id,
      seq: 0,
      at: new Date().toISOString(),
      agent: run.agent,
      source: run.source,
      model,
      resumed: session.messages.length > 0,
      cwd,
    });
    let lastSeq = 0;
    let started: StartedRun | undefined;
    try {
      await this.#turnstile.yieldTurn();
      const runtime = await this.#runtimeFor(run);
      started = await startRun(runtime, { ...this.#runBase(run, cwd), session, announced: true });
      const { events } = started;
      for (;;) {
        if (lastSeq > 0) await this.#turnstile.pass();
        const step = await events.next();
        if (step.done) {
          outcome = step.value;
          break;
        }
        lastSeq = step.value.seq;
        this.#emitRunEvent(run, step.value);
      }
    } catch (err) {
      // The loop reports its own failures as events; a throw here is a runtime that could not be built
      // after the session was announced, a bug, or a disk failure. The stream still ends properly.
      const code = isReinError(err) ? err.code : 'internal';
      const message = isReinError(err) ? err.message : `run failed: ${errorMessage(err)}`;
      const at = new Date().toISOString();
      this.#emitRunEvent(run, { type: 'error', sessionId: session.id, seq: lastSeq + 1, at, code, message });
      outcome = { stopReason: 'error', text: '', usage: emptyUsage(), iterations: 0, error: { code, message } };
      this.#emitRunEvent(run, { type: 'session_end', sessionId: session.id, seq: lastSeq + 2, at, stopReason: 'error', text: '', usage: outcome.usage, iterations: 0 });
    }
    run.state = 'done';
    // Only a session the loop worked on (and saved) is worth indexing.
    if (started && this.#opts.afterRun) {
      try {
        this.#opts.afterRun(session);
      } catch (err) {
        this.#warn(`after run on ${run.key}: ${errorMessage(err)}`);
      }
    }
    // Done with the session: the route's next message, which may already be waiting, continues it as it is.
    started?.release();
    const leftover = run.inbox.drain();
    this.#release(run);
    run.settle({
      injected: false,
      route: run.key,
      agent: run.agent,
      session_id: session.id,
      text: outcome.text,
      stop_reason: outcome.stopReason,
      usage: outcome.usage,
      iterations: outcome.iterations,
      ...(outcome.error ? { error: outcome.error } : {}),
    });
    if (leftover.length > 0 && !this.#closing && outcome.stopReason !== 'cancelled') {
      // Messages that arrived after the loop's last look at its inbox: they get a run of their own on
      // the same route, so nothing a person sent is silently dropped.
      const follow = new RouteRun(run.key, run.agent, run.source, { ...run.msg, text: leftover.join('\n\n'), session_id: session.id, new_session: false }, run.ephemeral);
      this.#take(follow);
    }
  }

  async #runtimeFor(run: RouteRun): Promise<Runtime> {
    const o = this.#opts;
    // createRuntime lays the agent's own config over the global one (model, limits, auto_approve…).
    return this.#createRuntime({
      home: o.home,
      cwd: o.cwd,
      env: o.env,
      config: o.config,
      agent: run.agent,
      source: run.source,
      faces: [o.desk.faceFor(run.key), ...(o.extraFaces?.(run.key, run.agent) ?? [])],
      cache: this.#cache,
      pace: this.#pace,
    });
  }

  #runBase(run: RouteRun, cwd: string) {
    // Where the message came from (source, channel, thread, sender) goes into the stable part of the prompt.
    const sourceFacts = {
      source: run.source,
      ...(run.msg.channel ? { channel: run.msg.channel } : {}),
      ...(run.msg.thread_id ? { thread: run.msg.thread_id } : {}),
      ...(run.msg.sender ? { sender: run.msg.sender } : {}),
    };
    return { prompt: run.msg.text, cwd, home: this.#opts.home, signal: run.controller.signal, inbox: run.inbox, sourceFacts, pace: this.#pace };
  }

  /**
   * What must hold before the session is announced, so that its failures still reach the caller as
   * errors: the agent's config loads, the model can be reached (a key or a local base URL), and the
   * session is there — the one named, the route's current one (a new one, with a warning, when that
   * cannot be continued), or a new one.
   */
  async #openSession(run: RouteRun): Promise<{ session: SessionFile; cwd: string; model: string }> {
    const o = this.#opts;
    const rc = await this.#cache.agentConfig(o.home, o.config, run.agent);
    // An embedder's own createRuntime may bring its own model client; the default one needs access.
    if (!o.createRuntime) resolveModelAccess(o.env, rc.effective.config, o.home);
    const cwd = rc.cwd ?? o.cwd;
    const model = rc.effective.model;
    const store = new SessionStore(rc.sessionsDir, { cache: this.#cache.sessions });
    if (run.msg.session_id) return { session: await store.load(run.msg.session_id), cwd, model };
    const remembered = run.msg.new_session || run.ephemeral ? undefined : await this.#rememberedSession(run, store);
    if (remembered) {
      try {
        return { session: await store.load(remembered), cwd, model };
      } catch (err) {
        if (!isReinError(err, 'session_not_found') && !isReinError(err, 'session_corrupt')) throw err;
        this.#warn(`route ${run.key}: session ${remembered} cannot be continued (${errorMessage(err)}); starting a new one`);
      }
    }
    const session = store.create({ agent: run.agent, cwd, source: run.source, title: titleFromPrompt(run.msg.text) });
    const channel = sessionChannel(run.msg);
    // The loop saves this object on its first step, so the channel lands in the file with no extra write.
    if (channel !== undefined) session.channel = channel;
    return { session, cwd, model };
  }

  async #rememberedSession(run: RouteRun, store: SessionStore): Promise<string | undefined> {
    const known = this.#routes.get(run.key)?.sessionId ?? this.#opts.routes.get(run.key)?.session_id;
    if (known) return known;
    if (run.key.startsWith('agent:')) {
      // A named agent's lane, first message since the daemon started: continue its latest conversation.
      return (await store.latest())?.id;
    }
    return undefined;
  }

  #release(run: RouteRun): void {
    const state = this.#routes.get(run.key);
    if (state?.run === run) {
      state.run = undefined;
      if (run.ephemeral) this.#routes.delete(run.key);
    }
  }

  #emitRunEvent(run: RouteRun, ev: ReinEvent): void {
    if (ev.type === 'approval_request') {
      const routed = { ...ev, route: run.key, agent: run.agent };
      // Registered before the loop asks the broker, so even an instant answer finds its question.
      this.#opts.desk.open(
        {
          id: ev.requestId,
          sessionId: ev.sessionId,
          agent: run.agent,
          source: run.source,
          tool: ev.tool,
          summary: ev.summary,
          input: undefined,
          reason: ev.reason,
          layer: ev.layer,
          risk: ev.risk,
          riskExplanation: ev.riskExplanation,
        },
        run.key,
        routed,
      );
      this.#publish(run, routed);
      return;
    }
    this.#publish(run, { ...ev, route: run.key });
  }

  #publish(run: RouteRun, ev: RoutedEvent): void {
    run.emit(this.#opts.bus.publish(ev));
  }
}

async function raceTimeout(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p, new Promise<void>((ok) => (timer = setTimeout(ok, ms)))]);
  clearTimeout(timer);
}
