/**
 * Helpers for daemon tests: an in-process daemon on a free loopback port driving the real runtime
 * against the fake Messages API, and small real clients (node:http so tests can set Host and Origin
 * freely, an SSE reader, a WebSocket client from `ws`).
 */
import { mkdtemp } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { GlobalConfig, type GlobalConfigInput } from '../../../src-main/core/config/schema.js';
import { startDaemon, type DaemonHandle, type DaemonOptions } from '../../../src-main/core/daemon/daemon.js';
import type { FakeAnthropic } from '../../support/fakeAnthropic.js';

export interface TestDaemon {
  daemon: DaemonHandle;
  home: string;
  cwd: string;
  port: number;
  token: string;
}

export async function startTestDaemon(
  fake: FakeAnthropic,
  opts: { config?: GlobalConfigInput; home?: string; daemon?: Partial<DaemonOptions> } = {},
): Promise<TestDaemon> {
  const root = await mkdtemp(join(tmpdir(), 'rein-daemon-'));
  const home = opts.home ?? join(root, 'home');
  const cwd = join(root, 'work');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(cwd, { recursive: true });
  const daemon = await startDaemon({
    home,
    cwd,
    port: 0,
    host: '127.0.0.1',
    env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'test-key', REIN_RETRY_BASE_MS: '1' },
    config: GlobalConfig.parse(opts.config ?? {}),
    shutdownGraceMs: 200,
    shutdownCancelMs: 2_000,
    warn: () => undefined,
    ...opts.daemon,
  });
  return { daemon, home, cwd, port: daemon.info.port, token: daemon.token() };
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

/** One HTTP request with full control over headers (Host included). Authorization defaults to the daemon token. */
export function http(
  d: Pick<TestDaemon, 'port' | 'token'>,
  method: string,
  path: string,
  opts: { body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string>; token?: string | null } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { host: `127.0.0.1:${d.port}`, ...opts.headers };
  const token = opts.token === undefined ? d.token : opts.token;
  if (token !== null && !('authorization' in headers)) headers.authorization = `Bearer ${token}`;
  const body = opts.rawBody ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined);
  if (body !== undefined && !('content-type' in headers)) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: d.port, method, path, headers, setHost: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

export interface SseFrame {
  event: string;
  id?: string;
  data: any;
}

/**
 * Opens an SSE stream (GET /events, or POST /message with Accept: text/event-stream) and collects
 * frames. `next(pred)` waits for the first frame (from the start) matching `pred`.
 */
export function sse(
  d: Pick<TestDaemon, 'port' | 'token'>,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<SseStream> {
  const headers: Record<string, string> = {
    host: `127.0.0.1:${d.port}`,
    authorization: `Bearer ${d.token}`,
    accept: 'text/event-stream',
    ...opts.headers,
  };
  const body = opts.body !== undefined ? JSON.stringify(opts.body) : undefined;
  if (body) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: d.port, method, path, headers, setHost: false }, (res) => {
      const stream = new SseStream(res.statusCode ?? 0, () => req.destroy());
      if ((res.statusCode ?? 0) !== 200) {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => {
          stream.errorBody = text;
          stream.end();
          resolve(stream);
        });
        return;
      }
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let idx: number;
        while ((idx = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, idx);
          buf = buf.slice(idx + 2);
          stream.push(block);
        }
      });
      res.on('end', () => stream.end());
      res.on('close', () => stream.end());
      resolve(stream);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export class SseStream {
  readonly frames: SseFrame[] = [];
  ended = false;
  errorBody = '';
  #waiters: Array<() => void> = [];
  constructor(
    readonly status: number,
    readonly close: () => void,
  ) {}

  push(block: string): void {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue;
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length === 0) return;
    this.frames.push({ event, ...(id !== undefined ? { id } : {}), data: JSON.parse(data.join('\n')) });
    this.#wake();
  }

  end(): void {
    this.ended = true;
    this.#wake();
  }

  #wake(): void {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }

  async next(pred: (f: SseFrame) => boolean, what = 'frame'): Promise<SseFrame> {
    for (;;) {
      const hit = this.frames.find(pred);
      if (hit) return hit;
      if (this.ended)
        throw new Error(`stream ended without ${what}; got: ${this.frames.map((f) => f.event).join(', ')}`);
      await new Promise<void>((ok) => this.#waiters.push(ok));
    }
  }

  async untilEnd(): Promise<SseFrame[]> {
    while (!this.ended) await new Promise<void>((ok) => this.#waiters.push(ok));
    return this.frames;
  }
}

export class WsClient {
  readonly frames: any[] = [];
  #waiters: Array<() => void> = [];
  closed: { code: number; reason: string } | undefined;
  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()));
      this.#wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.#wake();
    });
  }
  #wake(): void {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }
  send(frame: unknown): void {
    this.ws.send(JSON.stringify(frame));
  }
  async next(pred: (f: any) => boolean, what = 'frame'): Promise<any> {
    for (;;) {
      const hit = this.frames.find(pred);
      if (hit) return hit;
      if (this.closed) throw new Error(`socket closed (${this.closed.code}) without ${what}`);
      await new Promise<void>((ok) => this.#waiters.push(ok));
    }
  }
  async waitClosed(): Promise<{ code: number; reason: string }> {
    while (!this.closed) await new Promise<void>((ok) => this.#waiters.push(ok));
    return this.closed;
  }
  close(): void {
    this.ws.close();
  }
}

/** A WebSocket the way a browser opens one: token in the subprotocol list, optional Origin. */
export function openWs(
  d: Pick<TestDaemon, 'port' | 'token'>,
  opts: { protocols?: string[]; origin?: string; headers?: Record<string, string>; query?: string } = {},
): Promise<WsClient> {
  const protocols = opts.protocols ?? ['rein.v1', `token.${d.token}`];
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${d.port}/ws${opts.query ?? ''}`, protocols, {
      ...(opts.origin ? { origin: opts.origin } : {}),
      ...(opts.headers ? { headers: opts.headers } : {}),
    });
    const client = new WsClient(ws);
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () =>
        reject(Object.assign(new Error(`refused: ${res.statusCode} ${text}`), { status: res.statusCode, body: text })),
      );
    });
    ws.once('error', reject);
  });
}

/** A promise and its resolver, to hold the fake model until the test lets it answer. */
export function gate<T = void>(): { promise: Promise<T>; open: (v: T) => void } {
  let open!: (v: T) => void;
  const promise = new Promise<T>((ok) => (open = ok));
  return { promise, open };
}

/** Polls until `check` is truthy (no wall-time assertions: the test's own timeout bounds it). */
export async function eventually<T>(check: () => T | Promise<T>, stepMs = 10): Promise<NonNullable<T>> {
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    await new Promise((ok) => setTimeout(ok, stepMs));
  }
}
