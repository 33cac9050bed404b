/**
 * A local fake of the Anthropic Messages API wire protocol (POST /v1/messages), streamed SSE and plain
 * JSON, driven by a per-test script. Used through the real SDK by base URL; never a real model.
 *
 * Its cache accounting imitates the provider's: the bytes of (tools, system, messages) up to the last
 * `cache_control` breakpoint are a cacheable prefix; a prefix seen before is a cache read, a new one a
 * cache write. Tokens are estimated as ceil(chars / 4). Entries expire as the provider's do: 5 minutes
 * after their last use, or 1 hour for a mark with `"ttl": "1h"` (a read renews an entry), on the clock
 * of `FakeOptions.now` — a benchmark moves it on instead of sleeping. Written tokens are reported per
 * TTL (`usage.cache_creation`), and a 1-hour mark after a 5-minute one is refused, as by the API.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface RecordedRequest {
  index: number;
  headers: IncomingMessage['headers'];
  /** The raw body as sent (for byte-level prefix checks). */
  raw: string;
  body: {
    model: string;
    max_tokens: number;
    stream?: boolean;
    system?: unknown;
    tools?: { name: string; description?: string; input_schema?: unknown; cache_control?: unknown }[];
    messages: { role: 'user' | 'assistant'; content: unknown }[];
    [k: string]: unknown;
  };
}

export type FakeReply =
  | {
      kind: 'message';
      content: FakeBlock[];
      stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence';
      /** Overrides of the usage the fake computes. */
      usage?: Partial<{
        input_tokens: number;
        output_tokens: number;
        cache_read_input_tokens: number;
        cache_creation_input_tokens: number;
        /** null: a server that does not say how its writes split by TTL. */
        cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number } | null;
      }>;
      /** Delay between SSE events (ms). */
      chunkDelayMs?: number;
      /** Split text deltas into pieces of this many characters (default 8). */
      chunkSize?: number;
    }
  | { kind: 'error'; status: number; type?: string; message?: string; headers?: Record<string, string> }
  /** Streams the message but ends the response after `afterTextChars` characters of text, without message_stop. */
  | { kind: 'cut'; content: FakeBlock[]; afterTextChars: number }
  /** Accepts the request and never answers (until the client goes away). */
  | { kind: 'stall' };

export type Script = (req: RecordedRequest) => FakeReply | Promise<FakeReply>;

export const text = (t: string, extra: Partial<Extract<FakeReply, { kind: 'message' }>> = {}): FakeReply => ({
  kind: 'message',
  content: [{ type: 'text', text: t }],
  stopReason: 'end_turn',
  ...extra,
});

let toolSeq = 0;
export const toolCall = (
  name: string,
  input: unknown,
  id = `toolu_${(++toolSeq).toString(16).padStart(8, '0')}`,
): FakeBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
});
export const tools = (calls: FakeBlock[], preface?: string): FakeReply => ({
  kind: 'message',
  content: preface ? [{ type: 'text', text: preface }, ...calls] : calls,
  stopReason: 'tool_use',
});

export interface FakeAnthropic {
  /** Base URL to hand the SDK (ANTHROPIC_BASE_URL). */
  url: string;
  requests: RecordedRequest[];
  /** Queue replies; each request takes the next one. When the queue is empty, `fallback` answers. */
  enqueue(...replies: FakeReply[]): void;
  fallback: Script;
  /** Total input tokens the fake served from cache / wrote to cache (of which with the 1-hour TTL) / billed uncached. */
  accounting: { cacheRead: number; cacheWrite: number; cacheWrite1h: number; uncached: number; output: number };
  close(): Promise<void>;
}

const tok = (chars: number) => Math.ceil(chars / 4);

export interface FakeOptions {
  script?: Script;
  /**
   * For load benchmarks: keep no request log and skip the prompt-cache accounting (which compares each
   * request with every earlier one), so the fake's own CPU stays small next to what is measured.
   */
  light?: boolean;
  /**
   * Record a cacheable prefix at every `cache_control` breakpoint, as the provider does, not only at
   * the last one: a request whose last message differs from the previous request's but whose tools
   * and system prompt are the same then reads those from the cache (a heartbeat's beats).
   */
  cacheEveryBreakpoint?: boolean;
  /** The clock cache entries expire on (ms since the epoch); default Date.now. */
  now?: () => number;
}

/** How long the provider keeps a cache entry after its last use. */
export const CACHE_TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;
export type CacheTtl = keyof typeof CACHE_TTL_MS;

interface CacheEntry {
  expiresAt: number;
  ttl: CacheTtl;
}

export async function startFakeAnthropic(opts: FakeOptions = {}): Promise<FakeAnthropic> {
  const queue: FakeReply[] = [];
  const requests: RecordedRequest[] = [];
  // Like the provider's, the cache is per model: a prefix cached for one model is not read by another.
  const cacheByModel = new Map<string, Map<string, CacheEntry>>();
  const open = new Set<ServerResponse>();
  const accounting = { cacheRead: 0, cacheWrite: 0, cacheWrite1h: 0, uncached: 0, output: 0 };
  const now = opts.now ?? (() => Date.now());

  const fake: FakeAnthropic = {
    url: '',
    requests,
    enqueue: (...r) => queue.push(...r),
    fallback: opts.script ?? (() => text('(fake: no scripted reply left)')),
    accounting,
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(err) } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'GET' && req.url === '/_fake/requests') {
      // For benchmarks that run the fake in another process: the raw request bodies and cache accounting.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ raw: requests.map((r) => r.raw), accounting }));
      return;
    }
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no route ${req.url}` } }));
      return;
    }
    const auth = req.headers['x-api-key'] ?? req.headers.authorization;
    if (!auth) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'missing key' } }));
      return;
    }
    const body = JSON.parse(raw) as RecordedRequest['body'];
    const recorded: RecordedRequest = { index: requests.length, headers: req.headers, raw, body };
    if (!opts.light) requests.push(recorded);
    const order = opts.light ? undefined : ttlOrderProblem(body);
    if (order) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: order } }));
      return;
    }
    const reply = queue.length > 0 ? queue.shift()! : await fake.fallback(recorded);
    open.add(res);
    res.on('close', () => open.delete(res));

    if (reply.kind === 'stall') return; // leave the socket open; the client's abort or close() ends it
    if (reply.kind === 'error') {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
      res.end(
        JSON.stringify({
          type: 'error',
          error: {
            type: reply.type ?? errorType(reply.status),
            message: reply.message ?? `fake error ${reply.status}`,
          },
        }),
      );
      return;
    }
    const usage = computeUsage(body, reply);
    const content = reply.content;
    const stopReason = reply.kind === 'message' ? (reply.stopReason ?? 'end_turn') : 'end_turn';
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `msg_fake${recorded.index}`,
          type: 'message',
          role: 'assistant',
          model: body.model,
          content,
          stop_reason: stopReason,
          stop_sequence: null,
          usage,
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const delay = reply.kind === 'message' ? (reply.chunkDelayMs ?? 0) : 0;
    const size = reply.kind === 'message' ? (reply.chunkSize ?? 8) : 8;
    const cutAt = reply.kind === 'cut' ? reply.afterTextChars : Infinity;
    let sentText = 0;
    const send = async (event: string, data: unknown) => {
      if (res.destroyed) return;
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    };
    await send('message_start', {
      type: 'message_start',
      message: {
        id: `msg_fake${recorded.index}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    });
    await send('ping', { type: 'ping' });
    for (const [index, block] of content.entries()) {
      if (block.type === 'text') {
        await send('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'text', text: '' },
        });
        for (let i = 0; i < block.text.length; i += size) {
          const piece = block.text.slice(i, i + size);
          if (sentText + piece.length > cutAt) {
            const rest = cutAt - sentText;
            if (rest > 0)
              await send('content_block_delta', {
                type: 'content_block_delta',
                index,
                delta: { type: 'text_delta', text: piece.slice(0, rest) },
              });
            res.end(); // the connection drops mid-stream: no message_stop
            return;
          }
          sentText += piece.length;
          await send('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'text_delta', text: piece },
          });
        }
      } else {
        await send('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
        });
        const json = JSON.stringify(block.input ?? {});
        for (let i = 0; i < json.length; i += 16) {
          await send('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: json.slice(i, i + 16) },
          });
        }
      }
      await send('content_block_stop', { type: 'content_block_stop', index });
    }
    if (reply.kind === 'cut') {
      res.end();
      return;
    }
    await send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    });
    await send('message_stop', { type: 'message_stop' });
    res.end();
  }

  function computeUsage(body: RecordedRequest['body'], reply: Extract<FakeReply, { kind: 'message' | 'cut' }>) {
    const { prefix, total } = opts.light ? { prefix: '', total: '' } : cacheablePrefix(body);
    let read = 0;
    const written: Record<CacheTtl, number> = { '5m': 0, '1h': 0 };
    if (!cacheByModel.has(body.model)) cacheByModel.set(body.model, new Map());
    const cache = cacheByModel.get(body.model)!;
    const t = now();
    for (const [p, e] of cache) if (e.expiresAt <= t) cache.delete(p);
    if (prefix.length > 0) {
      // Longest live cached prefix that this request starts with (the provider caches at each breakpoint).
      let best = '';
      for (const p of cache.keys()) if (p.length > best.length && prefix.startsWith(p)) best = p;
      read = tok(best.length);
      if (best) cache.get(best)!.expiresAt = t + CACHE_TTL_MS[cache.get(best)!.ttl];
      // What is written past the cached part counts at the TTL of the breakpoint that ends it.
      const marks = markedPrefixes(body);
      let end = best.length;
      for (const m of marks) {
        if (m.prefix.length <= end) continue;
        written[m.ttl] += tok(m.prefix.length) - tok(end);
        end = m.prefix.length;
      }
      const keep = opts.cacheEveryBreakpoint ? marks : marks.slice(-1);
      for (const m of keep) {
        const had = cache.get(m.prefix);
        const ttl: CacheTtl = had?.ttl === '1h' || m.ttl === '1h' ? '1h' : '5m';
        cache.set(m.prefix, { ttl, expiresAt: Math.max(had?.expiresAt ?? 0, t + CACHE_TTL_MS[m.ttl]) });
      }
    }
    const write = written['5m'] + written['1h'];
    const input = Math.max(0, tok(total.length) - read - write);
    let outChars = 0;
    for (const b of reply.content)
      outChars += b.type === 'text' ? b.text.length : JSON.stringify(b.input).length + b.name.length;
    const given = reply.kind === 'message' ? reply.usage : undefined;
    const usage: {
      input_tokens: number;
      output_tokens: number;
      cache_read_input_tokens: number;
      cache_creation_input_tokens: number;
      cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number } | null;
    } = {
      input_tokens: input,
      output_tokens: Math.max(1, tok(outChars)),
      cache_read_input_tokens: read,
      cache_creation_input_tokens: write,
      cache_creation: { ephemeral_5m_input_tokens: written['5m'], ephemeral_1h_input_tokens: written['1h'] },
      ...given,
    };
    // A scripted total without its own split is all 5-minute writes; null leaves the split out.
    if (given?.cache_creation_input_tokens !== undefined && given.cache_creation === undefined) {
      usage.cache_creation = {
        ephemeral_5m_input_tokens: given.cache_creation_input_tokens,
        ephemeral_1h_input_tokens: 0,
      };
    }
    if (usage.cache_creation === null) delete usage.cache_creation;
    accounting.cacheRead += usage.cache_read_input_tokens;
    accounting.cacheWrite += usage.cache_creation_input_tokens;
    accounting.cacheWrite1h += usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
    accounting.uncached += usage.input_tokens;
    accounting.output += usage.output_tokens;
    return usage;
  }

  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

function errorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  if (status === 400) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  return 'api_error';
}

/**
 * The request serialised in the provider's cache order (tools, system, messages) and the part of it
 * that ends at the last cache_control breakpoint.
 */
export function cacheablePrefix(body: RecordedRequest['body']): { prefix: string; total: string } {
  const parts: string[] = [];
  let prefixEnd = 0;
  // Like the provider, the cache key is the content: a breakpoint marker itself is not part of it.
  const push = (v: unknown) => {
    const json = JSON.stringify(v);
    parts.push(stripCacheControl(json));
    if (json.includes('"cache_control"')) prefixEnd = parts.length;
  };
  for (const t of body.tools ?? []) push(t);
  if (typeof body.system === 'string') push({ type: 'text', text: body.system });
  else for (const s of (body.system as unknown[] | undefined) ?? []) push(s);
  for (const m of body.messages) {
    if (typeof m.content === 'string') push({ role: m.role, content: m.content });
    else for (const b of m.content as unknown[]) push({ role: m.role, block: b });
  }
  return { prefix: parts.slice(0, prefixEnd).join('\n'), total: parts.join('\n') };
}

/** The request's content up to each of its cache_control breakpoints, in cacheablePrefix's serialisation. */
export function breakpointPrefixes(body: RecordedRequest['body']): string[] {
  return markedPrefixes(body).map((m) => m.prefix);
}

const MARK = /"cache_control":\{"type":"ephemeral"(?:,"ttl":"(5m|1h)")?\}/g;

/** The TTL of the last mark in a piece of a request, if it has one. */
function markTtl(json: string): CacheTtl | undefined {
  let ttl: CacheTtl | undefined;
  for (const m of json.matchAll(MARK)) ttl = (m[1] as CacheTtl | undefined) ?? '5m';
  return ttl;
}

/** Each breakpoint's prefix (as breakpointPrefixes) with the TTL of its mark. */
export function markedPrefixes(body: RecordedRequest['body']): { prefix: string; ttl: CacheTtl }[] {
  const parts: string[] = [];
  const out: { prefix: string; ttl: CacheTtl }[] = [];
  const push = (v: unknown) => {
    const json = JSON.stringify(v);
    parts.push(stripCacheControl(json));
    const ttl = markTtl(json);
    if (ttl) out.push({ prefix: parts.join('\n'), ttl });
  };
  for (const t of body.tools ?? []) push(t);
  if (typeof body.system === 'string') push({ type: 'text', text: body.system });
  else for (const s of (body.system as unknown[] | undefined) ?? []) push(s);
  for (const m of body.messages) {
    if (typeof m.content === 'string') push({ role: m.role, content: m.content });
    else for (const b of m.content as unknown[]) push({ role: m.role, block: b });
  }
  return out;
}

/** The API's rule: a mark with a longer TTL may not come after one with a shorter TTL. */
function ttlOrderProblem(body: RecordedRequest['body']): string | undefined {
  let seen5m = false;
  for (const m of markedPrefixes(body)) {
    if (m.ttl === '5m') seen5m = true;
    else if (seen5m) return 'a cache_control block with ttl "1h" must not come after one with ttl "5m"';
  }
  return undefined;
}

/** A request body without its breakpoint markers: what a cache keys on. */
export function stripCacheControl(json: string): string {
  return json.replace(/,"cache_control":\{"type":"ephemeral"(,"ttl":"[^"]*")?\}/g, '');
}
