/**
 * One configured MCP server as a tool provider (`mcp:<name>`, source `mcp`): its supervisor keeps it
 * connected, its tools are the server's list as of the last connection (kept while it is away, so the
 * registry — and the request prefix — do not change when a server blips), and a call reconnects on
 * demand before it runs.
 *
 * Tool objects are made once per tool definition: a `tools/list_changed` or a reconnect that brings the
 * same list back gives the very same objects, so the ToolSet keeps the same registry; only a real
 * change fires `onDidChange`.
 *
 * Annotations are hints from the server, read as such: `readOnlyHint` makes a call concurrency-safe and
 * read-only for the permission engine (asked less, see engine.ts), `destructiveHint` marks it
 * destructive (high risk). A call lost with its connection is run again after the reconnect only when
 * the server says the tool is read-only or idempotent.
 */
import { Emitter, type Disposable } from '../base/lifecycle.js';
import { errorMessage } from '../errors.js';
import type { ToolProvider } from '../tools/provider.js';
import { sessionSlots } from '../tools/sessionSlots.js';
import { errorResult, type Tool, type ToolResult } from '../tools/tool.js';
import type { ToolTraits } from '../tools/traits.js';
import { canonicalJson } from '../util/canonicalJson.js';
import type {
  CallToolResult,
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  Progress,
} from '@modelcontextprotocol/sdk/types.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { McpServerStatus, McpServerType } from '../api/mcpStatus.js';
import { isStepUp, type AuthChallenge } from './challenge.js';
import type { ResolvedServer, ServerResolution } from './config.js';
import type { McpConnection, McpToolDef, OpenOptions } from './connection.js';
import { connectionModuleIfLoaded, loadConnectionModule } from './connectionModule.js';
import { declineAll, ELICITATION_SLOT, type Elicitor } from './elicitation.js';
import { refuseAll, samplingRequest, SamplingRefused, SAMPLING_SLOT, type Sampler } from './sampling.js';
import { mcpInputSchema } from './inputSchema.js';
import { toolDescription, toolNames } from './names.js';
import { toToolResult } from './results.js';
import { NeedsPersonError, Supervisor, type Clock, type SupervisorTiming } from './supervisor.js';

export interface ServerHandleOptions {
  name: string;
  /** The server's part of its tools' names (names.ts serverSlugs). */
  slug: string;
  type: McpServerType;
  resolution: ServerResolution;
  disabled?: boolean;
  /** The environment a stdio server starts from (Rein's, without its credentials). */
  baseEnv: NodeJS.ProcessEnv;
  cwd?: string;
  /** The OAuth provider for an http server's connection (stored tokens), if any. */
  authProvider?: (server: ResolvedServer) => Promise<OAuthClientProvider | undefined>;
  /** Whether tokens are stored for it (status only). */
  signedIn?: () => boolean;
  timing?: Partial<SupervisorTiming>;
  clock?: Clock;
  /** Tests and `rein mcp`: transport settings passed to the connection. */
  connection?: Pick<OpenOptions, 'fetch' | 'reconnection'>;
  /**
   * Someone can sign in again now (the CLI: a person at the terminal): called when a call is refused
   * with 403 `insufficient_scope`; the call is tried once more when it resolves. Absent (a run), the call
   * fails saying which scope is missing, and `onScopeNeeded` keeps it for the next `rein mcp login`.
   */
  reauthorize?: (server: ResolvedServer, challenge: AuthChallenge) => Promise<void>;
  onScopeNeeded?: (server: ResolvedServer, scope: string | undefined) => Promise<void>;
}

/** How long a call's result waits for a tool list the server changed during the call (list_changed). */
const REFRESH_WAIT_MS = 5_000;

interface InFlight {
  elicitor: Elicitor;
  sampler: Sampler;
  tool: string;
  input: unknown;
  /** The call's own signal: a question asked during the call is withdrawn when the call is cancelled. */
  signal: AbortSignal;
}

export class McpServerHandle implements ToolProvider {
  readonly id: string;
  readonly source = 'mcp' as const;
  readonly name: string;
  readonly type: McpServerType;
  readonly server: ResolvedServer | undefined;
  readonly #o: ServerHandleOptions;
  readonly #supervisor: Supervisor<McpConnection> | undefined;
  readonly #changed = new Emitter<void>();
  readonly #stateChanged = new Emitter<string>();
  readonly #inFlight = new Map<symbol, InFlight>();
  /** Tool objects by the tool's own name, with the definition they were made from. */
  #made = new Map<string, { sig: string; tool: Tool }>();
  #tools: readonly Tool[] = [];
  #defs: readonly McpToolDef[] = [];
  #instructions: string | undefined;
  #serverInfo: { name: string; version: string } | undefined;
  #signInRequired = false;
  #refreshing: Promise<void> | undefined;
  #refreshAgain = false;
  /** The last OAuth challenge (401/403) the server answered with. */
  #challenge: AuthChallenge | undefined;
  #disposed = false;

  readonly onDidChange: (listener: () => void) => Disposable;
  /** The connection's state changed (the supervisor's: connecting, healthy, disconnected, idle…). */
  readonly onDidChangeState: (listener: (state: string) => void) => Disposable;

  constructor(o: ServerHandleOptions) {
    this.#o = o;
    this.name = o.name;
    this.id = `mcp:${o.name}`;
    this.type = o.type;
    this.server = o.resolution.ok ? o.resolution.server : undefined;
    this.onDidChange = (listener) => this.#changed.event(() => listener());
    this.onDidChangeState = (listener) => this.#stateChanged.event(listener);
    if (this.server && !o.disabled) {
      const server = this.server;
      this.#supervisor = new Supervisor<McpConnection>(
        {
          connect: (signal) => this.#open(server, signal),
          probe: (c, timeoutMs) => c.probe(timeoutMs),
          dispose: (c) => c.dispose(),
          isClosed: (c) => c.closed,
        },
        {
          onConnected: (c) => this.#adopt(c),
          inUse: () => this.#inFlight.size > 0,
          onState: (s) => this.#stateChanged.fire(s),
        },
        // Only `keep_alive: false` closes an unused connection (tests may shorten how soon).
        {
          ...o.timing,
          ...(server.idleCloseMs !== undefined
            ? { idleCloseMs: o.timing?.idleCloseMs ?? server.idleCloseMs }
            : { idleCloseMs: undefined }),
        },
        o.clock,
      );
    }
  }

  get enabled(): boolean {
    return this.#supervisor !== undefined;
  }

  /** What the server said about itself at `initialize` (kept across reconnects). */
  get instructions(): string | undefined {
    return this.#instructions;
  }

  get definitions(): readonly McpToolDef[] {
    return this.#defs;
  }

  get connection(): McpConnection | undefined {
    return this.#supervisor?.connection;
  }

  /** Starts connecting (once); resolves when the first attempt has settled. */
  start(): Promise<void> {
    return this.#supervisor?.start() ?? Promise.resolve();
  }

  /** A live connection now, reconnecting on demand; throws why there is none. */
  async ensure(): Promise<McpConnection> {
    if (!this.#supervisor)
      throw new Error(
        this.#o.disabled ? `MCP server ${this.name} is disabled` : (this.#o.resolution as { error: string }).error,
      );
    return this.#supervisor.ensure();
  }

  tools(): Promise<readonly Tool[]> {
    // Never waits: what the last connection listed (nothing before the first one answers).
    void this.start();
    return Promise.resolve(this.#tools);
  }

  status(): McpServerStatus {
    const base = {
      name: this.name,
      type: this.type,
      tools: this.#tools.length,
      tool_names: this.#tools.map((t) => t.traits?.mcp?.tool ?? t.name),
      sign_in_required: false,
      signed_in: this.#o.signedIn?.() ?? false,
    };
    if (this.#o.disabled) return { ...base, state: 'disabled', since: new Date(0).toISOString() };
    if (!this.#supervisor)
      return {
        ...base,
        state: 'disconnected',
        since: new Date(0).toISOString(),
        last_error: (this.#o.resolution as { error: string }).error,
      };
    const s = this.#supervisor.status();
    return {
      ...base,
      state: s.state,
      since: new Date(s.since).toISOString(),
      ...(s.lastError !== undefined ? { last_error: s.lastError } : {}),
      ...(s.lastOkAt !== undefined ? { last_ok_at: new Date(s.lastOkAt).toISOString() } : {}),
      ...(s.nextAt !== undefined ? { next_attempt_at: new Date(s.nextAt).toISOString() } : {}),
      sign_in_required: this.#signInRequired && s.state !== 'healthy' && s.state !== 'degraded',
      ...(this.#serverInfo ? { server: this.#serverInfo } : {}),
    };
  }

  /**
   * Calls one of the server's tools by its own name. Failures come back as results the model reads:
   * not connected or lost → transient, invalid arguments → validation, anything else → business.
   */
  async call(
    tool: string,
    args: Record<string, unknown>,
    o: {
      signal: AbortSignal;
      elicitor?: Elicitor;
      sampler?: Sampler;
      registryName?: string;
      replayable?: boolean;
      onProgress?: (p: Progress) => void;
    },
  ): Promise<ToolResult> {
    const server = this.server;
    if (!server || !this.#supervisor)
      return errorResult(
        'business',
        `MCP server ${this.name} cannot be used: ${this.#o.disabled ? 'it is disabled' : (this.#o.resolution as { error: string }).error}`,
      );
    if (o.signal.aborted) return errorResult('transient', 'not run: the run was cancelled');
    const leave = this.#enter(tool, args, o);
    try {
      let conn: McpConnection;
      try {
        conn = await this.#supervisor.ensure();
      } catch (e) {
        return errorResult('transient', this.#notConnected(e));
      }
      try {
        return toToolResult(await this.#callOnce(conn, tool, args, o));
      } catch (e) {
        if (o.signal.aborted) return errorResult('transient', `${tool} was cancelled with the run`);
        if (isAuthError(e)) return this.#authRefusal(tool, e);
        if (!isTransportError(e) && !conn.closed) return callError(this.name, tool, e);
        this.#supervisor.failed(conn, `lost during a call: ${errorMessage(e)}`);
        if (!o.replayable) {
          return errorResult(
            'transient',
            `the connection to MCP server ${this.name} was lost during the call (${errorMessage(e)}); ${tool} may or may not have run. The server is being reconnected; check before calling it again.`,
          );
        }
        let again: McpConnection;
        try {
          again = await this.#supervisor.ensure();
        } catch (e2) {
          return errorResult('transient', this.#notConnected(e2));
        }
        try {
          return toToolResult(await this.#callOnce(again, tool, args, o));
        } catch (e2) {
          if (isAuthError(e2)) return this.#authRefusal(tool, e2);
          if (isTransportError(e2)) this.#supervisor.failed(again, `lost during a call: ${errorMessage(e2)}`);
          return isTransportError(e2)
            ? errorResult('transient', `MCP server ${this.name} failed again after reconnecting: ${errorMessage(e2)}`)
            : callError(this.name, tool, e2);
        }
      }
    } finally {
      leave();
    }
  }

  /**
   * The server's own answer to one call (`rein mcp call --json`), reconnecting first if needed; a
   * question from the server during the call goes to `elicitor`. Throws what the call threw.
   */
  async callRaw(
    tool: string,
    args: Record<string, unknown>,
    o: { signal: AbortSignal; elicitor?: Elicitor; sampler?: Sampler; registryName?: string },
  ): Promise<CallToolResult> {
    const conn = await this.ensure();
    const leave = this.#enter(tool, args, o);
    try {
      return await this.#callOnce(conn, tool, args, o);
    } catch (e) {
      if (isAuthError(e) && !o.signal.aborted) throw new Error(this.#authRefusal(tool, e).content, { cause: e });
      throw e;
    } finally {
      leave();
    }
  }

  /**
   * One `tools/call`; a 403 asking for more scope is signed in again (when someone can: `reauthorize`)
   * and tried once more. The answer waits (a little) for a tool list the server changed meanwhile, so a
   * tool the call added is in the registry when the model reads the result.
   */
  async #callOnce(
    conn: McpConnection,
    tool: string,
    args: Record<string, unknown>,
    o: { signal: AbortSignal; onProgress?: (p: Progress) => void },
  ): Promise<CallToolResult> {
    const opts = {
      signal: o.signal,
      timeoutMs: this.server!.toolTimeoutMs,
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    };
    let result: CallToolResult;
    try {
      result = await conn.callTool(tool, args, opts);
    } catch (e) {
      const challenge = this.#challenge;
      if (!isAuthError(e) || !challenge || !isStepUp(challenge) || !this.#o.reauthorize || o.signal.aborted) throw e;
      await this.#o.reauthorize(this.server!, challenge);
      result = await conn.callTool(tool, args, opts);
    }
    await this.#toolsSettled();
    return result;
  }

  /** A refresh of the tool list under way (list_changed during the call) is let finish first, within bounds. */
  async #toolsSettled(): Promise<void> {
    if (!this.#refreshing) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#refreshing, new Promise<void>((r) => (timer = setTimeout(r, REFRESH_WAIT_MS)))]);
    clearTimeout(timer);
  }

  /** A call the server refused for want of a sign-in or of scope, as the model (or the person) reads it. */
  #authRefusal(tool: string, e: unknown): ToolResult {
    const c = this.#challenge;
    if (c && isStepUp(c)) {
      if (this.server && !this.#o.reauthorize)
        void this.#o.onScopeNeeded?.(this.server, c.scope).catch(() => undefined);
      const scope = c.scope ? ` (scope "${c.scope}")` : '';
      return errorResult(
        'business',
        this.#o.reauthorize
          ? `MCP server ${this.name} still refuses ${tool}${scope} after signing in again with the larger scope: ${errorMessage(e)}`
          : `MCP server ${this.name} needs more permission for ${tool}${scope} than the sign-in granted; the call did not run. Sign in again with \`rein mcp login ${this.name}\` (it asks for the larger scope). Tell the user.`,
      );
    }
    return errorResult(
      'transient',
      `MCP server ${this.name} needs a sign-in for ${tool}: run \`rein mcp login ${this.name}\`; the call did not run. Tell the user.`,
    );
  }

  /** Registers a running call (for questions the server asks during it); returns its removal. */
  #enter(
    tool: string,
    args: Record<string, unknown>,
    o: { signal: AbortSignal; elicitor?: Elicitor; sampler?: Sampler; registryName?: string },
  ): () => void {
    const key = Symbol(tool);
    this.#inFlight.set(key, {
      elicitor: o.elicitor ?? declineAll,
      sampler: o.sampler ?? refuseAll,
      tool: o.registryName ?? tool,
      input: args,
      signal: o.signal,
    });
    this.#supervisor?.touch();
    return () => {
      this.#inFlight.delete(key);
      this.#supervisor?.touch();
    };
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#changed.dispose();
    this.#stateChanged.dispose();
    await this.#supervisor?.dispose();
  }

  #notConnected(e: unknown): string {
    const why = errorMessage(e);
    if (e instanceof NeedsPersonError)
      return `MCP server ${this.name} needs a sign-in: ${why}. The call did not run; tell the user.`;
    return `MCP server ${this.name} is not connected (${why}); the call did not run. It may be back later.`;
  }

  async #open(server: ResolvedServer, signal: AbortSignal): Promise<McpConnection> {
    const authProvider = server.transport.kind === 'http' ? await this.#o.authProvider?.(server) : undefined;
    this.#challenge = undefined;
    let conn: McpConnection | undefined;
    try {
      const { McpConnection } = await loadConnectionModule();
      conn = await McpConnection.open(server, {
        baseEnv: this.#o.baseEnv,
        ...(this.#o.cwd ? { cwd: this.#o.cwd } : {}),
        ...(authProvider ? { authProvider } : {}),
        ...this.#o.connection,
        signal,
        onLost: (reason) => {
          if (conn) this.#supervisor?.lost(conn, reason);
        },
        onToolsChanged: () => this.#refresh(),
        onChallenge: (c) => {
          this.#challenge = c;
          (authProvider as { challenged?: (c: AuthChallenge) => void } | undefined)?.challenged?.(c);
        },
        onElicit: (params, sig) => this.#elicit(params, sig),
        onSample: (params, sig) => this.#sample(params, sig),
      });
      this.#signInRequired = false;
      return conn;
    } catch (e) {
      if (isAuthError(e)) {
        this.#signInRequired = true;
        throw new NeedsPersonError(
          `the server asks for a sign-in: run \`rein mcp login ${this.name}\``,
          this.#challenge,
        );
      }
      throw e;
    }
  }

  #adopt(conn: McpConnection): void {
    this.#instructions = conn.instructions?.trim() || undefined;
    this.#serverInfo = conn.serverVersion;
    this.#setDefs(conn.tools);
  }

  /** `tools/list_changed`: list again (one refresh at a time, one more if another change came meanwhile). */
  #refresh(): void {
    if (this.#refreshing) {
      this.#refreshAgain = true;
      return;
    }
    const conn = this.#supervisor?.connection;
    if (!conn) return;
    this.#refreshing = conn
      .refreshTools()
      .then((defs) => this.#setDefs(defs))
      .catch(() => undefined)
      .finally(() => {
        this.#refreshing = undefined;
        if (this.#refreshAgain && !this.#disposed) {
          this.#refreshAgain = false;
          this.#refresh();
        }
      });
  }

  #setDefs(defs: readonly McpToolDef[]): void {
    if (this.#disposed) return;
    const names = toolNames(
      this.#o.slug,
      defs.map((d) => d.name),
    );
    const made = new Map<string, { sig: string; tool: Tool }>();
    const tools: Tool[] = [];
    for (const def of defs) {
      if (made.has(def.name)) continue; // a server listing a name twice: the first one counts
      const registryName = names.get(def.name)!;
      const sig = `${registryName}\0${canonicalJson(def)}`;
      const kept = this.#made.get(def.name);
      const entry = kept && kept.sig === sig ? kept : { sig, tool: this.#makeTool(def, registryName) };
      made.set(def.name, entry);
      tools.push(entry.tool);
    }
    const same = tools.length === this.#tools.length && tools.every((t, i) => t === this.#tools[i]);
    this.#made = made;
    this.#defs = defs;
    if (same) return;
    this.#tools = tools;
    this.#changed.fire();
  }

  #makeTool(def: McpToolDef, registryName: string): Tool<Record<string, unknown>> {
    const a = def.annotations ?? {};
    const readOnly = a.readOnlyHint === true;
    const destructive = !readOnly && a.destructiveHint === true;
    const replayable = readOnly || a.idempotentHint === true;
    const browser = /^browser_/.test(def.name);
    const traits: ToolTraits = {
      mcp: { server: this.name, tool: def.name },
      ...(browser ? { family: 'web' as const, repeatable: true } : {}),
    };
    return {
      name: registryName,
      description: toolDescription(this.name, def),
      source: 'mcp',
      input: mcpInputSchema(def.inputSchema),
      isReadOnly: () => readOnly,
      isConcurrencySafe: () => readOnly,
      isDestructive: () => destructive,
      summarize: (input) => `${this.name} › ${def.name} ${JSON.stringify(input)}`,
      traits,
      call: (input, ctx, signal) =>
        this.call(def.name, input, {
          signal,
          elicitor: sessionSlots(ctx).slot(ELICITATION_SLOT, () => declineAll),
          sampler: sessionSlots(ctx).slot(SAMPLING_SLOT, () => refuseAll),
          registryName,
          replayable,
          // The server's progress notifications become the call's `tool_progress` events.
          ...(ctx.progress
            ? {
                onProgress: (p: Progress) =>
                  ctx.progress?.({
                    message: progressLine(p),
                    data: { progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}) },
                  }),
              }
            : {}),
        }),
    };
  }

  /** A completion for the server, from the model of the one run whose call is in flight (sampling.ts). */
  async #sample(params: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult> {
    const { McpError, ErrorCode } = await loadConnectionModule();
    const calls = [...this.#inFlight.values()];
    const samplers = new Set(calls.map((c) => c.sampler));
    if (calls.length === 0 || samplers.size !== 1)
      throw new McpError(-1, 'refused: no single run of Rein is waiting on this server, so nobody can be asked');
    const call = calls[calls.length - 1]!;
    const request = samplingRequest(this.name, call, params as Parameters<typeof samplingRequest>[2]);
    if ('error' in request) throw new McpError(ErrorCode.InvalidParams, request.error);
    try {
      const answer = await call.sampler(request, AbortSignal.any([signal, call.signal]));
      return {
        role: 'assistant',
        content: { type: 'text', text: answer.text },
        model: answer.model,
        stopReason: answer.stopReason,
      };
    } catch (e) {
      throw new McpError(
        -1,
        e instanceof SamplingRefused ? `refused: ${e.message}` : `the model failed: ${errorMessage(e)}`,
      );
    }
  }

  async #elicit(params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> {
    const calls = [...this.#inFlight.values()];
    const elicitors = new Set(calls.map((c) => c.elicitor));
    // Nobody's call is running, or several runs' are: nobody can be asked on the server's behalf.
    if (calls.length === 0 || elicitors.size !== 1) return { action: 'decline' };
    const url = params.mode === 'url' && 'url' in params && typeof params.url === 'string' ? params.url : undefined;
    if (url === undefined && !('requestedSchema' in params)) return { action: 'decline' };
    const call = calls[calls.length - 1]!;
    const schema =
      url === undefined && 'requestedSchema' in params ? (params.requestedSchema as Record<string, unknown>) : {};
    const answer = await call.elicitor(
      {
        server: this.name,
        tool: call.tool,
        input: call.input,
        message: params.message,
        schema,
        ...(url !== undefined ? { url } : {}),
      },
      AbortSignal.any([signal, call.signal]),
    );
    if (answer.action !== 'accept') return { action: answer.action };
    return url === undefined ? { action: 'accept', content: answer.content } : { action: 'accept' };
  }
}

/** `3/10: indexing` — the server's own message when it sent one, with the count. */
function progressLine(p: Progress): string {
  const count = p.total !== undefined ? `${p.progress}/${p.total}` : `${p.progress}`;
  return p.message ? `${count}: ${p.message}` : count;
}

// The SDK's errors come from a connection, so the module is loaded whenever one of them exists.
const isTransportError = (e: unknown): boolean => connectionModuleIfLoaded()?.isTransportError(e) ?? false;
const isAuthError = (e: unknown): boolean => connectionModuleIfLoaded()?.isAuthError(e) ?? false;

function callError(server: string, tool: string, e: unknown): ToolResult {
  const sdk = connectionModuleIfLoaded();
  if (sdk && e instanceof sdk.McpError) {
    const { ErrorCode } = sdk;
    if (e.code === ErrorCode.InvalidParams)
      return errorResult('validation', `${tool} (MCP server ${server}) refused the arguments: ${e.message}`);
    if (e.code === ErrorCode.RequestTimeout)
      return errorResult(
        'transient',
        `${tool} (MCP server ${server}) did not answer in time (tool_timeout_seconds): ${e.message}`,
      );
    if (e.code === ErrorCode.MethodNotFound)
      return errorResult('business', `MCP server ${server} has no tool ${tool} any more: ${e.message}`);
    return errorResult('business', `${tool} (MCP server ${server}) failed: ${e.message}`);
  }
  return errorResult('business', `${tool} (MCP server ${server}) failed: ${errorMessage(e)}`);
}
