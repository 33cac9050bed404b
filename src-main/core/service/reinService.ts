/**
 * One service behind every face. The daemon's operations — send, cancel, approve, ask for an approval,
 * a heartbeat now, agents, sessions, settings, switch agent, search, status — as transport-neutral
 * functions that throw ReinErrors with codes. The daemon's HTTP and WebSocket adapters, the desktop
 * app's IPC handlers and the schedule runners only parse, validate and answer; nothing here knows about
 * a socket or a window. It is built before any face (startDaemon's `serviceReady`): the window works on
 * it even when the daemon's port is taken. `rein run` and `rein mcp serve` use its smaller parts
 * (oneShot.ts, toolCalls.ts).
 *
 * The service owns the event bus, the approval and change desks, the run router with its lanes and
 * route table, the runtime cache and the search index, all private: faces get methods and read-only
 * views. It is torn down with `dispose()`, in reverse order of what it made.
 */
import type { ApprovalRequest, DaemonEvent } from '../api/events.js';
import type { MessageRequest } from '../api/protocol.js';
import type { McpLoginResult, McpReconnectResult, McpServersResult } from '../api/mcpStatus.js';
import type {
  AgentDetail,
  ChangePending,
  ReinOperationInput,
  ReinOperationName,
  ReinOperationOutput,
  ReinSettings,
  ReinStatus,
  SaveSettingsInput,
  SendMessageResult,
} from '../api/reinApi.js';
import { agentExists, listAgents, type AgentRuntimeConfig } from '../agents/index.js';
import type { SessionCache } from '../sessions/sessionCache.js';
import { DisposableStore, toDisposable, type AsyncDisposable, type Disposable } from '../base/lifecycle.js';
import { describeValue, printable, shellWord } from '../config/folderTrust.js';
import type { LoadedOverlay } from '../config/load.js';
import { DEFAULT_AGENT } from '../config/paths.js';
import { trustFolder } from '../config/trustedFolders.js';
import type { GlobalConfig } from '../config/schema.js';
import { ReinError, errorMessage, fieldError } from '../errors.js';
import type { ApprovalFace } from '../permissions/types.js';
import { createRuntime, REMOTE_FACE, type RemoteGrant, type RuntimeOptions } from '../runtime/runtime.js';
import { RuntimeCache, type McpTokenStores } from '../runtime/runtimeCache.js';
import { runRequestFromMessage, type EntryPoint, type RunRequest } from '../runtime/runRequest.js';
import { SessionIndex } from '../search/sessionIndex.js';
import { sessionSnapshot } from '../sessions/snapshot.js';
import { bundledSkillsDir, loadSkills } from '../skills/index.js';
import { createAgent, listAgentSummaries, removeAgent, saveAgent, view, type AgentsDeps } from './agents.js';
import { ApprovalDesk, pendingApprovalJson } from './approvalDesk.js';
import { EventBus, type BusEntry, type BusListener } from './eventBus.js';
import { RouteTable } from './routeTable.js';
import { RunRouter, type RouteRun, type RunListener, type SubmitOutcome } from './runs/runRouter.js';
import { listSessionSummaries, loadSession, searchHits } from './sessions.js';
import { saveSettings, settingsView, testConnection, type SettingsDeps } from './settings.js';
import { ChangeDesk, shellChangeCommand, type ChangeSource } from './changeDesk.js';
import { LiveConfig } from './liveConfig.js';
import { maskSecretsIn } from '../audit/maskSecrets.js';
import { pageOpener } from '../mcpClient/browser.js';
import { McpServers, type UrlOpener } from './mcpServers.js';
import { Schedules } from '../schedule/schedules.js';
import type { NewSchedule, SchedulePatch } from '../schedule/store.js';
import { ScheduleClock } from '../triggers/scheduleClock.js';
import { runSchedule, serviceSubmit, type ScheduleRunOutcome, type ScheduleTrigger } from '../triggers/scheduleRuns.js';
import {
  listScheduleViews,
  readScheduleLog,
  scheduleLogs,
  scheduleView,
  type ScheduleLogEntry,
  type ScheduleView,
} from './schedules.js';

/** Building a runtime to know an "always allow" grant needs no model: none is ever called. */
const NO_MODEL: NonNullable<RuntimeOptions['llm']> = {
  // eslint-disable-next-line require-yield
  async *turn() {
    throw new Error('this runtime only describes an "always allow" grant; it never calls the model');
  },
};

export const DEFAULT_SHUTDOWN_GRACE_MS = 2_500;
export const DEFAULT_SHUTDOWN_CANCEL_MS = 2_500;

export interface ReinServiceOptions {
  home: string;
  /** Working folder for runs whose agent sets none. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * The global config: a LiveConfig follows config.yaml, the cwd's overlay and the trust file (the
   * daemon, the desktop app); a plain config is used as it is, changed only by settings saved here.
   */
  config: GlobalConfig | LiveConfig;
  version: string;
  warn?: (message: string) => void;
  createRuntime?: typeof createRuntime;
  /** The faces of the person present for attended runs (the desktop app's native dialog). */
  presentFaces?: (run: RouteRun) => ApprovalFace[];
  /** Shows an MCP server's sign-in page to the person (the desktop app: shell.openExternal; default: their browser, $BROWSER first). */
  openUrl?: UrlOpener;
  /** Where MCP servers' OAuth sign-ins are kept (the desktop app's key store; default: 0600 files under secrets/). */
  mcpTokenStores?: McpTokenStores;
  shutdownGraceMs?: number;
  shutdownCancelMs?: number;
  /**
   * A person can confirm permission-raising changes in a shell on this machine (`rein changes accept`):
   * the daemon made its confirm secret (daemon/confirmSecret.ts). Without it only the desktop app can.
   */
  confirmInShell?: boolean;
}

type Op<K extends ReinOperationName> = ReinOperationOutput<K>;

/** Who is connected to hear about runs and approvals: the desktop app, WebSocket clients (the web UI), event streams. */
export type ClientKind = 'desktop' | 'ws' | 'events';

/** The runs a service has in flight and waiting, read-only. */
export interface RunsInFlight {
  readonly running: readonly RouteRun[];
  readonly queued: readonly RouteRun[];
}

export class ReinService implements AsyncDisposable {
  readonly home: string;
  readonly version: string;
  readonly startedAt = new Date();
  readonly env: NodeJS.ProcessEnv;
  // What the service is made of stays inside it: faces call the methods below (docs/architecture.md).
  readonly #bus = new EventBus();
  readonly #desk = new ApprovalDesk();
  /** Permission-raising changes asked for over the API, waiting for a person (a shell on this machine, the desktop app). */
  readonly #changes: ChangeDesk;
  readonly #router: RunRouter;
  readonly #cache = new RuntimeCache();
  /** The agent the desktop and web UI talk to (switchAgent); `default` at start. */
  #activeAgent = DEFAULT_AGENT;
  readonly #opts: ReinServiceOptions;
  readonly #warn: (m: string) => void;
  readonly #clients: Record<ClientKind, number> = { desktop: 0, ws: 0, events: 0 };
  readonly #store = new DisposableStore();
  readonly #live: LiveConfig;
  /** The trust_folder change offered for each version (sha256) of the cwd's overlay. */
  readonly #trustOffers = new Map<string, string>();
  #index: Promise<SessionIndex> | undefined;
  #indexOpen = false;
  #closing: Promise<void> | undefined;
  /** Scheduled runs going in this process (runScheduleNow), until their outcome is recorded. */
  readonly #scheduleRuns = new Set<Promise<unknown>>();
  readonly #mcp: McpServers;

  private constructor(opts: ReinServiceOptions, routes: RouteTable) {
    this.#opts = opts;
    this.home = opts.home;
    this.version = opts.version;
    this.env = opts.env;
    this.#live = opts.config instanceof LiveConfig ? opts.config : LiveConfig.fixed(opts.config);
    this.#warn = opts.warn ?? (() => undefined);
    this.#router = new RunRouter({
      home: opts.home,
      cwd: opts.cwd,
      env: opts.env,
      config: () => this.#live.current(),
      bus: this.#bus,
      desk: this.#desk,
      routes,
      maxConcurrent: this.#live.last.daemon.max_concurrent_runs,
      warn: this.#warn,
      cache: this.#cache,
      ...(opts.createRuntime ? { createRuntime: opts.createRuntime } : {}),
      ...(opts.presentFaces ? { presentFaces: opts.presentFaces } : {}),
      clientConnected: () => this.clientConnected(),
      // An "always allow" answered over HTTP or the WebSocket is a raise like any other (changeDesk.ts).
      // A page an MCP server asks a person to open (URL-mode elicitation), once they allowed it.
      openUrl: opts.openUrl ?? pageOpener(opts.env, { write: (text: string) => this.#warn(text.trimEnd()) }),
      remoteGrants: (grant) => this.#proposeGrant(grant).message,
      afterRun: (session) => {
        // Only once something searched: opening the index builds it from every file, which is the
        // search's job to pay for, not every run's. Until then the run's own saves noted the session for
        // whatever opens the index next (runtime.ts, search/pendingIndex.ts). The router hands `session` back to the store right
        // after this returns, for the route's next run to continue: an open index reads it before any
        // such run can start (the upsert is a microtask), one still opening gets a copy (sharing its strings).
        const s = this.#indexOpen || !this.#index ? session : sessionSnapshot(session);
        // A damaged index is moved aside and rebuilt (the rebuild reads this session's file too).
        void this.#index
          ?.then((i) => i.withRepair(() => i.upsert(s)))
          .catch((e: unknown) => this.#warn(`search index: ${errorMessage(e)}`));
      },
    });
    this.#store.add(this.#cache);
    if (opts.mcpTokenStores) this.#cache.mcpTokenStores = opts.mcpTokenStores;
    // The MCP panels look again when a server's state changes instead of asking every few seconds.
    const mcpStatus = (agent: string, server: string, state: string) =>
      this.publish({ type: 'mcp_status', at: new Date().toISOString(), agent, server, state });
    this.#cache.onMcpState = mcpStatus;
    this.#mcp = new McpServers({
      home: opts.home,
      cwd: opts.cwd,
      env: opts.env,
      cache: this.#cache,
      config: () => this.#live.current(),
      warn: this.#warn,
      ...(opts.openUrl ? { open: opts.openUrl } : {}),
      changed: mcpStatus,
    });
    this.#store.add(this.#mcp);
    this.#changes = new ChangeDesk({
      home: opts.home,
      publish: (e) => this.publish(e),
      desktopAttached: () => this.#clients.desktop > 0,
      ...(opts.confirmInShell ? { shellCommand: shellChangeCommand(opts.home) } : {}),
    });
    this.#store.add(this.#changes);
    // The daemon's folder holds an overlay nobody trusted: a person in the app may trust it (trust_folder).
    this.#live.untrusted = (overlay) => this.#offerTrust(overlay);
  }

  static async create(opts: ReinServiceOptions): Promise<ReinService> {
    const routes = new RouteTable(opts.home, opts.warn);
    await routes.load();
    return new ReinService(opts, routes);
  }

  /**
   * The last global config that loaded (what heartbeat timers and schedules read). Runs, the settings
   * view and the MCP list read the files as they are now (LiveConfig.current()).
   */
  get activeAgent(): string {
    return this.#activeAgent;
  }

  get config(): GlobalConfig {
    return this.#live.last;
  }

  /** The config as config.yaml (and the cwd's trusted overlay) say now; throws `config_invalid` while they do not load. */
  currentConfig(): Promise<GlobalConfig> {
    return this.#live.current();
  }

  /** A saved settings change: runs that start from now on use it. */
  setConfig(config: GlobalConfig): void {
    this.#live.saved(config);
  }

  // ---- clients ----------------------------------------------------------------------------------------

  /** A client that hears about runs and can answer approvals; the returned Disposable says it left. */
  attachClient(kind: ClientKind): Disposable {
    this.#clients[kind]++;
    if (kind === 'desktop') {
      const overlay = this.#live.overlay;
      if (overlay && !overlay.applied) this.#offerTrust(overlay);
    }
    return toDisposable(() => void this.#clients[kind]--);
  }

  get clients(): Readonly<Record<ClientKind, number>> {
    return { ...this.#clients };
  }

  /** Is a desktop window or a web page connected, to answer an unattended run's question? */
  clientConnected(): boolean {
    return this.#clients.desktop > 0 || this.#clients.ws > 0;
  }

  subscribe(listener: BusListener): Disposable {
    return toDisposable(this.#bus.subscribe(listener));
  }

  publish(event: DaemonEvent): void {
    this.#bus.publish(event);
  }

  /**
   * What a stream that (re)connects is owed: the bus's events after `lastId` (all it keeps without one),
   * then the questions still pending that those did not include, as `approval_request` JSON.
   */
  replaySince(lastId: string | undefined): { replayed: BusEntry[]; pendingApprovals: string[] } {
    const replayed = this.#bus.since(lastId);
    return { replayed, pendingApprovals: pendingApprovalJson(this.#desk, replayed) };
  }

  /**
   * The approval desk's asking side, for a question asked in this process (the desktop window's tests,
   * an embedder). Answers, listings and questions from elsewhere go through answerApproval, listApprovals
   * and askApproval.
   */
  get desk(): Pick<ApprovalDesk, 'face'> {
    return { face: () => this.#desk.face() };
  }

  /**
   * A question from a Rein process with no person of its own to ask (`rein mcp serve` through
   * `POST /approvals/ask`): on the bus and the desk like a run's own question, answered by whichever
   * client answers first. Nobody answering within `permissions.approval_timeout_seconds` is a deny
   * (`by: timeout`); `signal` (the asker went away) withdraws it. Throws `approval_already_decided` for
   * an id that is pending or was settled: an old answer is never handed out as a new one.
   */
  async askApproval(request: ApprovalRequest, signal?: AbortSignal) {
    const desk = this.#desk;
    const isPending = () => desk.list().some((r) => r.request_id === request.request_id);
    if (isPending())
      throw fieldError('approval_already_decided', `approval ${request.request_id} is already pending`, 'request_id');
    const event = { type: 'approval_request' as const, seq: 0, at: request.asked_at, ...request };
    desk.open(event);
    if (!isPending())
      throw fieldError('approval_already_decided', `approval ${request.request_id} was already decided`, 'request_id');
    const withdraw = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      withdraw.abort();
    }, this.config.permissions.approval_timeout_seconds * 1000);
    timer.unref();
    const gone = () => withdraw.abort();
    if (signal?.aborted) gone();
    signal?.addEventListener('abort', gone);
    try {
      this.#bus.publish(event);
      let answer = await desk.face().ask(request, withdraw.signal);
      if (answer.by === 'withdrawn' && timedOut) answer = { decision: 'deny', by: 'timeout' };
      this.#bus.publish({
        type: 'approval_response',
        session_id: request.session_id,
        seq: 1,
        at: new Date().toISOString(),
        request_id: request.request_id,
        decision: answer.decision,
        by: answer.by,
        route: request.route,
      });
      return { request_id: request.request_id, decision: answer.decision, by: answer.by };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', gone);
    }
  }

  /** The runs in flight and waiting, read-only (status, triggers that wait for a person's run to end). */
  get router(): RunsInFlight {
    const router = this.#router;
    return {
      get running() {
        return router.running;
      },
      get queued() {
        return router.queued;
      },
    };
  }

  /** An agent as its runs see it, from the service's cache (file stamps). */
  agentConfig(agent: string): Promise<AgentRuntimeConfig> {
    return this.#cache.agentConfig(this.home, this.#live.last, agent);
  }

  /** The sessions this service's runs saved, shared with whatever else writes them in this process (an alert). */
  get sessionCache(): SessionCache {
    return this.#cache.sessions;
  }

  // ---- runs -------------------------------------------------------------------------------------------

  /**
   * Starts (or queues) a run, or injects the text into the lane's run in flight. The config files are
   * looked at first (once per turn of the event loop): an edit applies from this message on, and a
   * config that no longer loads refuses it (`config_invalid`, naming file, line and field).
   */
  async submit(request: RunRequest, opts: { listener?: RunListener } = {}): Promise<SubmitOutcome> {
    await this.#live.current();
    return this.#router.submit(request, opts);
  }

  /** sendMessage: answers at once with the lane the message went to; the run's events come on the bus. */
  async sendMessage(msg: MessageRequest, entry: EntryPoint, defaultSource: string): Promise<SendMessageResult> {
    const outcome = await this.submit(runRequestFromMessage(msg, entry, defaultSource));
    if (outcome.injected) return outcome.result;
    const run = outcome.run;
    return {
      injected: false,
      route: run.key,
      agent: run.agent,
      ...(run.sessionId ? { session_id: run.sessionId } : {}),
    };
  }

  cancel(target: ReinOperationInput<'cancel'>): Op<'cancel'> {
    const run = this.#router.cancel(target);
    if (!run) throw new ReinError('not_running', 'no run in flight matches that route, session or agent');
    return { cancelled: true, route: run.key, ...(run.sessionId ? { session_id: run.sessionId } : {}) };
  }

  listApprovals(): Op<'listApprovals'> {
    return { approvals: this.#desk.list() };
  }

  /** Permission-raising changes waiting for a person (GET /changes). */
  listChanges(): Op<'listChanges'> {
    return { changes: this.#changes.list() };
  }

  /**
   * A person's answer to a pending change, from a face known to be a person: the desktop window (its IPC
   * sender check) or `rein changes accept|reject` in a shell on the daemon's machine (`POST
   * /changes/{id}/answer` with the confirm secret only that shell can read). No other HTTP or WebSocket
   * route leads here.
   */
  answerChange(
    input: { change_id: string; decision: 'apply' | 'reject' },
    by: 'desktop' | 'shell',
  ): Promise<{ change_id: string; outcome: 'applied' | 'rejected' }> {
    return this.#changes.answer(input.change_id, input.decision, by);
  }

  /**
   * An "always allow" that `rein mcp serve` got for one of its calls (from its MCP client's form or
   * through this daemon's desk): the same pending change an API answer to a run's question makes. The
   * grant is the runtime's own (what `onAlwaysAllow` would save for this agent, tool and input), made
   * here as for a run of the agent, so this process and the asker agree on what it is. Throws
   * `confirmation_required` (with how to make it by hand) when nobody can confirm it (no daemon, no desktop app).
   */
  async proposeAlwaysAllow(call: {
    agent: string;
    tool: string;
    input: unknown;
    cwd?: string | undefined;
  }): Promise<ChangePending> {
    if (call.agent !== DEFAULT_AGENT && !(await agentExists(this.home, call.agent)))
      throw new ReinError('agent_not_found', `no agent named "${call.agent}"`);
    let proposed: ChangePending | undefined;
    const rt = await (this.#opts.createRuntime ?? createRuntime)({
      home: this.home,
      cwd: call.cwd ?? this.#opts.cwd,
      env: this.env,
      config: await this.currentConfig(),
      agent: call.agent,
      source: 'mcp',
      origin: 'remote',
      llm: NO_MODEL,
      cache: this.#cache,
      remoteGrants: (grant) => (proposed = this.#proposeGrant(grant, 'mcp_serve')).message,
    });
    const tool = rt.registry.get(call.tool);
    if (!tool)
      throw fieldError('invalid_input', `agent "${call.agent}" has no tool ${JSON.stringify(call.tool)}`, 'tool');
    await rt.onAlwaysAllow(tool, call.input, REMOTE_FACE);
    if (!proposed) throw new ReinError('internal', `"always allow" for ${call.tool} made no pending change`);
    return proposed;
  }

  /** An "always allow" answered over the API, for a person to confirm (changeDesk.ts). */
  #proposeGrant(grant: RemoteGrant, requestedBy?: string): ChangePending {
    return this.#changes.propose(
      {
        kind: 'always_allow',
        agent: grant.agent,
        raises: [{ field: grant.field, change: `adds ${grant.describe}` }],
        request: { [grant.field]: [grant.entry] },
        howTo: `add ${JSON.stringify(grant.entry)} to ${grant.field} in ${grant.file}`,
        apply: grant.save,
      },
      requestedBy,
    );
  }

  /** The first answer wins; `by` says which face answered (daemon, desktop). */
  answerApproval(input: ReinOperationInput<'answerApproval'>, by: string): Op<'answerApproval'> {
    this.#desk.answer(input.request_id, input.decision, by, input.values);
    return { ok: true, request_id: input.request_id, decision: input.decision };
  }

  // ---- status and agents ------------------------------------------------------------------------------

  async status(): Promise<ReinStatus & Record<string, unknown>> {
    const running = this.#router.running.map((r) => ({
      route: r.key,
      agent: r.agent,
      session_id: r.sessionId ?? null,
      started_at: r.startedAt ?? null,
    }));
    const queued = this.#router.queued.map((r, i) => ({ route: r.key, agent: r.agent, position: i + 1 }));
    return {
      version: this.version,
      pid: process.pid,
      started_at: this.startedAt.toISOString(),
      uptime_seconds: Math.round((Date.now() - this.startedAt.getTime()) / 1000),
      active_runs: running.length,
      runs: running,
      queued,
      pending_approvals: this.#desk.size,
      clients: this.clients,
      rss_bytes: process.memoryUsage.rss(),
      active_agent: this.#activeAgent,
      agents: [DEFAULT_AGENT, ...(await listAgents(this.home))],
    };
  }

  /**
   * Each agent's MCP servers (one agent with `agent`): state, tools, last error, whether a sign-in
   * is needed. Servers no run of this process has used yet are `idle`; nothing is started by asking.
   * An agent whose config does not load is listed with no servers.
   */
  mcpServers(input: { agent?: string } = {}): Promise<McpServersResult> {
    return this.#mcp.list(input);
  }

  /** Starts the OAuth sign-in of an agent's http server, its page opened in the person's browser (service/mcpServers.ts). */
  mcpLogin(input: { agent?: string; name: string }): Promise<McpLoginResult> {
    return this.#mcp.login(input);
  }

  /** Connects an agent's server now (also an idle or dormant one) and answers its status. */
  mcpReconnect(input: { agent?: string; name: string }): Promise<McpReconnectResult> {
    return this.#mcp.reconnect(input);
  }

  /** The agent the desktop and web UI talk to from now on; every window follows through `agent_changed`. */
  async switchAgent({ name }: { name: string }): Promise<ReinStatus> {
    if (name !== DEFAULT_AGENT && !(await agentExists(this.home, name)))
      throw new ReinError('agent_not_found', `no agent named "${name}"`);
    this.#activeAgent = name;
    this.publish({ type: 'agent_changed', at: new Date().toISOString(), agent: name, change: 'activated' });
    return { version: this.version, active_agent: this.#activeAgent };
  }

  async listAgents(): Promise<ReinOperationOutput<'listAgents'>> {
    return { agents: await listAgentSummaries(this.home) };
  }

  getAgent({ name }: { name: string }): Promise<AgentDetail> {
    return view(this.home, name);
  }

  /**
   * `from`: `person` for the desktop window (applied at once), `remote` for the daemon's API (a change
   * that raises the agent's permissions waits for a person: the answer is then a ChangePending).
   */
  createAgent(
    input: ReinOperationInput<'createAgent'> & { name: string; prompt: string },
    from: ChangeSource,
  ): Promise<AgentDetail | ChangePending> {
    return createAgent(this.#agentsDeps(), input, from);
  }

  saveAgent(input: ReinOperationInput<'saveAgent'>, from: ChangeSource): Promise<AgentDetail | ChangePending> {
    return saveAgent(this.#agentsDeps(), input, from);
  }

  deleteAgent({ name }: { name: string }): Promise<Op<'deleteAgent'>> {
    return removeAgent(this.#agentsDeps(), name);
  }

  async listSkills(input?: { agent?: string }): Promise<Op<'listSkills'>> {
    const bundledDir = bundledSkillsDir();
    const loaded = await loadSkills({
      home: this.home,
      agent: input?.agent ?? DEFAULT_AGENT,
      ...(bundledDir ? { bundledDir } : {}),
    });
    return {
      skills: loaded.skills.map((s) => ({ name: s.name, description: s.description, source: s.source })),
      problems: loaded.problems.map((p) => ({ ...p })),
    };
  }

  // ---- sessions ---------------------------------------------------------------------------------------

  async listSessions(input?: { agent?: string; source?: string; limit?: number }): Promise<Op<'listSessions'>> {
    return { sessions: await listSessionSummaries(this.home, input ?? {}) };
  }

  async getSession({ id, agent }: { id: string; agent?: string }): Promise<Op<'getSession'>> {
    return (await loadSession(this.home, id, agent)) as unknown as Op<'getSession'>;
  }

  async searchSessions(input: {
    q: string;
    agent?: string;
    source?: string;
    limit?: number;
  }): Promise<Op<'searchSessions'>> {
    const index = await this.sessionIndex();
    // A damaged file found by the search is moved aside and rebuilt, and the search runs again.
    return { results: await index.withRepair(() => searchHits(index, input)) };
  }

  /**
   * A run whose session was never saved (an isolated heartbeat, RunOverrides.isolated) is no session to
   * find: take it out of the search index again, if the run's end put it there. Chained after that
   * upsert, so it also holds while the index is still opening.
   */
  forgetUnsavedSession(agent: string, id: string): void {
    void this.#index?.then((i) => i.remove(id, agent)).catch(() => undefined);
  }

  /**
   * The search index, opened (and built from the session files when needed) on first use, with the
   * sessions that CLI and schedule runs noted since (search/pendingIndex.ts) indexed first.
   */
  async sessionIndex(): Promise<SessionIndex> {
    const index = await this.#openIndex();
    const caught = await index.catchUp();
    // Said once while it lasts (a full disk), not at every search.
    const note = caught.notUpdated ?? index.opened.notUpdated;
    if (note !== this.#indexNote && note !== undefined) this.#warn(note);
    this.#indexNote = note;
    return index;
  }

  /** What was last said about an index that could not be updated. */
  #indexNote: string | undefined;

  #openIndex(): Promise<SessionIndex> {
    if (!this.#index) {
      const opening = SessionIndex.open(this.home);
      this.#index = opening;
      opening.then(
        (index) => {
          this.#indexOpen = true;
          // Opened only for reading (the disk could not take a write): used for now, opened again in a
          // minute, by when the disk may have room. Closed after, once searches using it are done.
          if (index.opened.readOnly || index.opened.inMemory) {
            setTimeout(() => {
              if (this.#index !== opening) return;
              this.#index = undefined;
              this.#indexOpen = false;
              setTimeout(() => index.dispose(), 60_000).unref();
            }, 60_000).unref();
          }
        },
        () => {
          if (this.#index === opening) this.#index = undefined;
        },
      );
    }
    return this.#index;
  }

  // ---- settings ---------------------------------------------------------------------------------------

  getSettings(): Promise<ReinSettings> {
    return settingsView(this.#settingsDeps());
  }

  /** `from` as for createAgent: a remote, more permissive `permission_mode` waits for a person. */
  saveSettings(input: SaveSettingsInput, from: ChangeSource): Promise<ReinSettings | ChangePending> {
    return saveSettings(this.#settingsDeps(), input, from);
  }

  async testConnection(input: ReinOperationInput<'testConnection'>): Promise<ReinOperationOutput<'testConnection'>> {
    return { ...(await testConnection(this.#settingsDeps(), input ?? {})) };
  }

  // ---- what agents do on their own ----------------------------------------------------------------------

  #activity: ((agent: string) => Promise<Record<string, unknown>>) | undefined;

  /** The daemon tells the service where heartbeat and watcher state comes from (its triggers). */
  setActivitySource(source: (agent: string) => Promise<Record<string, unknown>>): void {
    this.#activity = source;
  }

  /** An agent's heartbeat and file watchers, as the running triggers see them. */
  async agentActivity({ name }: { name: string }): Promise<Record<string, unknown>> {
    if (name !== DEFAULT_AGENT && !(await agentExists(this.home, name)))
      throw new ReinError('agent_not_found', `agent "${name}" not found`);
    return this.#activity
      ? this.#activity(name)
      : {
          agent: name,
          heartbeat: null,
          watchers: [],
          problem: 'heartbeats and watchers run in the daemon, which is not running them here',
        };
  }

  #beat: ((agent: string, signal: AbortSignal | undefined) => Promise<unknown>) | undefined;

  /** How one heartbeat is run now (core/triggers' runHeartbeat on this service): set by its owner, like the activity source. */
  setHeartbeatRunner(run: (agent: string, signal: AbortSignal | undefined) => Promise<unknown>): void {
    this.#beat = run;
  }

  /**
   * One beat of the agent now (trigger `hand`, unattended), as `rein heartbeat run` makes it, answered
   * with its record when it is over. An alert waits for the person's run on the same conversation and
   * goes on the bus; `signal` cancels it.
   */
  async runHeartbeat({ name }: { name: string }, signal?: AbortSignal): Promise<unknown> {
    if (name === DEFAULT_AGENT)
      throw fieldError('invalid_input', 'the built-in agent has no heartbeat: name one of your agents', 'name');
    await this.getAgent({ name });
    if (!this.#beat) throw new ReinError('unavailable', 'heartbeats run in the daemon, which is not running them here');
    return this.#beat(name, signal);
  }

  // ---- schedules --------------------------------------------------------------------------------------

  /** The schedules with their backend (launchd or the daemon's own clock), as configured now. */
  schedules(launcher?: string): Schedules {
    return new Schedules({
      home: this.home,
      env: this.env,
      config: this.#live.last,
      ...(launcher ? { launcher } : {}),
    });
  }

  async listSchedules(): Promise<{ schedules: ScheduleView[]; backend: string }> {
    const all = this.schedules();
    return { schedules: await listScheduleViews(all), backend: all.backend };
  }

  async getSchedule({ id }: { id: string }): Promise<ScheduleView> {
    const all = this.schedules();
    return scheduleView(await all.get(id), all.backend, 10);
  }

  async createSchedule(input: NewSchedule): Promise<ScheduleView> {
    const all = this.schedules();
    return scheduleView(await all.create(input), all.backend);
  }

  async updateSchedule({ id, ...patch }: SchedulePatch & { id: string }): Promise<ScheduleView> {
    const all = this.schedules();
    return scheduleView(await all.update(id, patch), all.backend);
  }

  async removeSchedule({ id }: { id: string }): Promise<{ removed: true; id: string }> {
    await this.schedules().remove(id);
    return { removed: true, id };
  }

  /**
   * Runs the schedule now, unattended, in this process (launchd handing its run to the daemon, the
   * daemon's clock, a person's "run now"). Resolves when the run is over.
   */
  async runScheduleNow(
    id: string,
    trigger: ScheduleTrigger,
    note?: string,
    signal?: AbortSignal,
  ): Promise<ScheduleRunOutcome> {
    const all = this.schedules();
    const schedule = await all.get(id);
    const running = runSchedule(
      schedule,
      trigger,
      {
        home: this.home,
        store: all.store,
        submit: serviceSubmit((r, o) => this.submit(r, o)),
        publish: (e) => this.publish(e),
        ...(signal ? { signal } : {}),
      },
      note,
    );
    // dispose() waits for these: a run cancelled by the shutdown still records `interrupted` and drops its guard.
    this.#scheduleRuns.add(running);
    void running.catch(() => undefined).finally(() => this.#scheduleRuns.delete(running));
    return running;
  }

  scheduleLogs({ id }: { id: string }): Promise<{ logs: ScheduleLogEntry[] }> {
    return scheduleLogs(this.home, id).then((logs) => ({ logs }));
  }

  readScheduleLog({
    id,
    name,
  }: {
    id: string;
    name?: string;
  }): Promise<{ name: string; text: string; truncated: boolean }> {
    return readScheduleLog(this.home, id, name);
  }

  /** The daemon backend's cron jobs (only when schedules use it); owned, stopped on dispose. */
  startScheduleClock(): ScheduleClock | undefined {
    const all = this.schedules();
    if (all.backend !== 'daemon') return undefined;
    const clock = this.own(
      new ScheduleClock({
        store: all.store,
        maxConcurrent: this.#live.last.schedule.max_concurrent,
        run: (s, trigger, note) => this.runScheduleNow(s.id, trigger, note),
        skipped: async (s, run) => {
          await all.store.recordRun(s.id, run);
          this.publish({
            type: 'schedule_run',
            at: run.at,
            schedule_id: s.id,
            agent: s.agent,
            status: 'skipped',
            ...(run.message ? { message: run.message } : {}),
          });
        },
        warn: this.#warn,
      }),
    );
    clock.start();
    return clock;
  }

  // ---- lifecycle --------------------------------------------------------------------------------------

  /** Owns `d` until the service is disposed (watchers, runners and providers built on it). */
  own<T extends AsyncDisposable>(d: T): T {
    return this.#store.add(d);
  }

  /**
   * Stops taking messages, lets running runs finish for the grace period, cancels the rest and waits
   * for them to save, then tears down what it owns (reverse order) and closes the search index.
   */
  dispose(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#router.dispose(
        this.#opts.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
        this.#opts.shutdownCancelMs ?? DEFAULT_SHUTDOWN_CANCEL_MS,
      );
      // Their runs are over (or cancelled); a moment more for each to record its outcome and release its guard.
      await settleWithin([...this.#scheduleRuns], 2_000);
      try {
        await this.#store.disposeAsync();
      } catch (e) {
        this.#warn(`teardown failed: ${errorMessage(e)}`);
      }
      await this.#index?.then((i) => i.dispose()).catch(() => undefined);
    })();
    return this.#closing;
  }

  #agentsDeps(): AgentsDeps {
    return {
      home: this.home,
      publish: (e) => this.publish(e),
      evictAgent: (name) => this.#router.evictAgent(name),
      globalConfig: () => this.#live.current(),
      confirm: (change) => this.#changes.propose(change),
    };
  }

  #settingsDeps(): SettingsDeps {
    return {
      home: this.home,
      env: this.env,
      config: () => this.#live.current(),
      configState: async () => {
        await this.#live.refresh();
        const problem = this.#live.problem;
        return { config: this.#live.last, ...(problem ? { problem } : {}) };
      },
      setConfig: (c) => this.setConfig(c),
      confirm: (change) => this.#changes.propose(change),
    };
  }

  /**
   * The cwd's overlay has raising settings the trust file does not trust: with the desktop app attached,
   * a `trust_folder` change asks a person there (once per version of the file while it waits); without
   * it the warning LiveConfig gave is all (`rein trust FOLDER` is the way).
   */
  #offerTrust(overlay: LoadedOverlay): void {
    if (this.#clients.desktop === 0) return;
    const offered = this.#trustOffers.get(overlay.hash);
    if (offered !== undefined && this.#changes.list().some((c) => c.change_id === offered)) return;
    try {
      const pending = this.#changes.propose({
        kind: 'trust_folder',
        subject: printable(overlay.folder),
        // Shown on the card (and the bus) as is, so credentials in the values are masked here too.
        raises: overlay.settings.map((s) => ({
          field: printable(s.key),
          change: `sets ${describeValue(maskSecretsIn(structuredClone(s.value)), 200)}`,
        })),
        request: { folder: overlay.folder, file: overlay.file, sha256: overlay.hash, settings: overlay.settings },
        howTo: `run \`rein trust ${shellWord(overlay.folder)}\``,
        apply: async () => {
          await trustFolder(this.home, overlay.folder, overlay.hash, this.#warn);
          // The next message reads the overlay again, now with its raising settings.
          this.#live.invalidate();
        },
      });
      this.#trustOffers.set(overlay.hash, pending.change_id);
    } catch (e) {
      this.#warn(`could not ask about trusting ${printable(overlay.folder)}: ${errorMessage(e)}`);
    }
  }
}

/** Waits for the promises to settle, at most `ms`. */
async function settleWithin(promises: Promise<unknown>[], ms: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((ok) => (timer = setTimeout(ok, ms)))]);
  clearTimeout(timer);
}
