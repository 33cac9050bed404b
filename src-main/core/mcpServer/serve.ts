/**
 * `rein mcp serve`: Rein's local tools as an MCP server, on stdio (one client: the process that
 * started it) or on Streamable HTTP at `http://127.0.0.1:<port>/mcp` (any number of sessions).
 *
 * The HTTP face is guarded like the daemon (core/daemon/security.ts, the same pure checks): `Host` must
 * be a loopback name with this port (DNS rebinding), a browser's `Origin` must be this server's own, and
 * every request needs the token — as `Authorization: Bearer <token>` or, unlike the daemon, as
 * `?token=<token>` for MCP clients that can only be given a URL. The token is kept in
 * `$REIN_HOME/secrets/mcp-serve.token` (0600), so a client configured once keeps working across
 * restarts (`--new-token` replaces it); it is a Rein secret no tool may read.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  isInitializeRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import {
  bearerToken,
  checkHost,
  checkOrigin,
  checkToken,
  LOOPBACK_NAMES,
  type CheckResult,
} from '../daemon/security.js';
import type { AsyncDisposable } from '../base/lifecycle.js';
import { ReinError, errorMessage } from '../errors.js';
import { McpConnection, ServeHost, type ServeOptions } from './connection.js';
import { BoundedEventStore, PRIMING_MIN_VERSION, SSE_RETRY_MS, STANDALONE_STREAM_ID } from './eventStore.js';

/**
 * Fails before serving when the agent or the config cannot be used (an unknown agent, a config.yaml
 * that does not load), so the CLI can say so and exit instead of failing every call.
 */
export async function checkServe(opts: ServeOptions): Promise<void> {
  const host = new ServeHost(opts);
  try {
    await host.runtime(undefined, 'mcp');
  } finally {
    host.dispose();
  }
}

// ---- stdio ------------------------------------------------------------------------------------------

export interface StdioServeOptions extends ServeOptions {
  stdin: Readable;
  stdout: Writable;
  /** Resolves when the server should stop (SIGINT/SIGTERM in the CLI). */
  stop?: Promise<void>;
}

/** Serves one client on stdin/stdout until stdin ends (or `stop`); resolves once everything is closed. */
export async function serveStdio(opts: StdioServeOptions): Promise<void> {
  const host = new ServeHost(opts);
  const connection = new McpConnection(host);
  const transport = new StdioServerTransport(opts.stdin, opts.stdout);
  let ended!: () => void;
  const over = new Promise<void>((ok) => (ended = ok));
  opts.stdin.once('end', ended);
  opts.stdin.once('close', ended);
  opts.stdout.once('error', ended);
  connection.server.onclose = ended;
  transport.onerror = (e) => opts.warn?.(`stdio: ${errorMessage(e)}`);
  try {
    await connection.server.connect(transport);
    await Promise.race([over, ...(opts.stop ? [opts.stop] : [])]);
  } finally {
    opts.stdin.off('end', ended);
    opts.stdin.off('close', ended);
    opts.stdout.off('error', ended);
    await connection.dispose();
    host.dispose();
  }
}

// ---- Streamable HTTP --------------------------------------------------------------------------------

export const MCP_PATH = '/mcp';
/** Sessions kept at once; beyond it the least recently used idle one is closed. */
export const MAX_HTTP_SESSIONS = 32;
/** JSON-RPC bodies are small; a tool's input is capped well below this by the tools themselves. */
export const MAX_HTTP_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpServeOptions extends ServeOptions {
  /** 0: any free port. */
  port: number;
  token: string;
  maxSessions?: number;
}

export interface HttpServeHandle extends AsyncDisposable {
  port: number;
  /** `http://127.0.0.1:<port>/mcp` (without the token). */
  url: string;
  /** Sessions open now. */
  readonly sessions: number;
  dispose(): Promise<void>;
}

interface Session {
  connection: McpConnection;
  transport: StreamableHTTPServerTransport;
  /** The protocol version agreed at `initialize` (the server's answer). */
  protocolVersion: string;
  events: BoundedEventStore;
}

/** The version the SDK's server answers an `initialize` asking for `requested` with. */
const negotiatedVersion = (requested: unknown): string =>
  typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;

/**
 * Serves a request at its session's agreed protocol version. The SDK's transport decides per request,
 * from the `MCP-Protocol-Version` header, whether a POST stream starts with the priming event (an id,
 * `retry`, empty data: 2025-11-25 and later), so a client of a 2025-11-25 session that sends an older
 * (supported) version in the header — the conformance suite's `server-sse-polling` does — would get a
 * stream it cannot resume. A client that really speaks the older version agreed on it at `initialize`,
 * so the session's version is the truth; the header is only raised to it, never lowered, and an
 * unsupported one is left for the transport to refuse (400).
 */
function pinProtocolVersion(req: IncomingMessage, agreed: string): void {
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== 'mcp-protocol-version') continue;
    const sent = raw[i + 1]!;
    if (SUPPORTED_PROTOCOL_VERSIONS.includes(sent) && sent < agreed) {
      raw[i + 1] = agreed;
      req.headers['mcp-protocol-version'] = agreed;
    }
  }
}

/**
 * Starts the standalone GET stream (server-initiated notifications) with a priming event, as the SDK
 * does for POST streams but not for this one (1.32): an `id`, `retry` and empty data (the spec's
 * resumability rule), stored in the session's event store on the SDK's standalone stream id. A client
 * whose GET stream broke before any notification arrived can then resume it with that id as
 * `Last-Event-ID` and is replayed what was sent while it was away; without it, it reconnected with no
 * cursor and those notifications were lost. Only for a fresh stream of a session agreed at 2025-11-25 or
 * later (older clients cannot read empty data; a resume already has its cursor), and only once the SDK
 * has accepted the stream (a 200 event stream, not a 406/409): the event is written right after its
 * headers, before anything the SDK writes.
 */
function primeStandaloneStream(req: IncomingMessage, res: ServerResponse, s: Session): void {
  // A Last-Event-ID the SDK acts on (not empty) is a resume: the client has its cursor.
  if (s.protocolVersion < PRIMING_MIN_VERSION || req.headers['last-event-id']) return;
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    res.writeHead = writeHead;
    const out = (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
    if (args[0] === 200 && isEventStream(args)) {
      const id = s.events.prime(STANDALONE_STREAM_ID);
      res.write(`id: ${id}\nretry: ${SSE_RETRY_MS}\ndata: \n\n`);
    }
    return out;
  } as ServerResponse['writeHead'];
}

/** Whether `writeHead`'s headers (its last argument, an object or a flat array) name `text/event-stream`. */
function isEventStream(args: unknown[]): boolean {
  const headers = args[args.length - 1];
  const entries: Array<[string, unknown]> = Array.isArray(headers)
    ? headers.flatMap((v, i, a) => (i % 2 === 0 ? [[String(v), a[i + 1]] as [string, unknown]] : []))
    : headers && typeof headers === 'object'
      ? Object.entries(headers)
      : [];
  return entries.some(([k, v]) => k.toLowerCase() === 'content-type' && /text\/event-stream/i.test(String(v)));
}

export async function serveHttp(opts: HttpServeOptions): Promise<HttpServeHandle> {
  let port = 0;
  const host = new ServeHost({ ...opts, ownPorts: () => (port > 0 ? [port] : []) });
  const sessions = new Map<string, Session>();
  const maxSessions = opts.maxSessions ?? MAX_HTTP_SESSIONS;
  const warn = opts.warn ?? (() => undefined);

  const drop = (id: string) => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    void s.connection.dispose();
  };

  const server: HttpServer = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      warn(`mcp http: ${errorMessage(e)}`);
      if (!res.headersSent) sendRpcError(res, 500, -32603, 'internal error');
      else res.end();
    });
  });
  // Receiving a request is timed (a client trickling its headers or body is cut off); answering never is.
  server.headersTimeout = 30_000;
  server.requestTimeout = 60_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const refused = admit({ port, token: opts.token }, req, url);
    if (!refused.ok) {
      req.resume();
      sendJson(res, refused.status, { error: refused.message, code: refused.code });
      return;
    }
    if (url.pathname !== MCP_PATH) {
      req.resume();
      sendJson(res, 404, { error: `no such path; the MCP endpoint is ${MCP_PATH}`, code: 'not_found' });
      return;
    }
    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    let body: unknown;
    if (req.method === 'POST') {
      const raw = await readBody(req, MAX_HTTP_BODY_BYTES);
      if (raw === undefined) return sendRpcError(res, 413, -32600, `request body over ${MAX_HTTP_BODY_BYTES} bytes`);
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return sendRpcError(res, 400, -32700, 'Parse error: the body is not JSON');
      }
    }
    if (sessionId !== undefined) {
      const s = sessions.get(sessionId);
      if (!s) {
        req.resume();
        return sendRpcError(res, 404, -32001, 'Session not found: initialize again');
      }
      pinProtocolVersion(req, s.protocolVersion);
      if (req.method === 'GET') primeStandaloneStream(req, res, s);
      await s.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      req.resume();
      return sendRpcError(
        res,
        400,
        -32000,
        'Bad Request: no Mcp-Session-Id header; the first request of a session is initialize',
      );
    }
    if (sessions.size >= maxSessions && !evictOne())
      return sendRpcError(res, 503, -32000, `too many sessions (${maxSessions}) with calls in flight; try again later`);
    const connection = new McpConnection(host);
    const protocolVersion = negotiatedVersion(
      (body as { params?: { protocolVersion?: unknown } }).params?.protocolVersion,
    );
    const events = new BoundedEventStore();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => connection.id,
      // Every POST stream starts with a priming event (an id, empty data, `retry`; the GET stream gets
      // ours, primeStandaloneStream), and a broken stream can be resumed with Last-Event-ID (eventStore.ts).
      eventStore: events,
      retryInterval: SSE_RETRY_MS,
      onsessioninitialized: (id) => void sessions.set(id, { connection, transport, protocolVersion, events }),
      onsessionclosed: (id) => drop(id),
    });
    connection.server.onclose = () => drop(connection.id);
    transport.onerror = (e) => warn(`mcp http session ${connection.route}: ${errorMessage(e)}`);
    await connection.server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  /** Closes the least recently used session with no call in flight; false when every one is busy. */
  function evictOne(): boolean {
    let oldest: [string, Session] | undefined;
    for (const entry of sessions) {
      if (!entry[1].connection.idle) continue;
      if (!oldest || entry[1].connection.lastUsed < oldest[1].connection.lastUsed) oldest = entry;
    }
    if (!oldest) return false;
    drop(oldest[0]);
    return true;
  }

  await new Promise<void>((ok, fail) => {
    const onError = (e: NodeJS.ErrnoException) =>
      fail(
        e.code === 'EADDRINUSE'
          ? new ReinError(
              'invalid_input',
              `port ${opts.port} on 127.0.0.1 is already in use; pick another with --port (0 = any free port)`,
            )
          : new ReinError('internal', `cannot listen on 127.0.0.1:${opts.port}: ${e.message}`),
      );
    server.once('error', onError);
    server.listen(opts.port, '127.0.0.1', () => {
      server.off('error', onError);
      ok();
    });
  });
  port = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  return {
    port,
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    get sessions() {
      return sessions.size;
    },
    dispose: () =>
      (closing ??= (async () => {
        const open = [...sessions.values()];
        sessions.clear();
        await Promise.allSettled(open.map((s) => s.connection.dispose()));
        await new Promise<void>((ok) => {
          const force = setTimeout(() => server.closeAllConnections(), 250);
          force.unref();
          server.close(() => {
            clearTimeout(force);
            ok();
          });
          server.closeIdleConnections();
        });
        host.dispose();
      })()),
  };
}

/**
 * The gate in front of every request: Host and Origin exactly as the daemon checks them, then the
 * token, from `Authorization: Bearer` or `?token=`. Pure over the request's facts.
 */
export function admit(
  policy: { port: number; token: string },
  req: Pick<IncomingMessage, 'headers'>,
  url: URL,
): CheckResult {
  const names = { port: policy.port, hostNames: LOOPBACK_NAMES, extraOrigins: [] as string[] };
  const header = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const host = checkHost(names, header('host'));
  if (!host.ok) return host;
  const origin = checkOrigin(names, header('origin'));
  if (!origin.ok) return origin;
  const presented = bearerToken(header('authorization')) ?? url.searchParams.get('token') ?? undefined;
  const token = checkToken(policy.token, presented);
  if (!token.ok) {
    return {
      ...token,
      message:
        presented === undefined
          ? 'missing token: send Authorization: Bearer <token> or add ?token=<token> (rein mcp serve --http prints both)'
          : 'wrong token',
    };
  }
  return token;
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

function sendRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}
