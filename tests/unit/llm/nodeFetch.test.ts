/**
 * The node:http transport behind the Anthropic SDK: real loopback servers (plain, TLS with a certificate
 * made here, and the project's fake Messages API), the real SDK, and Rein's client on top.
 */
import { spawnSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import zlib from 'node:zlib';
import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
  BadRequestError,
  InternalServerError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicLlm, type ModelRequest } from '../../../src-main/core/llm/client.js';
import { createNodeFetch, nodeFetch, type NodeFetch } from '../../../src-main/core/llm/nodeFetch.js';
import { isReinError } from '../../../src-main/core/errors.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { drainTurn } from '../../support/drainRun.js';

// ---------------------------------------------------------------------------------------------------
// Loopback servers that count their connections, so a test can see a socket reused or released.

interface Loopback {
  url: string;
  connections: number;
  open: Set<Socket>;
  close(): Promise<void>;
}

const servers: Loopback[] = [];

async function listen(server: http.Server | https.Server | net.Server, scheme = 'http'): Promise<Loopback> {
  const lb: Loopback = {
    url: '',
    connections: 0,
    open: new Set(),
    close: async () => {
      for (const s of lb.open) s.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
  server.on('connection', (s: Socket) => {
    lb.connections++;
    lb.open.add(s);
    s.on('close', () => lb.open.delete(s));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  lb.url = `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push(lb);
  return lb;
}

const serve = (handler: http.RequestListener) => listen(http.createServer(handler));

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

// ---------------------------------------------------------------------------------------------------
// A minimal Messages API stream, for servers that misbehave in ways the shared fake does not.

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

function messageEvents(answer: string): string[] {
  const pieces = answer.match(/.{1,6}/g) ?? [];
  return [
    sse('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 3, output_tokens: 1 },
      },
    }),
    sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ...pieces.map((p) =>
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: p } }),
    ),
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 4 },
    }),
    sse('message_stop', { type: 'message_stop' }),
  ];
}

const request: ModelRequest = {
  model: 'claude-test',
  maxTokens: 64,
  system: [{ type: 'text', text: 'be brief' }],
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
};

const noSleep = async () => {};

// ---------------------------------------------------------------------------------------------------

let transport: NodeFetch;
const unhandled: unknown[] = [];
const onUnhandled = (e: unknown) => unhandled.push(e);

beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  nodeFetch.dispose();
});
beforeEach(() => {
  transport = createNodeFetch();
});
afterEach(async () => {
  transport.dispose();
  for (const s of servers.splice(0)) await s.close();
  // Give a late rejection (an errored body nobody read) a turn to surface.
  await new Promise((r) => setTimeout(r, 10));
  expect(unhandled).toEqual([]);
});

describe('nodeFetch through the real SDK and the fake Messages API', () => {
  let fake: FakeAnthropic;
  beforeEach(async () => {
    fake = await startFakeAnthropic();
  });
  afterEach(async () => {
    await fake.close();
  });

  const sdk = (f = nodeFetch) => new Anthropic({ apiKey: 'test-key', baseURL: fake.url, fetch: f, maxRetries: 0 });

  it('streams an SSE message, sending the body with its exact byte length and asking for no compression', async () => {
    fake.enqueue(text('Streamed through node:http, bit by bit.'));
    const prompt = 'héllo ☃ 𝄞 — multibyte text changes the byte count';
    const stream = await sdk().messages.create({
      model: 'm',
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: prompt }],
    });
    let answer = '';
    let deltas = 0;
    for await (const ev of stream) {
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') {
        answer += ev.delta.text;
        deltas++;
      }
    }
    expect(answer).toBe('Streamed through node:http, bit by bit.');
    expect(deltas).toBeGreaterThan(1);
    const sent = fake.requests[0]!;
    expect(sent.body.messages[0]!.content).toBe(prompt);
    expect(Number(sent.headers['content-length'])).toBe(Buffer.byteLength(sent.raw));
    expect(sent.headers['content-length']).not.toBe(String(sent.raw.length));
    expect(sent.headers['accept-encoding']).toBe('identity');
    expect(sent.headers['content-type']).toBe('application/json');
  });

  it('answers a non-streaming call with the parsed message', async () => {
    fake.enqueue(text('plain JSON answer'));
    const msg = await sdk().messages.create({
      model: 'm',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(msg.content).toEqual([{ type: 'text', text: 'plain JSON answer' }]);
    expect(msg.stop_reason).toBe('end_turn');
    expect(fake.requests[0]!.body.stream).toBeUndefined();
  });

  it('turns error statuses into the matching APIError subclass with status, body and headers', async () => {
    fake.enqueue(
      { kind: 'error', status: 400, message: 'prompt is too long' },
      { kind: 'error', status: 429, headers: { 'retry-after': '7' } },
    );
    const bad = await sdk()
      .messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(BadRequestError);
    expect((bad as BadRequestError).status).toBe(400);
    expect((bad as BadRequestError).message).toContain('prompt is too long');
    const limited = await sdk()
      .messages.create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).headers?.get('retry-after')).toBe('7');
  });

  it('carries Rein client turns (deltas, usage) on the default transport', async () => {
    fake.enqueue(text('through AnthropicLlm', { usage: { cache_read_input_tokens: 12 } }));
    const { events, response } = await drainTurn(
      new AnthropicLlm({ apiKey: 'k', baseURL: fake.url }).turn(request, new AbortController().signal),
    );
    expect(
      events
        .filter((e) => e.type === 'text_delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('through AnthropicLlm');
    expect(response.usage.cacheReadTokens).toBe(12);
  });

  it('reports a user cancel mid-stream as llm_cancelled', async () => {
    fake.enqueue(text('a long answer that trickles in slowly, piece after piece', { chunkDelayMs: 40, chunkSize: 4 }));
    const ac = new AbortController();
    const gen = new AnthropicLlm({ apiKey: 'k', baseURL: fake.url }).turn(request, ac.signal);
    const first = await gen.next();
    expect(first.value).toMatchObject({ type: 'text_delta' });
    ac.abort();
    const err = await drainTurn(gen).catch((e: unknown) => e);
    expect(isReinError(err, 'llm_cancelled')).toBe(true);
  });
});

describe('nodeFetch against loopback servers', () => {
  it('aborting before the response rejects with an AbortError, closes the socket and leaves no listener', async () => {
    let arrived = false;
    const lb = await serve(() => {
      arrived = true; // never answers
    });
    const ac = new AbortController();
    const pending = transport(`${lb.url}/slow`, { method: 'POST', body: '{}', signal: ac.signal });
    await until(() => arrived, 'the request to arrive');
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    ac.abort();
    const err = await pending.catch((e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
    await until(() => lb.open.size === 0, 'the server to see the socket close');
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('a request that finishes (body read, empty answer, cancelled body) leaves no listener on its signal', async () => {
    const lb = await serve((req, res) => {
      if (req.url === '/empty') res.writeHead(204).end();
      else res.end('some body');
    });
    const ac = new AbortController();
    const read = await transport(`${lb.url}/full`, { signal: ac.signal });
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1); // the body can still be aborted
    expect(await read.text()).toBe('some body');
    await transport(`${lb.url}/empty`, { signal: ac.signal });
    await (await transport(`${lb.url}/full`, { signal: ac.signal })).body!.cancel();
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('an already-aborted signal rejects with its reason without connecting', async () => {
    const lb = await serve((_q, s) => s.end('no'));
    const ac = new AbortController();
    const reason = new Error('gave up');
    ac.abort(reason);
    await expect(transport(lb.url, { signal: ac.signal })).rejects.toBe(reason);
    expect(lb.connections).toBe(0);
  });

  it('the SDK reports an abort before the response as APIUserAbortError', async () => {
    let arrived = false;
    const lb = await serve(() => {
      arrived = true;
    });
    const client = new Anthropic({ apiKey: 'k', baseURL: lb.url, fetch: transport, maxRetries: 0 });
    const ac = new AbortController();
    const pending = client.messages.create(
      { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
      { signal: ac.signal },
    );
    await until(() => arrived, 'the request to arrive');
    ac.abort();
    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    await until(() => lb.open.size === 0, 'the socket to close');
  });

  it('aborting mid-stream errors the pending read with an AbortError and releases the socket', async () => {
    const lb = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse('ping', { type: 'ping' })); // then nothing more
    });
    const ac = new AbortController();
    const res = await transport(lb.url, { signal: ac.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('ping');
    const next = reader.read();
    ac.abort();
    const err = await next.catch((e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
    await until(() => lb.open.size === 0, 'the socket to close');
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });

  it('hands on each body chunk only when pace lets it, in order, and ends after the last', async () => {
    const lb = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      let n = 0;
      const next = () => {
        res.write(`chunk${n++};`);
        if (n < 4) setTimeout(next, 15);
        else res.end();
      };
      next();
    });
    // A gate the test opens by hand: every chunk waits for it.
    const gates: Array<() => void> = [];
    const paced = createNodeFetch({ pace: () => new Promise<void>((ok) => gates.push(ok)) });
    try {
      const res = await paced(lb.url);
      const reader = res.body!.getReader();
      const got: string[] = [];
      const reading = (async () => {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          got.push(new TextDecoder().decode(value));
        }
      })();
      await until(() => gates.length === 1, 'the first chunk to wait');
      await new Promise((ok) => setTimeout(ok, 60)); // the rest of the answer arrives meanwhile
      expect(got).toEqual([]); // nothing handed on while the gate is shut
      expect(gates).toHaveLength(1); // one chunk held at a time: the socket is paused
      while (gates.length > 0 || got.join('').split(';').length < 5) {
        const open = gates.shift();
        if (open) open();
        await new Promise((ok) => setTimeout(ok, 5));
      }
      await reading;
      expect(got.join('')).toBe('chunk0;chunk1;chunk2;chunk3;');
    } finally {
      paced.dispose();
    }
  });

  it('does not keep the request body alive while the response streams', async () => {
    // Under load a body held for a whole streamed answer is copied by every young-generation collection.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const lb = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse('ping', { type: 'ping' })); // then the answer stays open
    });
    let body: Uint8Array | undefined = new TextEncoder().encode(JSON.stringify({ padding: 'x'.repeat(200_000) }));
    const held = new WeakRef(body.buffer);
    const init: RequestInit = { method: 'POST', body: body as unknown as RequestInit['body'] };
    const res = await transport(lb.url, init);
    const reader = res.body!.getReader();
    await reader.read();
    // Only the transport could still hold the body now: the init object and the test's copies go.
    delete init.body;
    body = undefined;
    // deref() keeps its target alive until the current job ends: collect first, look afterwards.
    for (let i = 0; i < 3; i++) {
      gc();
      await new Promise((ok) => setImmediate(ok));
    }
    expect(held.deref()).toBeUndefined();
    await reader.cancel();
  });

  it('the SDK ends a stream quietly when aborted mid-stream, as it does with fetch', async () => {
    const lb = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(messageEvents('abc').slice(0, 3).join('')); // message_start, block start, one delta; then stall
    });
    const client = new Anthropic({ apiKey: 'k', baseURL: lb.url, fetch: transport, maxRetries: 0 });
    const ac = new AbortController();
    const stream = await client.messages.create(
      { model: 'm', max_tokens: 5, stream: true, messages: [{ role: 'user', content: 'x' }] },
      { signal: ac.signal },
    );
    const seen: string[] = [];
    for await (const ev of stream) {
      seen.push(ev.type);
      if (ev.type === 'content_block_delta') ac.abort();
    }
    expect(seen).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
    await until(() => lb.open.size === 0, 'the socket to close');
  });

  it('a stall mid-stream is retried by Rein as a stall (the idle timer aborts), not reported as a cancel', async () => {
    let n = 0;
    const lb = await serve(async (req, res) => {
      await readBody(req);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const events = messageEvents('after the stall');
      if (n++ === 0) res.write(events.slice(0, 3).join(''));
      else res.end(events.join(''));
    });
    const llm = new AnthropicLlm({
      apiKey: 'k',
      baseURL: lb.url,
      fetch: transport,
      idleTimeoutMs: 150,
      sleep: noSleep,
    });
    const { events, response } = await drainTurn(llm.turn(request, new AbortController().signal));
    expect(events.some((e) => e.type === 'retry' && /stalled/.test(e.reason))).toBe(true);
    expect(response.content).toEqual([{ type: 'text', text: 'after the stall' }]);
  });

  it('a connection cut mid-stream errors the body with TypeError("terminated") caused by the socket error', async () => {
    const lb = await serve((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse('ping', { type: 'ping' }), () => setTimeout(() => res.socket?.destroy(), 20));
    });
    const res = await transport(lb.url);
    const err = await res.text().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).message).toBe('terminated');
    expect(((err as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNRESET');
  });

  it('Rein retries a stream whose connection is cut and shows each character once', async () => {
    let n = 0;
    const answer = 'The quick brown fox jumps over the lazy dog.';
    const lb = await serve(async (req, res) => {
      await readBody(req);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const events = messageEvents(answer);
      if (n++ === 0) res.write(events.slice(0, 5).join(''), () => setTimeout(() => res.socket?.destroy(), 20));
      else res.end(events.join(''));
    });
    const llm = new AnthropicLlm({ apiKey: 'k', baseURL: lb.url, fetch: transport, sleep: noSleep });
    const { events, response } = await drainTurn(llm.turn(request, new AbortController().signal));
    const retry = events.find((e) => e.type === 'retry');
    expect(retry).toMatchObject({ type: 'retry', attempt: 2 });
    expect((retry as { reason: string }).reason).toMatch(/interrupted.*terminated/);
    expect(
      events
        .filter((e) => e.type === 'text_delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe(answer);
    expect(response.content).toEqual([{ type: 'text', text: answer }]);
  });

  it('a refused connection rejects with TypeError("fetch failed") caused by ECONNREFUSED, retryable for Rein', async () => {
    const probe = net.createServer();
    await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((ok) => probe.close(() => ok()));
    const url = `http://127.0.0.1:${port}`;

    const err = await transport(url).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).message).toBe('fetch failed');
    expect(((err as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');

    const client = new Anthropic({ apiKey: 'k', baseURL: url, fetch: transport, maxRetries: 0 });
    const sdkErr = await client.messages
      .create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(sdkErr).toBeInstanceOf(APIConnectionError);
    expect(sdkErr).not.toBeInstanceOf(APIConnectionTimeoutError);

    const llm = new AnthropicLlm({ apiKey: 'k', baseURL: url, fetch: transport, maxAttempts: 2, sleep: noSleep });
    const reinErr = await drainTurn(llm.turn(request, new AbortController().signal)).catch((e: unknown) => e);
    expect(isReinError(reinErr, 'llm_failed')).toBe(true);
    expect((reinErr as Error).message).toMatch(/after 2 attempts: connection error/);
    expect((reinErr as { details?: { retryable?: boolean } }).details?.retryable).toBe(true);
  });

  it('a connection that does not open in time fails like undici, and the SDK calls it a timeout', async () => {
    // A TCP listener that never speaks TLS: the https handshake cannot finish.
    const silent = await listen(
      net.createServer(() => {}),
      'https',
    );
    const quick = createNodeFetch({ connectTimeoutMs: 100 });
    try {
      const err = await quick(silent.url).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TypeError);
      expect(((err as TypeError).cause as NodeJS.ErrnoException).code).toBe('UND_ERR_CONNECT_TIMEOUT');
      const client = new Anthropic({ apiKey: 'k', baseURL: silent.url, fetch: quick, maxRetries: 0 });
      const sdkErr = await client.messages
        .create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e);
      expect(sdkErr).toBeInstanceOf(APIConnectionTimeoutError);
    } finally {
      quick.dispose();
    }
  });

  it('a 204 and a HEAD answer have a null body and hand their socket back to the pool', async () => {
    const lb = await serve((req, res) => {
      res.writeHead(req.method === 'HEAD' ? 200 : 204, { 'x-kind': req.method ?? '' });
      res.end();
    });
    const empty = await transport(`${lb.url}/a`, { method: 'DELETE' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    expect(await empty.text()).toBe('');
    const head = await transport(`${lb.url}/b`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('x-kind')).toBe('HEAD');
    expect(head.body).toBeNull();
    expect(lb.connections).toBe(1);
  });

  it('keeps repeated values of a response header apart and joins them like fetch', async () => {
    const lb = await serve((_q, res) => {
      res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
      res.setHeader('x-multi', ['one', 'two']);
      res.writeHead(201, 'Made It', { 'content-type': 'text/plain' });
      res.end('ok');
    });
    const res = await transport(lb.url);
    expect(res.status).toBe(201);
    expect(res.statusText).toBe('Made It');
    expect(res.ok).toBe(true);
    expect(res.url).toBe(`${lb.url}/`);
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(res.headers.get('x-multi')).toBe('one, two');
    expect(await res.text()).toBe('ok');
  });

  it('sends request headers given as Headers, a plain object or pairs', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    const lb = await serve((req, res) => {
      seen.push(req.headers);
      res.end();
    });
    await (await transport(lb.url, { headers: new Headers({ 'X-A': '1', 'Accept-Encoding': 'gzip' }) })).text();
    await (await transport(lb.url, { headers: { 'X-B': '2' } })).text();
    await (
      await transport(lb.url, {
        headers: [
          ['X-C', '3'],
          ['x-c', '4'],
        ],
      })
    ).text();
    expect(seen[0]).toMatchObject({ 'x-a': '1', 'accept-encoding': 'gzip' });
    expect(seen[1]).toMatchObject({ 'x-b': '2', 'accept-encoding': 'identity' });
    expect(seen[2]).toMatchObject({ 'x-c': '3, 4' });
  });

  it('sends string and byte bodies whole with the right content-length, and hands FormData to the global fetch', async () => {
    const got: { length: string | undefined; type: string | undefined; body: Buffer }[] = [];
    const lb = await serve(async (req, res) => {
      const body = await readBody(req);
      got.push({ length: req.headers['content-length'], type: req.headers['content-type'], body });
      res.end();
    });
    const lone = 'a\ud800b ☃'; // a lone surrogate goes out as U+FFFD, as fetch sends it
    await (await transport(lb.url, { method: 'POST', body: lone })).text();
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252]).subarray(1, 5);
    await (
      await transport(lb.url, { method: 'POST', body: bytes, headers: { 'content-type': 'application/octet-stream' } })
    ).text();
    await (await transport(lb.url, { method: 'POST', body: bytes.buffer })).text();
    const form = new FormData();
    form.set('field', 'value');
    await (await transport(lb.url, { method: 'POST', body: form })).text();

    expect(got[0]!.body.toString('utf8')).toBe('a\ufffdb ☃');
    expect(Number(got[0]!.length)).toBe(got[0]!.body.length);
    expect(got[0]!.type).toBe('text/plain;charset=UTF-8');
    expect([...got[1]!.body]).toEqual([1, 2, 250, 251]);
    expect(got[1]!.length).toBe('4');
    expect([...got[2]!.body]).toEqual([0, 1, 2, 250, 251, 252]);
    expect(got[3]!.type).toMatch(/^multipart\/form-data; boundary=/);
    expect(got[3]!.body.toString()).toContain('value');
  });

  it('reuses one keep-alive connection for consecutive requests', async () => {
    const lb = await serve((_q, res) => res.end('x'));
    for (let i = 0; i < 3; i++) expect(await (await transport(lb.url)).text()).toBe('x');
    expect(lb.connections).toBe(1);
  });

  it('the idle-socket timeout does not cut a request waiting for a slow answer', async () => {
    const lb = await serve((_q, res) => {
      setTimeout(() => res.end('late but fine'), 300);
    });
    const impatientPool = createNodeFetch({ freeSocketTimeoutMs: 50 });
    try {
      expect(await (await impatientPool(lb.url)).text()).toBe('late but fine');
      // Once idle in the pool, the same timeout closes the connection.
      await until(() => lb.open.size === 0, 'the idle socket to be closed');
      expect(await (await impatientPool(lb.url)).text()).toBe('late but fine');
      expect(lb.connections).toBe(2);
    } finally {
      impatientPool.dispose();
    }
  });

  it('resends once when a pooled connection turns out closed, but not when a fresh one is reset', async () => {
    const served = new WeakMap<Socket, number>();
    let requests = 0;
    const lb = await serve((req, res) => {
      requests++;
      const count = (served.get(req.socket) ?? 0) + 1;
      served.set(req.socket, count);
      // The second request on a connection finds it gone, like an idle socket the server closed.
      if (count === 2) req.socket.destroy();
      else res.end(`answer ${requests}`);
    });
    expect(await (await transport(lb.url, { method: 'POST', body: 'one' })).text()).toBe('answer 1');
    expect(await (await transport(lb.url, { method: 'POST', body: 'two' })).text()).toBe('answer 3');
    expect(lb.connections).toBe(2);

    const rude = await serve((req) => req.socket.destroy());
    const err = await transport(rude.url, { method: 'POST', body: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(((err as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNRESET');
    expect(rude.connections).toBe(1);
  });

  it('decodes gzip, deflate and brotli bodies a server sends despite identity being asked for', async () => {
    const json = JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'compressed overload' } });
    const lb = await serve((req, res) => {
      const enc = req.url!.split('/')[1]!; // the SDK appends /v1/messages
      const body =
        enc === 'gzip'
          ? zlib.gzipSync(json)
          : enc === 'deflate'
            ? zlib.deflateSync(json)
            : zlib.brotliCompressSync(json);
      res.writeHead(enc === 'gzip' ? 529 : 200, { 'content-type': 'application/json', 'content-encoding': enc });
      res.end(body);
    });
    for (const enc of ['deflate', 'br'])
      expect(await (await transport(`${lb.url}/${enc}`)).json()).toMatchObject({
        error: { message: 'compressed overload' },
      });

    const client = new Anthropic({ apiKey: 'k', baseURL: `${lb.url}/gzip`, fetch: transport, maxRetries: 0 });
    const err = await client.messages
      .create({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect((err as InternalServerError).status).toBe(529);
    expect((err as InternalServerError).message).toContain('compressed overload');
  });

  it('follows a redirect through the global fetch unless told not to', async () => {
    const lb = await serve((req, res) => {
      if (req.url === '/old') {
        res.writeHead(307, { location: '/new' });
        res.end();
      } else res.end(`at ${req.url} via ${req.method}`);
    });
    expect(await (await transport(`${lb.url}/old`, { method: 'POST', body: 'b' })).text()).toBe('at /new via POST');
    const manual = await transport(`${lb.url}/old`, { redirect: 'manual' });
    expect(manual.status).toBe(307);
    expect(manual.headers.get('location')).toBe('/new');
  });

  it('stops reading from the socket while nobody reads the body', async () => {
    const total = 32 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 120);
    let written = 0;
    const lb = await serve(async (_q, res) => {
      res.writeHead(200, { 'content-length': String(total) });
      while (written < total) {
        written += chunk.length;
        if (!res.write(chunk)) await new Promise((r) => res.once('drain', r));
      }
      res.end();
    });
    const res = await transport(lb.url);
    await new Promise((r) => setTimeout(r, 300));
    // Loopback moves 32 MB in far less time; only backpressure holds the sender back.
    expect(written).toBeLessThan(total / 4);
    const received = (await res.arrayBuffer()).byteLength;
    expect(received).toBe(total);
  });

  it('with useGlobalFetch everything goes through the global fetch (as under NODE_USE_ENV_PROXY=1)', async () => {
    const seen: (string | undefined)[] = [];
    const lb = await serve((req, res) => {
      seen.push(req.headers['accept-encoding']);
      res.end();
    });
    const viaGlobal = createNodeFetch({ useGlobalFetch: true });
    await (await viaGlobal(lb.url)).text();
    await (await transport(lb.url)).text();
    expect(seen[0]).not.toBe('identity');
    expect(seen[1]).toBe('identity');
    viaGlobal.dispose();
  });
});

// ---------------------------------------------------------------------------------------------------

const hasOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;
const runTls = hasOpenssl || process.env.CI === 'true';

describe.skipIf(!runTls)(
  runTls ? 'nodeFetch over HTTPS' : 'nodeFetch over HTTPS (skipped: openssl is not on PATH)',
  () => {
    let dir: string;
    let cert: string;
    let key: string;
    beforeAll(() => {
      if (!hasOpenssl) throw new Error('openssl is required to make the test certificate (CI=true)');
      dir = mkdtempSync(path.join(tmpdir(), 'rein-nodefetch-'));
      const made = spawnSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=IP:127.0.0.1,DNS:localhost',
          '-keyout',
          path.join(dir, 'key.pem'),
          '-out',
          path.join(dir, 'cert.pem'),
        ],
        { encoding: 'utf8' },
      );
      if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
      cert = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
      key = readFileSync(path.join(dir, 'key.pem'), 'utf8');
    });
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('talks to a server whose certificate it was given, over one kept-alive TLS connection, and refuses it otherwise', async () => {
      const lb = await listen(
        https.createServer({ cert, key }, async (req, res) => {
          const body = await readBody(req);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ echoed: body.toString(), secure: true }));
        }),
        'https',
      );
      const trusting = createNodeFetch({ ca: cert });
      try {
        for (const word of ['one', 'two']) {
          const res = await trusting(lb.url, { method: 'POST', body: word });
          expect(await res.json()).toEqual({ echoed: word, secure: true });
        }
        expect(lb.connections).toBe(1);
      } finally {
        trusting.dispose();
      }
      const err = await transport(lb.url).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TypeError);
      expect(String(((err as TypeError).cause as NodeJS.ErrnoException).code)).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY/);
    });

    it('streams a Messages API answer over TLS through the SDK', async () => {
      const lb = await listen(
        https.createServer({ cert, key }, async (req, res) => {
          await readBody(req);
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(messageEvents('secure stream').join(''));
        }),
        'https',
      );
      const trusting = createNodeFetch({ ca: cert });
      try {
        const llm = new AnthropicLlm({ apiKey: 'k', baseURL: lb.url, fetch: trusting });
        const { response } = await drainTurn(llm.turn(request, new AbortController().signal));
        expect(response.content).toEqual([{ type: 'text', text: 'secure stream' }]);
      } finally {
        trusting.dispose();
      }
    });
  },
);
