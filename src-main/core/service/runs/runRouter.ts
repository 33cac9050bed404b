/**
 * Turns run requests into runs: routes each to its lane (routing.ts), injects it into the lane's run
 * in flight or takes the lane (lanes.ts), opens its session (sessionOpener.ts) and drives the run
 * (runDriver.ts). Every run gets its own runtime, whose faces and rules follow the request's origin
 * (core/permissions/runPolicy.ts): the approval desk for remote runs, the person's own faces too for
 * attended ones, nobody for unattended ones.
 */
import type { ReinEvent } from '../../api/events.js';
import type { MessageResult, RoutedEvent } from '../../api/protocol.js';
import { expandSlashCommand, loadCommands } from '../../commands/index.js';
import type { GlobalConfig } from '../../config/schema.js';
import { fieldError, ReinError } from '../../errors.js';
import type { ApprovalFace } from '../../permissions/types.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../../runtime/runtime.js';
import { RuntimeCache } from '../../runtime/runtimeCache.js';
import type { RunRequest } from '../../runtime/runRequest.js';
import { originTraits } from '../../permissions/runPolicy.js';
import type { SessionFile } from '../../sessions/types.js';
import { Turnstile } from '../../util/turnstile.js';
import type { ApprovalDesk } from '../approvalDesk.js';
import type { EventBus } from '../eventBus.js';
import type { RouteTable } from '../routeTable.js';
import { routeFor } from '../routing.js';
import { Lanes } from './lanes.js';
import { driveRun } from './runDriver.js';
import { RouteRun, type RunListener } from './routeRun.js';
import { SessionOpener } from './sessionOpener.js';

export { RouteRun, type RunListener };

export interface RouterOptions {
  home: string;
  /** Working folder of runs whose agent sets none. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * The global config as the files say now (service/liveConfig.ts), read as each run starts; throws
   * `config_invalid` while they do not load, which fails the run before anything runs.
   */
  config: () => Promise<GlobalConfig>;
  bus: EventBus;
  desk: ApprovalDesk;
  routes: RouteTable;
  maxConcurrent: number;
  warn?: (message: string) => void;
  /** Tests and embedders may build runtimes their own way (e.g. with an in-process model client). */
  createRuntime?: typeof createRuntime;
  /** The faces of the person present for attended runs (the desktop app's native dialog). */
  presentFaces?: (run: RouteRun) => ApprovalFace[];
  /** Whether a desktop or web client is connected (unattended runs with unattended_approvals: ask). */
  clientConnected?: () => boolean;
  /** Told about each session a run ended with, as saved (the service keeps its search index current). */
  afterRun?: (session: SessionFile) => void;
  /** Parts of runtimes kept between runs; the router makes its own when none is given. */
  cache?: RuntimeCache;
  /** "Always allow" answered over the API, for a person to confirm (RuntimeOptions.remoteGrants). */
  remoteGrants?: RuntimeOptions['remoteGrants'];
  /** Opens a page an MCP server asked a person to open (RuntimeOptions.openUrl). */
  openUrl?: RuntimeOptions['openUrl'];
}

export type SubmitOutcome = { injected: true; result: MessageResult } | { injected: false; run: RouteRun };

export class RunRouter {
  readonly #opts: RouterOptions;
  readonly #lanes: Lanes;
  readonly #opener: SessionOpener;
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
    this.#lanes = new Lanes({
      maxConcurrent: opts.maxConcurrent,
      execute: (run) => this.#execute(run),
      queued: (run, position) =>
        this.#publish(run, {
          type: 'run_queued',
          at: new Date().toISOString(),
          route: run.key,
          agent: run.agent,
          position,
        }),
    });
    this.#opener = new SessionOpener({
      home: opts.home,
      cwd: opts.cwd,
      env: opts.env,
      config: () => this.#opts.config(),
      cache: this.#cache,
      lanes: this.#lanes,
      routes: opts.routes,
      // An embedder's own createRuntime may bring its own model client; the default one needs access.
      checkModelAccess: !opts.createRuntime,
      warn: this.#warn,
    });
  }

  get running(): readonly RouteRun[] {
    return this.#lanes.running;
  }

  get queued(): readonly RouteRun[] {
    return this.#lanes.queued;
  }

  /**
   * Starts (or queues) a run for the request, or injects its text into the lane's run in flight.
   * `listener` is attached before anything is emitted, so it sees `run_queued` and `session_start`.
   */
  async submit(request: RunRequest, opts: { listener?: RunListener } = {}): Promise<SubmitOutcome> {
    if (this.#closing) throw new ReinError('shutting_down', 'the daemon is shutting down');
    const routed = routeFor(request);
    // Only text that starts with "/" waits for the commands to load; everything else stays synchronous up to injection.
    if (request.text.trimStart().startsWith('/')) request = await this.#expandCommand(request);
    const injected = this.#tryInject(routed.key, request);
    if (injected) return injected;

    // Refuse what cannot run before taking the lane, so a typo does not block it.
    await this.#opener.precheck(request);
    if (this.#closing) throw new ReinError('shutting_down', 'the daemon is shutting down');
    // Another message may have taken the lane while we checked.
    const late = this.#tryInject(routed.key, request);
    if (late) return late;

    const run = new RouteRun(routed.key, request, routed.ephemeral);
    if (opts.listener) run.listen(opts.listener);
    this.#lanes.take(run);
    return { injected: false, run };
  }

  /** Cancels the run (running or queued) matching the target; undefined when none does. */
  cancel(target: { route?: string; session_id?: string; agent?: string }): RouteRun | undefined {
    const key = target.route ?? (target.agent && target.agent !== 'default' ? `agent:${target.agent}` : undefined);
    const run = key
      ? this.#lanes.active(key)
      : target.session_id
        ? this.#lanes.bySession(target.session_id)
        : undefined;
    if (!run || run.state === 'done') return undefined;
    this.#lanes.cancel(run, 'cancelled');
    return run;
  }

  /** The session a route continues, if known (for status and tests). */
  sessionOf(routeKey: string): string | undefined {
    return this.#lanes.sessionOf(routeKey) ?? this.#opts.routes.get(routeKey)?.session_id;
  }

  /**
   * An agent is being deleted: cancel its runs (running and queued), wait up to `waitMs` for them to
   * save and end, and forget its routes, so nothing writes into its folder once it has been moved.
   */
  async evictAgent(agent: string, waitMs = 5_000): Promise<void> {
    const runs = this.#lanes.forgetAgent(agent);
    for (const run of runs) this.#lanes.cancel(run, 'agent deleted');
    await raceTimeout(Promise.all(runs.map((r) => r.done.catch(() => undefined))), waitMs);
    this.#lanes.dropIdleLanes(agent);
    this.#opts.routes.forgetAgent(agent);
  }

  /**
   * Stops taking messages, drops the queue, lets running runs finish for up to `graceMs`, then cancels
   * them and waits up to `cancelMs` for them to save and end.
   */
  async dispose(graceMs: number, cancelMs: number): Promise<void> {
    this.#closing = true;
    for (const run of this.#lanes.queued) this.#lanes.cancel(run, 'shutting down');
    const allDone = () => Promise.all(this.#lanes.running.map((r) => r.done.catch(() => undefined)));
    await raceTimeout(allDone(), graceMs);
    for (const run of this.#lanes.running) run.controller.abort(new Error('daemon shutting down'));
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
  async #expandCommand(request: RunRequest): Promise<RunRequest> {
    const { commands } = await loadCommands({ home: this.#opts.home, agent: request.agent });
    const expanded = expandSlashCommand(request.text, commands);
    if (expanded === null) return request;
    if ('error' in expanded) throw fieldError('unknown_command', expanded.error, 'text');
    return { ...request, text: expanded.prompt };
  }

  #tryInject(key: string, request: RunRequest): SubmitOutcome | undefined {
    const active = this.#lanes.active(key);
    if (!active) return undefined;
    active.inbox.push(request.sender ? `${request.sender}: ${request.text}` : request.text);
    const sessionId = active.sessionId ?? this.#lanes.sessionOf(key);
    return {
      injected: true,
      result: { injected: true, route: key, agent: request.agent, ...(sessionId ? { session_id: sessionId } : {}) },
    };
  }

  #execute(run: RouteRun): Promise<void> {
    return driveRun(run, {
      home: this.#opts.home,
      opener: this.#opener,
      desk: this.#opts.desk,
      turnstile: this.#turnstile,
      pace: this.#pace,
      runtimeFor: (r) => this.#runtimeFor(r),
      opened: (r, session) => {
        this.#lanes.setSession(r.key, session.id);
        if (!r.ephemeral) this.#opts.routes.set(r.key, r.agent, session.id);
      },
      publish: (r, ev) => this.#publishRunEvent(r, ev),
      announce: (r, ev) => void this.#opts.bus.publish({ ...ev, route: r.key }),
      ...(this.#opts.afterRun ? { afterRun: this.#opts.afterRun } : {}),
      finished: (r, leftover, outcome, sessionId) => {
        this.#lanes.release(r);
        if (leftover.length > 0 && !this.#closing && outcome.stopReason !== 'cancelled') {
          // Messages that arrived after the loop's last look at its inbox: they get a run of their own on
          // the same lane, so nothing a person sent is silently dropped.
          const follow = new RouteRun(
            r.key,
            { ...r.request, text: leftover.join('\n\n'), session: { kind: 'session', id: sessionId } },
            r.ephemeral,
          );
          this.#lanes.take(follow);
        }
      },
      abandoned: (r) => this.#lanes.release(r),
      warn: this.#warn,
    });
  }

  async #runtimeFor(run: RouteRun): Promise<Runtime> {
    const o = this.#opts;
    const req = run.request;
    // createRuntime lays the agent's own config over the global one (model, limits, auto_approve…);
    // the global one is what the run's session was opened with.
    return this.#createRuntime({
      home: o.home,
      cwd: o.cwd,
      env: o.env,
      config: run.config ?? (await o.config()),
      agent: run.agent,
      source: run.source,
      origin: req.origin,
      route: run.key,
      ...(req.overrides ? { overrides: req.overrides } : {}),
      desk: o.desk.face(),
      ...(originTraits(req.origin).personPresent && o.presentFaces ? { faces: o.presentFaces(run) } : {}),
      ...(o.clientConnected ? { clientConnected: o.clientConnected } : {}),
      cache: this.#cache,
      pace: this.#pace,
      ...(o.remoteGrants ? { remoteGrants: o.remoteGrants } : {}),
      ...(o.openUrl ? { openUrl: o.openUrl } : {}),
    });
  }

  #publishRunEvent(run: RouteRun, ev: ReinEvent): void {
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
