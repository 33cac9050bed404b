/**
 * One live session with one MCP server: the SDK's Client over our stdio transport (core's process
 * runner) or the SDK's Streamable HTTP transport, opened within the server's connect timeout —
 * starting the program or reaching the URL, `initialize` and the first `tools/list` (all pages) —
 * and closed as a unit: closing a stdio connection takes the server's whole process group down.
 *
 * The Streamable HTTP transport resumes a dropped SSE stream itself: it waits the `retry` the server
 * announced (else 1 s, growing to 30 s) and reopens it with `Last-Event-ID`, so an answer the server
 * had already sent on the lost stream still arrives.
 *
 * Backwards compatibility (the spec's): an http server that refuses the Streamable HTTP `initialize`
 * with 400, 404 or 405 is tried again over the legacy HTTP+SSE transport (GET the URL for an event
 * stream, POST to the endpoint it names); `type: sse` goes there at once. Error text from either never
 * carries the server's HTML page: a refused request reads `404 Not Found` with at most a short reason
 * (httpErrors.ts).
 *
 * Disposing is final: the SDK's transport would otherwise go on reopening a resumable stream after
 * `dispose()` (each attempt fails at once, the next is scheduled), which kept a CLI alive 13–15 s after a
 * JSON-RPC error or a timeout; the retry budget is set to zero before the transport is closed. And once
 * `dispose()` has ended the session, the connection's fetch refuses every request: nothing the SDK still
 * has scheduled (its `close()` clears only the last of its reconnection timers, and a timer that fires
 * reopens a stream before it looks at the retry budget) reaches the network after `dispose()`.
 *
 * It reports what happens to it (`onLost`, `onToolsChanged`, server requests for input) to its owner,
 * the server's supervisor; it never reconnects by itself.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type Progress,
  type Tool as McpToolDef,
} from '@modelcontextprotocol/sdk/types.js';
import type { AsyncDisposable } from '../base/lifecycle.js';
import { errorMessage } from '../errors.js';
import type { ResolvedServer } from './config.js';
import { challengeOf, type AuthChallenge } from './challenge.js';
import { politeFetch } from './httpErrors.js';
import { ProcessStdioTransport } from './stdioTransport.js';

export const CLIENT_INFO = { name: 'rein', version: '1.0.0' } as const;
/** Pages of `tools/list` followed before giving up on a server that never stops paging. */
const MAX_TOOL_PAGES = 50;

export type { McpToolDef };
/** For the classifiers of callers that load this module lazily (connectionModule.ts). */
export { ErrorCode, McpError };

export interface ConnectionEvents {
  /** The transport is gone (the program exited, the connection closed). Not called for `dispose()`. */
  onLost?(reason: string): void;
  /** `notifications/tools/list_changed` arrived. */
  onToolsChanged?(): void;
  /** `elicitation/create` arrived. */
  onElicit?(params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult>;
  /** The server asks for a completion (`sampling/createMessage`); throws McpError to refuse. */
  onSample?(params: CreateMessageRequest['params'], signal: AbortSignal): Promise<CreateMessageResult>;
}

export interface OpenOptions extends ConnectionEvents {
  /** The environment a stdio server starts from (its config's `env` is laid over it). */
  baseEnv: NodeJS.ProcessEnv;
  cwd?: string;
  authProvider?: OAuthClientProvider;
  signal?: AbortSignal;
  /** Overrides the server's connect timeout. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Tests: the SDK's SSE reconnection settings. */
  reconnection?: {
    initialReconnectionDelay: number;
    maxReconnectionDelay: number;
    reconnectionDelayGrowFactor: number;
    maxRetries: number;
  };
  /** The last 401/403 the server answered with a `WWW-Authenticate` challenge (scope, resource metadata). */
  onChallenge?(challenge: AuthChallenge): void;
}

/** Which HTTP transport a connection ended up on (`http`: Streamable HTTP; `sse`: the legacy HTTP+SSE). */
export type HttpTransportKind = 'http' | 'sse';

type ReconnectionOptions = NonNullable<OpenOptions['reconnection']>;

/** A failure that says the connection itself is gone or unreachable (not a tool's own error). */
export function isTransportError(e: unknown): boolean {
  if (e instanceof McpError) return e.code === ErrorCode.ConnectionClosed;
  if (e instanceof StreamableHTTPError) return e.code === undefined || e.code === 404 || e.code >= 500;
  if (e instanceof SseError) return e.code === undefined || e.code === 404 || e.code >= 500;
  const code =
    (e as { code?: unknown; cause?: { code?: unknown } } | null)?.cause?.code ?? (e as { code?: unknown } | null)?.code;
  if (
    typeof code === 'string' &&
    /^(ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|UND_ERR_SOCKET|UND_ERR_CLOSED)$/.test(code)
  )
    return true;
  const m = errorMessage(e);
  return /fetch failed|not connected|not running|socket hang up|closed|terminated/i.test(m);
}

/** The server wants a (new) sign-in: a 401, or the authorization server refused the stored grant. */
export const isAuthError = (e: unknown): boolean =>
  e instanceof UnauthorizedError ||
  ((e instanceof StreamableHTTPError || e instanceof SseError) && (e.code === 401 || e.code === 403)) ||
  (e instanceof OAuthError && !(e instanceof ServerError));

/** A Streamable HTTP `initialize` refused in a way that says "not here, try HTTP+SSE" (the spec's 400/404/405). */
const wantsLegacySse = (e: unknown): boolean =>
  e instanceof StreamableHTTPError && (e.code === 400 || e.code === 404 || e.code === 405);

export class McpConnection implements AsyncDisposable {
  readonly client: Client;
  readonly #transport: Transport;
  /** The SDK keeps this very object: zeroing its retries stops reconnection for good. */
  readonly #reconnection: ReconnectionOptions | undefined;
  /** Aborted when the connection is done with the network: its fetch refuses from then on. */
  readonly #shut: AbortController;
  #tools: McpToolDef[] = [];
  #closing = false;
  #lost = false;
  /** Why the connection was found lost, when Rein found it (an HTTP+SSE event stream that broke). */
  #lostWhy: string | undefined;

  private constructor(client: Client, transport: Transport, shut: AbortController, reconnection?: ReconnectionOptions) {
    this.client = client;
    this.#transport = transport;
    this.#shut = shut;
    this.#reconnection = reconnection;
  }

  /** For an http server: Streamable HTTP, or the legacy HTTP+SSE it fell back to. */
  get httpTransport(): HttpTransportKind | undefined {
    if (this.#transport instanceof SSEClientTransport) return 'sse';
    if (this.#transport instanceof StreamableHTTPClientTransport) return 'http';
    return undefined;
  }

  get tools(): readonly McpToolDef[] {
    return this.#tools;
  }

  get instructions(): string | undefined {
    return this.client.getInstructions();
  }

  get serverVersion(): { name: string; version: string } | undefined {
    const v = this.client.getServerVersion();
    return v ? { name: v.name, version: v.version } : undefined;
  }

  /** The stdio server's process id (its group id), when it is one. */
  get pid(): number | undefined {
    return this.#transport instanceof ProcessStdioTransport ? this.#transport.pid : undefined;
  }

  get closed(): boolean {
    return this.#closing || this.#lost;
  }

  static async open(server: ResolvedServer, o: OpenOptions): Promise<McpConnection> {
    const spec = server.transport;
    if (spec.kind !== 'http' || spec.via === 'sse')
      return McpConnection.#open(server, o, spec.kind === 'http' ? 'sse' : undefined);
    try {
      return await McpConnection.#open(server, o, 'http');
    } catch (e) {
      if (!wantsLegacySse(e) || o.signal?.aborted) throw e;
      // The spec's backwards compatibility: a server that only speaks HTTP+SSE refuses the POST.
      try {
        return await McpConnection.#open(server, o, 'sse');
      } catch (e2) {
        throw new Error(`${errorMessage(e)} over Streamable HTTP, and over HTTP+SSE: ${errorMessage(e2)}`, {
          cause: e2,
        });
      }
    }
  }

  static async #open(
    server: ResolvedServer,
    o: OpenOptions,
    via: HttpTransportKind | undefined,
  ): Promise<McpConnection> {
    const reconnection =
      server.transport.kind === 'http' && via === 'http' ? { ...(o.reconnection ?? DEFAULT_RECONNECTION) } : undefined;
    const shut = new AbortController();
    const transport = makeTransport(server, o, via, reconnection, shut.signal);
    const client = new Client(CLIENT_INFO, {
      capabilities: {
        elicitation: { form: { applyDefaults: true }, url: {} },
        ...(o.onSample ? { sampling: {} } : {}),
      },
    });
    const conn = new McpConnection(client, transport, shut, reconnection);
    const timeoutMs = o.timeoutMs ?? server.connectTimeoutMs;
    const ac = new AbortController();
    const timer = setTimeout(
      () => ac.abort(new Error(`no answer within ${Math.round(timeoutMs / 100) / 10} s (connect_timeout_seconds)`)),
      timeoutMs,
    );
    const onAbort = () => ac.abort(o.signal?.reason ?? new Error('cancelled'));
    o.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      if (o.signal?.aborted) throw o.signal.reason ?? new Error('cancelled');
      client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
        if (!o.onElicit) return { action: 'decline' };
        return o.onElicit(req.params, extra.signal);
      });
      if (o.onSample) {
        const sample = o.onSample;
        client.setRequestHandler(CreateMessageRequestSchema, async (req, extra) => sample(req.params, extra.signal));
      }
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        o.onToolsChanged?.();
      });
      client.onclose = () => {
        if (conn.#closing || conn.#lost) return;
        conn.#lost = true;
        const t = conn.#transport;
        const why = conn.#lostWhy ?? (t instanceof ProcessStdioTransport ? describeExit(t) : 'the connection closed');
        o.onLost?.(why);
      };
      // Errors on the side (a stray stdout line, an SSE stream that failed to reopen) are not fatal by
      // themselves. One is: the legacy HTTP+SSE transport's event stream breaking once connected. Its
      // EventSource would quietly reconnect, to a *new* session on the server that was never initialized
      // (and the answers of calls in flight went with the old one), so the connection is over: closed
      // here, it is reported lost like a Streamable HTTP one, and the supervisor reconnects afresh.
      let connected = false;
      client.onerror = (e) => {
        if (!connected || via !== 'sse' || !(e instanceof SseError) || conn.#closing || conn.#lost) return;
        conn.#lostWhy = `the HTTP+SSE event stream closed (${errorMessage(e).replace(/^SSE error: /, '') || 'no reason given'})`;
        void transport.close().catch(() => undefined);
      };
      await raceAbort(client.connect(transport, { signal: ac.signal, timeout: timeoutMs }), ac.signal);
      connected = true;
      conn.#tools = await raceAbort(conn.#listTools({ signal: ac.signal, timeout: timeoutMs }), ac.signal);
      return conn;
    } catch (e) {
      conn.#closing = true;
      if (reconnection) reconnection.maxRetries = 0;
      shut.abort();
      await transport.close().catch(() => undefined);
      throw annotate(e, transport);
    } finally {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
    }
  }

  async #listTools(opts: { signal?: AbortSignal; timeout?: number } = {}): Promise<McpToolDef[]> {
    const out: McpToolDef[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const r = await this.client.listTools(cursor ? { cursor } : undefined, opts);
      out.push(...r.tools);
      if (!r.nextCursor) break;
      cursor = r.nextCursor;
    }
    return out;
  }

  /** Lists the tools again (after `list_changed`); keeps the old list if that fails. */
  async refreshTools(timeoutMs = 10_000): Promise<readonly McpToolDef[]> {
    this.#tools = await this.#listTools({ timeout: timeoutMs });
    return this.#tools;
  }

  /** The transport probe: `ping`, or `tools/list` for a server that does not know ping. */
  async probe(timeoutMs: number): Promise<void> {
    try {
      await this.client.ping({ timeout: timeoutMs });
    } catch (e) {
      if (e instanceof McpError && e.code === ErrorCode.MethodNotFound) {
        await this.client.listTools(undefined, { timeout: timeoutMs });
        return;
      }
      throw e;
    }
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    o: { signal: AbortSignal; timeoutMs: number; onProgress?: (p: Progress) => void },
  ): Promise<CallToolResult> {
    // The SDK never takes its listener off the signal it is given; a run's signal lives for the whole
    // run, so each call gets a signal of its own, linked to the run's only while the call is under way.
    const ac = new AbortController();
    const onAbort = () => ac.abort(o.signal.reason);
    if (o.signal.aborted) onAbort();
    else o.signal.addEventListener('abort', onAbort, { once: true });
    try {
      return (await this.client.callTool({ name, arguments: args }, undefined, {
        signal: ac.signal,
        timeout: o.timeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: Math.max(o.timeoutMs, 24 * 3_600_000),
        // A progress notification also restarts the call's timeout (resetTimeoutOnProgress).
        onprogress: (p) => o.onProgress?.(p),
      })) as CallToolResult;
    } finally {
      o.signal.removeEventListener('abort', onAbort);
    }
  }

  async dispose(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    // No more reopening of resumable streams from here on, whatever is in flight.
    if (this.#reconnection) this.#reconnection.maxRetries = 0;
    const t = this.#transport;
    // Polite first for HTTP: end the session on the server (a 405 means it keeps none).
    if (t instanceof StreamableHTTPClientTransport && t.sessionId && !this.#lost) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        t.terminateSession().catch(() => undefined),
        new Promise((r) => (timer = setTimeout(r, 1_000))),
      ]);
      clearTimeout(timer);
    }
    this.#shut.abort();
    await this.client.close().catch(() => undefined);
    await t.close().catch(() => undefined);
  }
}

const DEFAULT_RECONNECTION: ReconnectionOptions = {
  initialReconnectionDelay: 1_000,
  maxReconnectionDelay: 30_000,
  reconnectionDelayGrowFactor: 1.5,
  maxRetries: 5,
};

function makeTransport(
  server: ResolvedServer,
  o: OpenOptions,
  via: HttpTransportKind | undefined,
  reconnection: ReconnectionOptions | undefined,
  shut: AbortSignal,
): Transport {
  const spec = server.transport;
  if (spec.kind === 'stdio') {
    return new ProcessStdioTransport({
      command: spec.command,
      args: spec.args,
      env: { ...o.baseEnv, ...spec.env },
      ...(o.cwd ? { cwd: o.cwd } : {}),
    });
  }
  // Every answer passes here: HTML error pages become a status line, auth challenges are noted; once the
  // connection is disposed, nothing passes.
  const base = o.fetch ?? fetch;
  const watched: typeof fetch = async (input, init) => {
    if (shut.aborted) throw new Error('the MCP connection is closed');
    const res = await base(input, init);
    if ((res.status === 401 || res.status === 403) && o.onChallenge) {
      const c = challengeOf(res, res.status === 403 ? await bodyError(res) : undefined);
      if (c) o.onChallenge(c);
    }
    return res;
  };
  const fetchFn = politeFetch(watched);
  const common = {
    ...(Object.keys(spec.headers).length > 0 ? { requestInit: { headers: spec.headers } } : {}),
    ...(o.authProvider ? { authProvider: o.authProvider } : {}),
    fetch: fetchFn,
  };
  if (via === 'sse') return new SSEClientTransport(spec.url, common);
  return new StreamableHTTPClientTransport(spec.url, {
    ...common,
    reconnectionOptions: reconnection ?? { ...DEFAULT_RECONNECTION },
  });
}

/** `error` of a JSON error body, read from a copy (the SDK reads the answer itself). */
async function bodyError(res: Response): Promise<string | undefined> {
  try {
    const v = JSON.parse(await res.clone().text()) as { error?: unknown };
    return typeof v?.error === 'string' ? v.error : undefined;
  } catch {
    return undefined;
  }
}

function describeExit(t: ProcessStdioTransport): string {
  const tail = t.stderrTail.trim().split('\n').slice(-3).join(' | ');
  return `the server ${t.exitDescription ?? 'closed its output'}${tail ? `: ${tail}` : ''}`;
}

/** The error with what a stdio server said on stderr before it failed. */
function annotate(e: unknown, t: Transport): unknown {
  if (!(t instanceof ProcessStdioTransport)) return e;
  const tail = t.stderrTail.trim().split('\n').slice(-3).join(' | ');
  const said = errorMessage(e);
  const exit = t.exitDescription && !said.includes(t.exitDescription) ? t.exitDescription : undefined;
  if (!tail && !exit) return e;
  const message = `${said}${exit ? ` (the server ${exit})` : ''}${tail ? `; stderr: ${tail}` : ''}`;
  const out = new Error(message, { cause: e });
  return out;
}

function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted)
    return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
