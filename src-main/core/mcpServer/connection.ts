/**
 * One MCP client connection to `rein mcp serve` (the stdio stream, or one Streamable HTTP session):
 * an MCP `Server` answering `initialize`, `ping`, `tools/list`, `tools/call` and `logging/setLevel`.
 *
 * Every `tools/call` goes through the admission the agent loop uses — the executor
 * (core/harness/executor.ts): lenient parsing of the arguments, the agent's permission policy with hard
 * blocks and denials, PreToolUse/PostToolUse hooks, the result budget and the audit log — with the
 * runtime of the agent built for origin `remote` (entry `mcp`, source `mcp`) and the session id
 * `mcp-<connection>`. A call that needs approval is asked as approvalFaces.ts says (the client's form,
 * else the daemon's desk, else refused). Refusals are `isError` results carrying the reason.
 *
 * The runtime is built for each call from a RuntimeCache, so an edit to the agent's config (its
 * permissions, an "always allow" a person confirmed) holds from the next call on, as in the daemon.
 *
 * An "always allow" answered here (by the client's form, or over the daemon's desk) is never written to
 * config.yaml by this process: nobody known to be a person gave it. The call runs, the same call runs
 * unasked for the rest of this connection (never another connection's), and keeping it is handed to
 * the running daemon as a pending change for a person (`rein changes accept`, the desktop app), or, without a daemon, the result says
 * what to add where by hand (approvalFaces.ts, `proposeToDaemon`).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  LoggingLevelSchema,
  McpError,
  SetLevelRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { ReinEventBody } from '../api/events.js';
import { visibleText } from '../api/visibleText.js';
import type { AsyncDisposable, Disposable } from '../base/lifecycle.js';
import type { GlobalConfig, GrantEntry } from '../config/schema.js';
import { homedir } from 'node:os';
import { commandClassifier } from '../permissions/commandRules.js';
import { egressCheck } from '../permissions/egress.js';
import { reinPorts } from '../permissions/reinGuards.js';
import type { ApprovalFace } from '../permissions/types.js';
import type { Runtime } from '../runtime/runtime.js';
import { MCP_SOURCE, runToolCall, ToolCallService, TurnApprovals, type BatchOutcome } from '../service/toolCalls.js';
import { SessionReadTracker } from '../tools/readTracker.js';
import { SessionSlots } from '../tools/sessionSlots.js';
import type { Tool, ToolContext } from '../tools/tool.js';
import {
  daemonDeskFace,
  elicitationFace,
  FACE_FAILED,
  FaceProblems,
  nobodyToAsk,
  proposeToDaemon,
  refusingAsks,
} from './approvalFaces.js';
import { runningDaemon } from '../daemon/daemonFile.js';
import { exposedTools, listSignature, mcpToolList } from './toolList.js';
import { ReinResources, sessionUri, MAX_COMPLETIONS } from './resources.js';
import { ReinPrompts } from './prompts.js';
import { SessionWatch } from './sessionWatch.js';

/** The entry point and source of every run-like thing this server does (docs/permissions.md, *Run origins*). */
export { MCP_SOURCE };

/** Progress notifications for a call that is still going, this often (and at once when it waits for approval). */
export const DEFAULT_PROGRESS_INTERVAL_MS = 1_000;

export interface ServeOptions {
  /** REIN_HOME. */
  home: string;
  /** Working folder: the project overlay's folder, and the tools' folder unless the agent sets `cwd`. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  agent: string;
  version: string;
  /** Where problems that concern nobody's call go (stderr for the CLI). */
  warn?: (message: string) => void;
  /** This server's own ports: the http tool may not call them (like the daemon's). */
  ownPorts?: () => readonly number[];
  progressIntervalMs?: number;
  /**
   * Never ask the client, even when it can show forms: the daemon's desk or nobody (`--desk-only`).
   * For clients that might answer their own forms without a person.
   */
  deskOnly?: boolean;
}

/**
 * What every connection of one `rein mcp serve` shares: the options and the tool-call part of the
 * service (service/toolCalls.ts), built before the first connection and handed to each.
 */
export class ServeHost implements Disposable {
  readonly service: ToolCallService;

  constructor(
    readonly opts: ServeOptions,
    service?: ToolCallService,
  ) {
    const { home, cwd, env, agent, warn } = opts;
    this.service = service ?? new ToolCallService({ home, cwd, env, agent, ...(warn ? { warn } : {}) });
  }

  config(): Promise<GlobalConfig> {
    return this.service.config();
  }

  /** The agent's runtime for one call: origin remote, its approval face (if any) as the desk. */
  runtime(face: ApprovalFace | undefined, route: string): Promise<Runtime> {
    // Reached only when no running daemon took it (McpConnection's #alwaysAllow): nobody can confirm it.
    return this.service.runtime(
      face,
      route,
      (grant) =>
        `"always allow" for ${grant.describe} holds for this MCP connection only: rein mcp serve does not save a grant that an MCP client ` +
        `or the daemon's desk answered, and no running Rein daemon took it for a person to confirm. ` +
        `To keep it, add ${JSON.stringify(grant.entry)} to ${grant.field} in ${grant.file}.`,
    );
  }

  dispose(): void {
    this.service.dispose();
  }
}

const LEVELS = LoggingLevelSchema.options;
const severity = (l: LoggingLevel): number => LEVELS.indexOf(l);

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export class McpConnection implements AsyncDisposable {
  /** 32 hex; the HTTP transport's session id too. */
  readonly id: string;
  /** The session id in the audit log and in approval requests. */
  readonly sessionId: string;
  readonly server: Server;
  readonly #host: ServeHost;
  readonly #closing = new AbortController();
  /** PostToolUse hooks and audit lines still being written (each leaves the set when it settles). */
  readonly #background = new Set<Promise<unknown>>();
  readonly #readTracker = new SessionReadTracker();
  readonly #slots = new SessionSlots();
  readonly #problems = new FaceProblems();
  /** The grants (grants.ts keys) answered "always allow" on this connection: they hold here, nowhere else. */
  readonly #held = new Set<string>();
  readonly #resources: ReinResources;
  readonly #prompts: ReinPrompts;
  readonly #watch: SessionWatch;
  #level: LoggingLevel = 'info';
  #listed: string | undefined;
  #inFlight = 0;
  #lastUsed = Date.now();
  #closed: Promise<void> | undefined;

  constructor(host: ServeHost, id: string = randomBytes(16).toString('hex')) {
    this.#host = host;
    this.id = id;
    this.sessionId = `mcp-${id}`;
    this.server = new Server(
      { name: 'rein', title: 'Rein', version: host.opts.version },
      {
        capabilities: {
          tools: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          prompts: {},
          completions: {},
          logging: {},
        },
        instructions:
          `Rein's local tools for its agent "${host.opts.agent}". Every call is checked by Rein's permission engine, as when ` +
          'the agent calls it: hard blocks and denials come back as errors; a call that needs approval is asked through an ' +
          'elicitation form when this client supports one, otherwise in the Rein desktop app or web UI when the Rein daemon ' +
          "is running, otherwise it is refused. Resources (read-only): the agent's sessions as rein://sessions/<id> " +
          'transcripts, a search as rein://sessions?query=<words>, and its memory as rein://agents/<agent>/memory. ' +
          "Prompts: the agent's slash commands, and its skills as skill-<name>.",
      },
    );
    const runtime = () => host.runtime(undefined, this.route);
    const warn = host.opts.warn ?? (() => undefined);
    this.#resources = new ReinResources({
      home: host.opts.home,
      cwd: host.opts.cwd,
      agent: host.opts.agent,
      runtime,
      auditSession: this.sessionId,
      warn,
    });
    this.#prompts = new ReinPrompts({ home: host.opts.home, runtime, warn });
    this.#watch = new SessionWatch({
      dir: () => this.#resources.sessionsDir(),
      onUpdated: (id) => void this.server.sendResourceUpdated({ uri: sessionUri(id) }).catch(() => undefined),
      onListChanged: () => void this.server.sendResourceListChanged().catch(() => undefined),
      warn,
    });
    this.#resourceHandlers();
    this.server.setRequestHandler(ListToolsRequestSchema, async () => {
      const rt = await host.runtime(undefined, this.route);
      const tools = mcpToolList(rt.registry);
      this.#listed = listSignature(tools);
      return { tools };
    });
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.#tracked(() => this.#call(request.params, extra)),
    );
    // The SDK's own handler keeps levels per transport session; one connection is one session here.
    this.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      this.#level = request.params.level;
      return {};
    });
  }

  /** resources/*, prompts/* and completion/complete: read-only views of the agent's own state. */
  #resourceHandlers(): void {
    this.server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
      const page = await this.#resources.list(request.params?.cursor);
      // Listed: from now on the client hears of sessions added or removed.
      await this.#watch.watchList();
      return page;
    });
    this.server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: this.#resources.templates(),
    }));
    this.server.setRequestHandler(ReadResourceRequestSchema, async (request) =>
      this.#resources.read(request.params.uri),
    );
    this.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      await this.#watch.subscribe(await this.#resources.subscribable(request.params.uri));
      return {};
    });
    this.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      const id = /^rein:\/\/sessions\/([^/?#]+)$/.exec(request.params.uri)?.[1];
      if (id !== undefined) this.#watch.unsubscribe(id);
      return {};
    });
    this.server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: await this.#prompts.list() }));
    this.server.setRequestHandler(GetPromptRequestSchema, async (request) =>
      this.#prompts.get(request.params.name, request.params.arguments),
    );
    this.server.setRequestHandler(CompleteRequestSchema, async (request) => {
      const { ref, argument } = request.params;
      const all =
        ref.type === 'ref/prompt'
          ? await this.#prompts.complete(ref.name, argument.name, argument.value)
          : await this.#resources.complete(ref.uri, argument.name, argument.value);
      const values = all.slice(0, MAX_COMPLETIONS);
      return { completion: { values, total: all.length, hasMore: all.length > values.length } };
    });
  }

  /** The lane on approval requests: `mcp:<first 8 hex of the connection>`. */
  get route(): string {
    return `mcp:${this.id.slice(0, 8)}`;
  }

  /** No call in flight. */
  get idle(): boolean {
    return this.#inFlight === 0;
  }

  get lastUsed(): number {
    return this.#lastUsed;
  }

  /** Ends the calls in flight (their signals abort), waits for hooks and audit lines, closes the server. */
  dispose(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing.abort();
      this.#watch.dispose();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.#background]),
        new Promise((ok) => (timer = setTimeout(ok, 5_000))),
      ]);
      clearTimeout(timer);
      await this.server.close().catch(() => undefined);
    })();
    return this.#closed;
  }

  async #tracked<T>(fn: () => Promise<T>): Promise<T> {
    this.#inFlight++;
    this.#lastUsed = Date.now();
    try {
      return await fn();
    } finally {
      this.#inFlight--;
      this.#lastUsed = Date.now();
    }
  }

  async #call(
    params: {
      name: string;
      arguments?: Record<string, unknown> | undefined;
      _meta?: { progressToken?: string | number | undefined } | undefined;
    },
    extra: Extra,
  ): Promise<CallToolResult> {
    const signal = AbortSignal.any([extra.signal, this.#closing.signal]);
    const config = await this.#host.config();
    const face = await this.#face(extra, config.permissions.approval_timeout_seconds * 1000);
    const rt = await this.#host.runtime(face, this.route);
    const tool = exposedTools(rt.registry).find((t) => t.name === params.name);
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `unknown tool: ${params.name}. Tools: ${exposedTools(rt.registry)
          .map((t) => t.name)
          .join(', ')}`,
      );
    }
    this.#announceListChange(rt);

    const log = (level: LoggingLevel, data: unknown) => {
      if (severity(level) < severity(this.#level)) return;
      void extra
        .sendNotification({ method: 'notifications/message', params: { level, logger: 'rein', data } })
        .catch(() => undefined);
    };
    const progress = new CallProgress(
      extra,
      params._meta?.progressToken,
      this.#host.opts.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
    );
    const callId = `call_${randomBytes(8).toString('hex')}`;
    let answered: { request_id: string; by: string } | undefined;
    let alwaysNote: string | undefined;
    // Each call is a turn of its own: an approval covers this call, never a later one; only the
    // connection's "always allow" grants carry over (as they do for the rest of a run).
    const approvals = new TurnApprovals();
    for (const key of this.#held) approvals.alwaysGrants.add(key);
    // The call's PostToolUse hooks and audit lines: they finish after the answer, like the loop's.
    const background: Promise<unknown>[] = [];
    try {
      progress.start(`running ${tool.name}`);
      const steps = runToolCall(
        rt,
        { id: callId, name: tool.name, input: params.arguments ?? {} },
        {
          // Nobody to ask: an ask is refused before any question exists, with the reason.
          ...(face ? {} : { policy: refusingAsks(rt.policy, nobodyToAsk(this.#host.opts.deskOnly === true)) }),
          ctx: this.#toolContext(rt),
          approvals,
          onAlwaysAllow: async (t, input, _by, grant) => (alwaysNote = await this.#alwaysAllow(rt, t, input, grant)),
          background,
          warn: (message) => log('warning', message),
        },
        signal,
      );
      let outcome: BatchOutcome;
      for (;;) {
        const step = await steps.next();
        if (step.done) {
          outcome = step.value;
          break;
        }
        const ev: ReinEventBody = step.value;
        if (ev.type === 'approval_request') {
          // The client may show these on a terminal: the call's words are escaped, like every face's.
          progress.note(
            `waiting for approval (${face?.name === 'mcp_client' ? 'this client' : 'Rein desktop app / web UI'}): ${visibleText(ev.summary)}`,
            true,
          );
          log('info', {
            event: 'approval_request',
            request_id: ev.request_id,
            tool: ev.tool,
            summary: visibleText(ev.summary),
            reason: visibleText(ev.reason),
            asked: face?.name,
          });
        } else if (ev.type === 'approval_response') {
          answered = { request_id: ev.request_id, by: ev.by };
          log('info', { event: 'approval_response', request_id: ev.request_id, decision: ev.decision, by: ev.by });
          progress.note(`running ${tool.name}`);
        } else if (ev.type === 'notice') {
          log(ev.level === 'warning' ? 'warning' : 'info', ev.message);
        }
      }
      for (const key of approvals.alwaysGrants) this.#held.add(key);
      const done = outcome.executed[0]!;
      let text =
        done.result.content.length > 0
          ? done.result.content
          : done.result.ok
            ? '(no output)'
            : '(error without message)';
      const problem = answered?.by === FACE_FAILED ? this.#problems.take(answered.request_id) : undefined;
      if (problem)
        text = `[permission error] DENIED: ${tool.name} did not run because ${problem}. Do not claim it ran.`;
      // Said to the client with the result (and logged as a notice): where the "always allow" went.
      if (alwaysNote) text = `${text}\n\n[rein] ${alwaysNote}`;
      if (!done.result.ok)
        log('warning', { event: done.ran ? 'failed' : 'refused', tool: tool.name, reason: text.slice(0, 500) });
      return {
        content: [
          { type: 'text', text },
          ...(done.result.images ?? []).map((img) => ({
            type: 'image' as const,
            data: img.data,
            mimeType: img.mediaType,
          })),
        ],
        ...(done.result.ok ? {} : { isError: true }),
      };
    } finally {
      progress.dispose();
      for (const p of background) {
        this.#background.add(p);
        const done = () => void this.#background.delete(p);
        p.then(done, done);
      }
    }
  }

  /**
   * An "always allow" for `tool` with `input` (the executor holds `grant` for this call's turn; #call
   * keeps it for the connection), whoever answered: handed to the running daemon to become a pending
   * change, which works the grant out again from the call as for a run of its own; without a daemon,
   * the runtime's remote-grant line (ServeHost.runtime) says what to add where. Nothing is saved here:
   * every face of `rein mcp serve` is remote, so the runtime is told the answer was the client's.
   */
  async #alwaysAllow(rt: Runtime, tool: Tool, input: unknown, grant: GrantEntry): Promise<string> {
    const local = async () => (await rt.onAlwaysAllow(tool, input, 'mcp_client', grant)) ?? '';
    const daemon = await runningDaemon(this.#host.opts.home);
    if (!daemon) return local();
    return proposeToDaemon(
      daemon,
      { agent: rt.agent, tool: tool.name, input, cwd: rt.agentConfig.cwd ?? this.#host.opts.cwd },
      local,
    );
  }

  /** Who answers this call's approval question: the client's form, the daemon's desk, or nobody. */
  async #face(extra: Extra, timeoutMs: number): Promise<ApprovalFace | undefined> {
    if (!this.#host.opts.deskOnly && this.server.getClientCapabilities()?.elicitation?.form) {
      return elicitationFace(
        // The broker's timeout decides; the request's own is only a backstop a little later.
        (params, o) =>
          extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema, {
            signal: o.signal,
            timeout: o.timeoutMs + 5_000,
          }),
        timeoutMs,
        this.#problems,
      );
    }
    const daemon = await runningDaemon(this.#host.opts.home);
    return daemon ? daemonDeskFace(daemon, this.#problems) : undefined;
  }

  /** The client listed tools that have changed since (the agent's lists, a new skill): tell it. */
  #announceListChange(rt: Runtime): void {
    if (this.#listed === undefined) return;
    const now = listSignature(mcpToolList(rt.registry));
    if (now === this.#listed) return;
    this.#listed = now;
    void this.server.sendToolListChanged().catch(() => undefined);
  }

  #toolContext(rt: Runtime): ToolContext {
    const { home, cwd } = this.#host.opts;
    const ownPorts = this.#host.opts.ownPorts ?? (() => []);
    return {
      cwd: rt.agentConfig.cwd ?? cwd,
      sessionId: this.sessionId,
      // Results over budget are saved here (the session store's folders are for real sessions).
      sessionDir: join(home, 'mcp-serve', this.sessionId),
      reinHome: home,
      agent: rt.agent,
      readTracker: this.#readTracker,
      // The policy has decided about the URL already; Rein's daemon and this server stay out of reach.
      egress: egressCheck(rt.config.permissions, {
        unlisted: 'allow',
        reinPorts: () => reinPorts(home, [rt.config.daemon.port, ...ownPorts()]),
      }),
      envPassthrough: rt.config.tools.env_passthrough,
      protectedPaths: this.#host.service.protectedPaths(rt.agentConfig.memoryDir),
      session: this.#slots,
      classifyCommand: commandClassifier(homedir()),
    };
  }
}

/** `notifications/progress` for one call, when the client asked for them (a progress token). */
class CallProgress implements Disposable {
  readonly #extra: Extra;
  readonly #token: string | number | undefined;
  readonly #intervalMs: number;
  readonly #started = Date.now();
  #count = 0;
  #message = '';
  #timer: NodeJS.Timeout | undefined;

  constructor(extra: Extra, token: string | number | undefined, intervalMs: number) {
    this.#extra = extra;
    this.#token = token;
    this.#intervalMs = intervalMs;
  }

  start(message: string): void {
    this.#message = message;
    if (this.#token === undefined) return;
    this.#timer = setInterval(() => this.#send(), this.#intervalMs);
    this.#timer.unref();
  }

  /** A new state of the call; `now` sends it at once (a question waiting for a person). */
  note(message: string, now = false): void {
    this.#message = message;
    if (now) this.#send();
  }

  dispose(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #send(): void {
    if (this.#token === undefined) return;
    const seconds = Math.round((Date.now() - this.#started) / 1000);
    this.#count++;
    void this.#extra
      .sendNotification({
        method: 'notifications/progress',
        params: { progressToken: this.#token, progress: this.#count, message: `${this.#message} (${seconds} s)` },
      })
      .catch(() => undefined);
  }
}
