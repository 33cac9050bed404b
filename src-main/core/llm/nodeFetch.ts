/**
 * A `fetch` for the Anthropic SDK on node:http / node:https.
 *
 * Why: Node's built-in fetch (undici + web streams) cost about a quarter of the daemon's main-thread CPU
 * per model request: the ~40 KB JSON body is copied several times (USVString conversion, body
 * extraction) and every request builds webidl-checked Request/Response objects and stream plumbing.
 * Here a string body goes to the socket in one `end()` call and the response bytes reach the SDK
 * through one small web stream.
 *
 * It behaves like fetch where the SDK and Rein's client look:
 * - failures before the response reject with `TypeError('fetch failed', { cause })`, a body cut short
 *   errors its stream with `TypeError('terminated', { cause })`, as undici does, so the SDK still
 *   wraps the first as APIConnectionError and Rein still retries both;
 * - an abort rejects (or errors the body) with the signal's reason, a DOMException named
 *   AbortError when the SDK aborts, which is how the SDK tells a user abort or its own timeout;
 * - a connection that takes longer than `connectTimeoutMs` (10 s, undici's default) to open fails
 *   with a cause that says "Connect Timeout Error", which the SDK reports as a timeout.
 *
 * Anything it was not built for goes to `globalThis.fetch` unchanged: `Request` objects, bodies other
 * than a string or bytes (FormData, Blob, streams: file uploads, which Rein does not send),
 * undici's `dispatcher` option, and redirects (followed by fetch, so a base URL that redirects keeps
 * working; the request is sent again, which a redirect answer did not act on).
 *
 * Proxies: like Node's fetch without NODE_USE_ENV_PROXY, this ignores HTTP(S)_PROXY. Whoever opted
 * into Node's env proxy support (NODE_USE_ENV_PROXY=1) gets the global fetch for everything, so
 * today's behaviour holds either way.
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import type { ClientOptions } from '@anthropic-ai/sdk';

export type Fetch = NonNullable<ClientOptions['fetch']>;
export type NodeFetch = Fetch & {
  /** Closes the pooled sockets (the agents stay usable and open new ones on demand). */
  dispose(): void;
};

export interface NodeFetchOptions {
  /** Trusted CA certificates (PEM) for HTTPS, replacing the bundled roots as in `tls.connect`. For tests. */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Concurrent connections per origin; more requests wait for a free one. */
  maxSockets?: number;
  /** An idle pooled connection is closed after this long (a shorter `Keep-Alive: timeout=` hint wins). */
  freeSocketTimeoutMs?: number;
  /** Time allowed to open a new connection (TCP, and TLS for https). */
  connectTimeoutMs?: number;
  /** Send everything through `globalThis.fetch`; defaults to on when NODE_USE_ENV_PROXY=1. */
  useGlobalFetch?: boolean;
  /**
   * Asked before each chunk of a response body is handed on; a returned promise holds the chunk (and
   * pauses the socket) until it settles. The daemon passes its Turnstile, so parsing fifty streamed
   * answers happens in the runs' time slices and not ahead of a new message.
   */
  pace?: () => Promise<void> | undefined;
}

const DEFAULT_MAX_SOCKETS = 64;
/**
 * Long enough to reuse a connection across an agent's turns (tool calls usually take seconds), short
 * enough to stay under common load-balancer idle limits (60 s and up) and to drop connections a laptop's
 * sleep or network change left dead. The agent closes a socket sooner when the server announces a
 * shorter keep-alive. Node's Agent applies `timeout` to idle pooled sockets (destroyed on expiry); on a
 * socket in use it only emits an event, which nothing here listens to: stalls are Rein's idle timer's job.
 */
const DEFAULT_FREE_SOCKET_TIMEOUT_MS = 30_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Bytes buffered in the web stream before the socket is paused. */
const BODY_HIGH_WATER_MARK = 64 * 1024;

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE']);
const NORMALISED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
/** What the Response constructor accepts as a status text (RFC 9110 reason-phrase). */
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** Lenient like fetch: a gzip stream without its trailer still yields what arrived. */
const ZLIB_LENIENT = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const UNSUPPORTED = Symbol('unsupported body');

export function createNodeFetch(opts: NodeFetchOptions = {}): NodeFetch {
  const maxSockets = opts.maxSockets ?? DEFAULT_MAX_SOCKETS;
  const agentOptions = {
    // keepAliveMsecs stays at Node's 1 s: it is the delay before TCP keep-alive probes, not an idle limit.
    keepAlive: true,
    maxSockets,
    maxFreeSockets: maxSockets,
    timeout: opts.freeSocketTimeoutMs ?? DEFAULT_FREE_SOCKET_TIMEOUT_MS,
    // The most recently used idle socket is the one least likely to have been closed by the server.
    scheduling: 'lifo' as const,
  };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent({ ...agentOptions, ...(opts.ca !== undefined ? { ca: opts.ca } : {}) });
  const connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const useGlobalFetch = opts.useGlobalFetch ?? process.env.NODE_USE_ENV_PROXY === '1';

  async function nodeFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    if (useGlobalFetch) return globalThis.fetch(input, init);
    const url = typeof input === 'string' ? new URL(input) : input instanceof URL ? input : undefined;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || 'dispatcher' in init) {
      return globalThis.fetch(input, init);
    }
    const payload = encodableBody(init.body);
    if (payload === UNSUPPORTED) return globalThis.fetch(input, init);
    const secure = url.protocol === 'https:';
    return send(url, init, payload, {
      transport: secure ? https : http,
      agent: secure ? httpsAgent : httpAgent,
      secure,
      connectTimeoutMs,
      pace: opts.pace,
    });
  }

  return Object.assign(nodeFetch, {
    dispose: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  });
}

/** The process-wide transport: one connection pool per scheme for every client. */
export const nodeFetch: NodeFetch = createNodeFetch();

function encodableBody(body: RequestInit['body']): string | Buffer | undefined | typeof UNSUPPORTED {
  if (body === undefined || body === null) return undefined;
  // Kept a string here (it decides the default content type); send() encodes it once.
  if (typeof body === 'string') return body;
  // Views over the caller's memory, not copies.
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return UNSUPPORTED;
}

interface Route {
  transport: typeof http | typeof https;
  agent: http.Agent;
  secure: boolean;
  connectTimeoutMs: number;
  pace: (() => Promise<void> | undefined) | undefined;
}

function send(url: URL, init: RequestInit, payload: string | Buffer | undefined, route: Route): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  const { method, headers, bytes } = requestHead(init, payload);
  const redirect = init.redirect;
  // What a resend (or a redirect handed to fetch) needs, dropped once the response has come: the
  // closures below live as long as the response streams, and must not keep the ~40 KB body alive with
  // them (under load, bodies kept that long were most of what each young-generation collection copied).
  let outgoing: { init: RequestInit; bytes: Buffer | undefined } | undefined = { init, bytes };

  return new Promise<Response>((resolve, reject) => {
    /** connecting: no response yet; streaming: the body is being delivered; done: nothing more to do. */
    let state: 'connecting' | 'streaming' | 'done' = 'connecting';
    let current: http.ClientRequest | undefined;
    let bodyStreams: Readable[] = [];
    let bodyController: ReadableStreamDefaultController<Uint8Array> | undefined;
    let connectTimer: NodeJS.Timeout | undefined;
    /** A body chunk waits for `route.pace`; the end, if it came meanwhile, waits for that chunk. */
    let held = false;
    let endPending = false;

    const settle = () => {
      state = 'done';
      clearTimeout(connectTimer);
      signal?.removeEventListener('abort', onAbort);
    };
    const teardown = () => {
      current?.destroy();
      for (const s of bodyStreams) s.destroy();
    };
    const fail = (err: unknown) => {
      if (state === 'done') return;
      const streaming = state === 'streaming';
      settle();
      if (streaming) bodyController?.error(err);
      else reject(err);
      teardown();
    };
    const onAbort = () => fail(abortReason(signal!));
    signal?.addEventListener('abort', onAbort, { once: true });

    const attempt = (isRetry: boolean) => {
      let req: http.ClientRequest;
      try {
        req = route.transport.request(url, { method, headers, agent: route.agent });
      } catch (err) {
        // Invalid header names or values: fetch throws a TypeError for these too.
        fail(new TypeError('fetch failed', { cause: err }));
        return;
      }
      current = req;
      req.once('socket', (socket: Socket) => {
        if (req.reusedSocket || req !== current || state !== 'connecting') return;
        connectTimer = setTimeout(() => {
          if (req === current)
            fail(new TypeError('fetch failed', { cause: connectTimeoutError(url, route.connectTimeoutMs) }));
        }, route.connectTimeoutMs);
        socket.once(route.secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (req !== current) return;
        if (state === 'streaming') {
          fail(new TypeError('terminated', { cause: err }));
          return;
        }
        // A pooled connection the server closed while idle fails as soon as it is used; the server
        // never saw this request, so it is sent once more on another connection.
        if (state === 'connecting' && !isRetry && req.reusedSocket && STALE_SOCKET_CODES.has(err.code ?? '')) {
          clearTimeout(connectTimer);
          attempt(true);
          return;
        }
        fail(new TypeError('fetch failed', { cause: err }));
      });
      req.on('response', (res: http.IncomingMessage) => {
        if (req !== current || state !== 'connecting') {
          res.destroy();
          return;
        }
        clearTimeout(connectTimer);
        onResponse(req, res);
      });
      req.end(outgoing?.bytes);
    };

    const onResponse = (req: http.ClientRequest, res: http.IncomingMessage) => {
      // Errors after this point belong to the body; listeners stay for the socket's life so a late
      // 'error' never goes unhandled.
      res.on('error', (err) => fail(new TypeError('terminated', { cause: err })));
      res.on('close', () => {
        if (!res.complete) fail(new TypeError('terminated', { cause: new Error('aborted') }));
      });
      const sent = outgoing;
      outgoing = undefined;
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECT_STATUS.has(status) && location && redirect !== 'manual') {
        if (redirect === 'error') {
          fail(new TypeError('fetch failed', { cause: new Error(`unexpected redirect to ${location}`) }));
          return;
        }
        settle();
        req.destroy();
        resolve(globalThis.fetch(url, sent!.init));
        return;
      }
      if (status < 200 || status > 599) {
        fail(new TypeError('fetch failed', { cause: new Error(`unsupported HTTP status ${status}`) }));
        return;
      }
      try {
        const { responseHeaders, statusText } = responseHead(res);
        let body: ReadableStream<Uint8Array> | null = null;
        if (method === 'HEAD' || NULL_BODY_STATUS.has(status)) {
          settle();
          res.resume(); // let the (empty) message finish so the socket returns to the pool
        } else {
          bodyStreams = decodingChain(res, responseHeaders.get('content-encoding'));
          for (const s of bodyStreams)
            if (s !== res) s.on('error', (err) => fail(new TypeError('terminated', { cause: err })));
          state = 'streaming';
          body = webBody(bodyStreams[bodyStreams.length - 1]!);
        }
        const response = new Response(body, { status, statusText, headers: responseHeaders });
        // fetch reports the URL it fetched; the SDK logs it.
        Object.defineProperty(response, 'url', { value: url.href });
        resolve(response);
      } catch (err) {
        settle();
        reject(new TypeError('fetch failed', { cause: err }));
        teardown();
      }
    };

    /** The node body as a web stream: the socket pauses while the reader is behind. */
    const webBody = (source: Readable): ReadableStream<Uint8Array> =>
      new ReadableStream<Uint8Array>(
        {
          start(controller) {
            bodyController = controller;
            source.pause(); // flows only once the stream pulls
            const hand = (chunk: Buffer) => {
              controller.enqueue(chunk);
              if ((controller.desiredSize ?? 0) <= 0) source.pause();
            };
            source.on('data', (chunk: Buffer) => {
              if (state !== 'streaming') return;
              const wait = route.pace?.();
              if (!wait) {
                hand(chunk);
                return;
              }
              // One chunk held at a time, the socket paused meanwhile: the order stays as it came.
              source.pause();
              held = true;
              void wait.then(() => {
                held = false;
                if (state !== 'streaming') return;
                hand(chunk);
                if (endPending) {
                  settle();
                  controller.close();
                } else if ((controller.desiredSize ?? 0) > 0) source.resume();
              });
            });
            source.on('end', () => {
              if (state !== 'streaming') return;
              if (held) {
                endPending = true;
                return;
              }
              settle();
              controller.close();
            });
          },
          pull() {
            if (!held) source.resume();
          },
          cancel() {
            if (state === 'done') return;
            settle();
            teardown();
          },
        },
        { highWaterMark: BODY_HIGH_WATER_MARK, size: (chunk) => chunk.byteLength },
      );

    attempt(false);
  });
}

/** The request's method, headers and body bytes as they go on the wire. */
function requestHead(
  init: RequestInit,
  payload: string | Buffer | undefined,
): { method: string; headers: Record<string, string>; bytes: Buffer | undefined } {
  const method = normaliseMethod(init.method);
  const headers = requestHeaders(init.headers);
  // Encoded once: measuring a string's UTF-8 length and then writing it would walk ~40 KB twice.
  const bytes = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  if (bytes !== undefined) {
    headers['content-length'] = String(bytes.byteLength);
    if (typeof payload === 'string' && headers['content-type'] === undefined)
      headers['content-type'] = 'text/plain;charset=UTF-8';
  } else if (method === 'POST' || method === 'PUT') {
    headers['content-length'] = '0';
  } else {
    delete headers['content-length'];
  }
  // Responses are small (SSE deltas, JSON): compressing them costs more CPU than it saves. A server
  // that compresses anyway is still decoded (decodingChain).
  if (headers['accept-encoding'] === undefined) headers['accept-encoding'] = 'identity';
  return { method, headers, bytes };
}

/** The response's headers as they came (repeated ones kept) and its reason phrase, when it is a valid one. */
function responseHead(res: http.IncomingMessage): { responseHeaders: Headers; statusText: string } {
  const responseHeaders = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) responseHeaders.append(raw[i]!, raw[i + 1]!);
  const statusText = REASON_PHRASE.test(res.statusMessage ?? '') ? (res.statusMessage ?? '') : '';
  return { responseHeaders, statusText };
}

/** The response and, after it, one decoder per content coding, outermost coding decoded first. */
function decodingChain(res: http.IncomingMessage, contentEncoding: string | null): Readable[] {
  if (!contentEncoding) return [res];
  const codings = contentEncoding
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity')
    .reverse();
  const makers: Array<() => Transform> = [];
  for (const coding of codings) {
    if (coding === 'gzip' || coding === 'x-gzip') makers.push(() => zlib.createGunzip(ZLIB_LENIENT));
    else if (coding === 'deflate') makers.push(() => zlib.createInflate(ZLIB_LENIENT));
    else if (coding === 'br') makers.push(() => zlib.createBrotliDecompress());
    else return [res]; // a coding we cannot undo: the bytes as they came, as fetch does
  }
  const chain: Readable[] = [res];
  for (const make of makers) {
    const decoder = make();
    chain[chain.length - 1]!.pipe(decoder);
    chain.push(decoder);
  }
  return chain;
}

function requestHeaders(init: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (!init) return out;
  const add = (name: string, value: string) => {
    const key = name.toLowerCase();
    const prev = out[key];
    out[key] = prev === undefined ? String(value) : `${prev}, ${value}`;
  };
  // Headers and arrays of pairs are iterable; a plain object is not.
  if (typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [name, value] of init as Iterable<[string, string]>) add(name, value);
  } else {
    for (const [name, value] of Object.entries(init as Record<string, string>)) add(name, value);
  }
  return out;
}

function normaliseMethod(method: string | undefined): string {
  if (!method) return 'GET';
  const upper = method.toUpperCase();
  return NORMALISED_METHODS.has(upper) ? upper : method;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** Shaped like undici's ConnectTimeoutError, whose text the SDK reads to report a timeout. */
function connectTimeoutError(url: URL, ms: number): Error {
  return Object.assign(new Error(`Connect Timeout Error (attempted address: ${url.host}, timeout: ${ms}ms)`), {
    name: 'ConnectTimeoutError',
    code: 'UND_ERR_CONNECT_TIMEOUT',
  });
}
