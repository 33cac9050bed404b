/**
 * The client of a Shannon-compatible gateway's task API (docs/cloud.md):
 *
 *   POST /api/v1/tasks/stream          {query, session_id?, context?} → 201 {workflow_id, task_id, stream_url}
 *   GET  /api/v1/stream/sse?workflow_id=…  the workflow's events (text/event-stream), resumable with Last-Event-ID
 *   GET  /api/v1/tasks/{id}            {task_id, workflow_id, status, result, query, usage?} — the full result
 *   POST /api/v1/tasks/{id}/review     {"action":"approve"} — approves a research plan
 *   POST /api/v1/tasks/{id}/cancel     stops the workflow
 *
 * Every request carries `X-API-Key` when a key is set — only ever to the configured gateway's origin: a
 * `stream_url` pointing elsewhere is not followed, and redirects are followed by hand, only on that origin
 * (fetch would carry the custom header to any host a redirect names). A gateway behind a path prefix
 * (`https://host/shannon`) usually does not know its prefix, so the root-relative `stream_url` it answers
 * (`/api/v1/stream/sse?…`) is put under the base URL's path. Error answers are read up to 4,096 bytes
 * into the message. Network failures, 408, 429 and 5xx are transient; other statuses are not.
 *
 * The event stream is read through SseParser. When it drops (the connection fails, it ends before the
 * workflow's last event, or no byte arrives for `idleTimeoutMs`), it is opened again with
 * `Last-Event-ID` set to the last event received, after the server's `retry` time or an exponential
 * backoff, and events already seen (by id) are skipped; after `maxReconnects` drops in a row without a
 * new event it gives up.
 */
import { errorMessage } from '../errors.js';
import { SseLineTooLongError, SseParser, type SseEvent } from './sse.js';

export type Fetch = typeof globalThis.fetch;

export const ERROR_BODY_MAX_BYTES = 4096;

export class GatewayError extends Error {
  readonly status: number | undefined;
  readonly body: string | undefined;
  /** Worth trying again (network, 408, 429, 5xx). */
  readonly transient: boolean;

  constructor(message: string, opts: { status?: number; body?: string; transient: boolean }) {
    super(message);
    this.name = 'GatewayError';
    this.status = opts.status;
    this.body = opts.body;
    this.transient = opts.transient;
  }
}

const transientStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;

export interface SubmitTaskBody {
  query: string;
  session_id?: string;
  context?: Record<string, unknown>;
  research_strategy?: string;
}

export interface SubmittedTask {
  workflowId: string;
  taskId: string;
  /** Where the events are read: the gateway's `stream_url` kept under the base URL when it is on the gateway's origin, else the standard path. */
  streamUrl: URL;
}

export interface TaskStatus {
  task_id?: string;
  workflow_id?: string;
  status?: string;
  /** The full result text (the event stream may have cut it). */
  result?: string;
  query?: string;
  usage?: unknown;
}

export interface StreamOptions {
  signal: AbortSignal;
  lastEventId?: string;
  /** Reopen the stream after this long without a byte (keep-alive comments count). */
  idleTimeoutMs: number;
  /** Drops in a row without a new event before giving up. */
  maxReconnects?: number;
  /** First backoff step when the server sent no `retry` (doubles per drop, at most maxDelayMs). */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** The workflow's last event: the stream is over after it (no reconnect). */
  isTerminal: (ev: SseEvent) => boolean;
  onReconnect?: (info: { attempt: number; reason: string; lastEventId: string | undefined; delayMs: number }) => void;
}

export interface GatewayClientOptions {
  baseUrl: URL;
  apiKey?: string;
  fetch?: Fetch;
}

const SEEN_IDS_MAX = 10_000;
const REDIRECT_STATUS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

export class GatewayClient {
  readonly #base: URL;
  readonly #key: string | undefined;
  readonly #fetch: Fetch;

  constructor(opts: GatewayClientOptions) {
    const base = new URL(opts.baseUrl.href);
    if (!base.pathname.endsWith('/')) base.pathname += '/';
    this.#base = base;
    this.#key = opts.apiKey;
    this.#fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  get origin(): string {
    return this.#base.origin;
  }

  /** A path under the base URL (which may carry a prefix: `https://host/shannon/`). */
  url(path: string): URL {
    return new URL(path.replace(/^\/+/, ''), this.#base);
  }

  async submitTask(body: SubmitTaskBody, signal: AbortSignal): Promise<SubmittedTask> {
    const json = await this.#json('POST', this.url('api/v1/tasks/stream'), body, signal);
    const o = asObject(json);
    const workflowId = str(o.workflow_id) ?? str(o.task_id);
    if (!workflowId)
      throw new GatewayError('the gateway accepted the task but named no workflow_id', { transient: false });
    return {
      workflowId,
      taskId: str(o.task_id) ?? workflowId,
      streamUrl: this.streamUrl(workflowId, str(o.stream_url)),
    };
  }

  /**
   * Where the workflow's events are read: the gateway's `stream_url` kept under the base URL (see
   * `underBase`), else the standard path under the base.
   */
  streamUrl(workflowId: string, given?: string): URL {
    const named = given ? this.underBase(given) : undefined;
    if (named) return named;
    const u = this.url('api/v1/stream/sse');
    u.searchParams.set('workflow_id', workflowId);
    return u;
  }

  /**
   * A URL the gateway named, resolved against the base. On the gateway's origin a path outside the base's
   * prefix is moved under it: a gateway behind a reverse proxy at `/shannon` names `/api/v1/stream/sse?…`
   * (or `https://host/api/v1/…`), which the proxy serves at `/shannon/api/v1/…`. Another origin (or
   * scheme, or port), or a URL that does not parse: undefined, so the key never goes there.
   */
  underBase(given: string): URL | undefined {
    let u: URL;
    try {
      u = new URL(given, this.#base);
    } catch {
      return undefined;
    }
    if (u.origin !== this.#base.origin || u.username || u.password) return undefined;
    const prefix = this.#base.pathname; // ends with '/'
    if (prefix === '/' || u.pathname.startsWith(prefix)) {
      u.hash = '';
      return u;
    }
    return new URL(`${u.pathname.replace(/^\/+/, '')}${u.search}`, this.#base);
  }

  async getTask(id: string, signal: AbortSignal): Promise<TaskStatus> {
    const o = asObject(await this.#json('GET', this.url(`api/v1/tasks/${encodeURIComponent(id)}`), undefined, signal));
    const result = o.result;
    return {
      ...(str(o.task_id) ? { task_id: str(o.task_id)! } : {}),
      ...(str(o.workflow_id) ? { workflow_id: str(o.workflow_id)! } : {}),
      ...(str(o.status) ? { status: str(o.status)! } : {}),
      ...(typeof result === 'string'
        ? { result }
        : result !== undefined && result !== null
          ? { result: JSON.stringify(result, null, 2) }
          : {}),
      ...(str(o.query) ? { query: str(o.query)! } : {}),
      ...(o.usage !== undefined ? { usage: o.usage } : {}),
    };
  }

  /** Approves the workflow's research plan (human-in-the-loop review, answered for the user). */
  async approvePlan(workflowId: string, signal: AbortSignal): Promise<void> {
    await this.#json(
      'POST',
      this.url(`api/v1/tasks/${encodeURIComponent(workflowId)}/review`),
      { action: 'approve' },
      signal,
    );
  }

  async cancelTask(id: string, signal: AbortSignal): Promise<void> {
    await this.#json('POST', this.url(`api/v1/tasks/${encodeURIComponent(id)}/cancel`), {}, signal);
  }

  #headers(extra: Record<string, string>): Record<string, string> {
    return { ...(this.#key ? { 'X-API-Key': this.#key } : {}), ...extra };
  }

  /**
   * fetch with redirects followed by hand, and only on the gateway's origin: fetch itself would send
   * `X-API-Key` to wherever a redirect points. A redirect elsewhere is a (non-transient) error.
   */
  async #send(
    url: URL,
    init: RequestInit & { method: string; headers: Record<string, string> },
    what: string,
  ): Promise<Response> {
    let current = url;
    let method = init.method;
    let headers = init.headers;
    let body = init.body;
    for (let hops = 0; ; hops++) {
      const res = await this.#fetch(current, { ...init, method, headers, body: body ?? null, redirect: 'manual' });
      const location = REDIRECT_STATUS.has(res.status) ? res.headers.get('location') : null;
      if (!location) return res;
      await res.body?.cancel().catch(() => undefined);
      let next: URL;
      try {
        next = new URL(location, current);
      } catch {
        throw new GatewayError(`the cloud gateway answered ${what} with HTTP ${res.status} to an unusable location`, {
          status: res.status,
          transient: false,
        });
      }
      if (next.origin !== this.#base.origin) {
        throw new GatewayError(
          `the cloud gateway answered ${what} with HTTP ${res.status}, a redirect to another origin (${next.origin}); not followed: the API key is only ever sent to ${this.#base.origin}`,
          { status: res.status, transient: false },
        );
      }
      if (hops >= MAX_REDIRECTS)
        throw new GatewayError(`the cloud gateway redirected ${what} more than ${MAX_REDIRECTS} times`, {
          status: res.status,
          transient: false,
        });
      // As fetch does: 303, and 301/302 after a POST, go on as a GET without the body.
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        const { 'Content-Type': _dropped, ...rest } = headers;
        headers = rest;
      }
      current = next;
    }
  }

  async #json(method: 'GET' | 'POST', url: URL, body: unknown, signal: AbortSignal): Promise<unknown> {
    const what = `${method} ${url.pathname}`;
    let res: Response;
    try {
      res = await this.#send(
        url,
        {
          method,
          headers: this.#headers({
            Accept: 'application/json',
            ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          }),
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal,
        },
        what,
      );
    } catch (err) {
      if (signal.aborted || err instanceof GatewayError) throw err;
      throw new GatewayError(`cannot reach the cloud gateway at ${url.origin} (${what}): ${causeOf(err)}`, {
        transient: true,
      });
    }
    if (!res.ok) {
      const text = await readCapped(res, ERROR_BODY_MAX_BYTES);
      throw new GatewayError(`the cloud gateway answered ${what} with HTTP ${res.status}${text ? `: ${text}` : ''}`, {
        status: res.status,
        body: text,
        transient: transientStatus(res.status),
      });
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      if (signal.aborted) throw err;
      throw new GatewayError(`the cloud gateway's answer to ${what} was cut off: ${causeOf(err)}`, { transient: true });
    }
    if (text.trim() === '') return {};
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new GatewayError(`the cloud gateway's answer to ${what} is not JSON: ${text.slice(0, 200)}`, {
        status: res.status,
        transient: false,
      });
    }
  }

  /** The workflow's events, across reconnects, until `isTerminal` says the last one came (see the file's comment). */
  async *events(url: URL, o: StreamOptions): AsyncGenerator<SseEvent, void> {
    const maxReconnects = o.maxReconnects ?? 5;
    const baseDelay = o.reconnectDelayMs ?? 500;
    const maxDelay = o.maxReconnectDelayMs ?? 10_000;
    let lastId = o.lastEventId;
    let retryMs: number | undefined;
    let drops = 0;
    const seen = new Set<string>();
    for (;;) {
      if (o.signal.aborted) throw o.signal.reason;
      const conn = new AbortController();
      const onAbort = () => conn.abort(o.signal.reason);
      o.signal.addEventListener('abort', onAbort, { once: true });
      let idle: NodeJS.Timeout | undefined;
      let idled = false;
      const arm = () => {
        clearTimeout(idle);
        idle = setTimeout(() => {
          idled = true;
          conn.abort(new Error('idle'));
        }, o.idleTimeoutMs);
      };
      let gotEvent = false;
      let reason = 'the stream ended before the workflow finished';
      try {
        arm();
        const res = await this.#send(
          url,
          {
            method: 'GET',
            headers: this.#headers({
              Accept: 'text/event-stream',
              'Cache-Control': 'no-cache',
              ...(lastId !== undefined ? { 'Last-Event-ID': lastId } : {}),
            }),
            signal: conn.signal,
          },
          `GET ${url.pathname}`,
        );
        if (!res.ok) {
          const text = await readCapped(res, ERROR_BODY_MAX_BYTES);
          const message = `the cloud gateway answered GET ${url.pathname} with HTTP ${res.status}${text ? `: ${text}` : ''}`;
          if (!transientStatus(res.status))
            throw new GatewayError(message, { status: res.status, body: text, transient: false });
          reason = `HTTP ${res.status}`;
        } else if (!res.body) {
          reason = 'the gateway sent no event stream';
        } else {
          const parser = new SseParser(lastId !== undefined ? { lastEventId: lastId } : {});
          const reader = res.body.getReader();
          try {
            for (;;) {
              const step = await reader.read();
              if (step.done) break;
              const evs = parser.push(step.value);
              if (parser.retry !== undefined) retryMs = parser.retry;
              // The consumer may take its time with an event (approving a plan): that is not the stream idling.
              clearTimeout(idle);
              for (const ev of evs) {
                if (ev.id !== undefined && ev.id !== '') {
                  if (seen.has(ev.id)) continue;
                  if (seen.size >= SEEN_IDS_MAX) seen.delete(seen.values().next().value!);
                  seen.add(ev.id);
                  lastId = ev.id;
                }
                gotEvent = true;
                drops = 0;
                yield ev;
                if (o.isTerminal(ev)) return;
              }
              arm();
            }
          } finally {
            reader.cancel().catch(() => undefined);
          }
        }
      } catch (err) {
        if (o.signal.aborted) throw o.signal.reason;
        if (err instanceof GatewayError && !err.transient) throw err;
        if (err instanceof SseLineTooLongError)
          throw new GatewayError(`the cloud gateway's event stream is malformed: ${err.message}`, { transient: false });
        reason = idled
          ? `no data for ${o.idleTimeoutMs >= 1000 ? `${Math.round(o.idleTimeoutMs / 1000)} s` : `${o.idleTimeoutMs} ms`}`
          : causeOf(err);
      } finally {
        clearTimeout(idle);
        o.signal.removeEventListener('abort', onAbort);
        conn.abort();
      }
      drops = gotEvent ? 1 : drops + 1;
      if (drops > maxReconnects) {
        throw new GatewayError(`the cloud workflow's event stream was lost ${drops} times in a row (last: ${reason})`, {
          transient: true,
        });
      }
      const delayMs = retryMs ?? Math.min(baseDelay * 2 ** (drops - 1), maxDelay);
      o.onReconnect?.({ attempt: drops, reason, lastEventId: lastId, delayMs });
      await sleep(delayMs, o.signal);
    }
  }
}

function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** fetch's "fetch failed" says nothing: its cause (ECONNREFUSED…) does. */
function causeOf(err: unknown): string {
  const cause = err instanceof Error && err.cause !== undefined ? err.cause : undefined;
  const base = errorMessage(err);
  if (!cause) return base;
  const code = (cause as { code?: unknown }).code;
  const detail = typeof code === 'string' ? code : errorMessage(cause);
  return detail && !base.includes(detail) ? `${base} (${detail})` : base;
}

/** At most `max` bytes of the body as text; the rest is not read. */
async function readCapped(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const step = await reader.read();
      if (step.done) break;
      parts.push(step.value);
      size += step.value.byteLength;
    }
  } catch {
    // what arrived is enough for a message
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const bytes = Buffer.concat(parts).subarray(0, max);
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes).trim();
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
