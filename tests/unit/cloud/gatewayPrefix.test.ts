/**
 * Where the gateway client sends requests: a gateway behind a path prefix (`https://host/shannon`)
 * keeps every request under that path, including the root-relative `stream_url` the gateway answers, and
 * the API key never goes to another origin, neither through a `stream_url` nor through a redirect.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient, GatewayError } from '../../../src-main/core/cloud/gateway.js';
import type { SseEvent } from '../../../src-main/core/cloud/sse.js';
import { startFakeGateway, type FakeGateway } from '../../support/fakeGateway.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

const signal = () => new AbortController().signal;
const terminal = (ev: SseEvent) => ev.data.includes('WORKFLOW_COMPLETED');
async function collect(gen: AsyncGenerator<SseEvent, void>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const ev of gen) out.push(ev);
  return out;
}

async function prefixed(): Promise<FakeGateway> {
  const gw = await startFakeGateway({ apiKey: 'k', prefix: '/shannon' });
  closers.push(() => gw.close());
  return gw;
}

interface Seen {
  method: string;
  path: string;
  key: string | undefined;
  body: string;
}
/** A bare server on loopback: `handle` answers, every request is recorded. */
async function server(
  handle: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const s: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    seen.push({
      method: req.method ?? '',
      path: req.url ?? '',
      key: req.headers['x-api-key'] as string | undefined,
      body,
    });
    handle(req, res, body);
  });
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  closers.push(async () => {
    s.closeAllConnections();
    await new Promise<void>((ok) => s.close(() => ok()));
  });
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, seen };
}

const sse = (res: ServerResponse) => {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', Connection: 'close' });
  res.end('id: 1\ndata: {"type":"WORKFLOW_COMPLETED"}\n\n');
};

describe('a gateway behind a path prefix', () => {
  it('reads the root-relative stream_url under the prefix, so the whole workflow works (it was a 404 on the stream)', async () => {
    const gw = await prefixed();
    gw.enqueue({
      workflowId: 'wf-p',
      events: [{ data: { type: 'AGENT_STARTED' } }, { data: { type: 'WORKFLOW_COMPLETED' } }],
      result: 'R',
    });
    const c = new GatewayClient({ baseUrl: new URL(gw.url), apiKey: 'k' });
    const t = await c.submitTask({ query: 'q' }, signal());
    expect(t.streamUrl.href).toBe(`${gw.url}/api/v1/stream/sse?workflow_id=wf-p`);
    const seen = await collect(c.events(t.streamUrl, { signal: signal(), idleTimeoutMs: 5_000, isTerminal: terminal }));
    expect(seen).toHaveLength(2);
    expect((await c.getTask(t.taskId, signal())).result).toBe('R');
    // Every request went under /shannon; nothing reached the bare origin.
    expect(gw.requests.map((r) => r.rawPath)).toEqual([
      '/shannon/api/v1/tasks/stream',
      '/shannon/api/v1/stream/sse',
      `/shannon/api/v1/tasks/${t.taskId}`,
    ]);
  });

  it.each([
    ['root-relative', '/api/v1/stream/sse?workflow_id=w', 'https://gw.example/shannon/api/v1/stream/sse?workflow_id=w'],
    [
      'root-relative, already under the prefix',
      '/shannon/api/v1/stream/sse?workflow_id=w',
      'https://gw.example/shannon/api/v1/stream/sse?workflow_id=w',
    ],
    ['relative', 'api/v1/stream/sse?workflow_id=w', 'https://gw.example/shannon/api/v1/stream/sse?workflow_id=w'],
    [
      'absolute, same origin, outside the prefix',
      'https://gw.example/api/v1/stream/sse?workflow_id=w',
      'https://gw.example/shannon/api/v1/stream/sse?workflow_id=w',
    ],
    [
      'absolute, same origin, under the prefix',
      'https://gw.example/shannon/v2/events?id=w#x',
      'https://gw.example/shannon/v2/events?id=w',
    ],
    [
      'another host',
      'https://elsewhere.example/shannon/api/v1/stream/sse?workflow_id=w',
      'https://gw.example/shannon/api/v1/stream/sse?workflow_id=wf',
    ],
    [
      'protocol-relative to another host',
      '//elsewhere.example/api/v1/stream/sse?workflow_id=w',
      'https://gw.example/shannon/api/v1/stream/sse?workflow_id=wf',
    ],
    [
      'the same host over http',
      'http://gw.example/shannon/api/v1/stream/sse?workflow_id=w',
      'https://gw.example/shannon/api/v1/stream/sse?workflow_id=wf',
    ],
    [
      'the same host on another port',
      'https://gw.example:8443/shannon/api/v1/stream/sse?workflow_id=w',
      'https://gw.example/shannon/api/v1/stream/sse?workflow_id=wf',
    ],
    [
      'with credentials',
      'https://user:pw@gw.example/shannon/api/v1/stream/sse?workflow_id=w',
      'https://gw.example/shannon/api/v1/stream/sse?workflow_id=wf',
    ],
  ])('stream_url %s', (_what, given, expected) => {
    const c = new GatewayClient({ baseUrl: new URL('https://gw.example/shannon') });
    expect(c.streamUrl('wf', given).href).toBe(expected);
  });

  it('a base at the root takes a same-origin stream_url as it is', () => {
    const c = new GatewayClient({ baseUrl: new URL('https://gw.example') });
    expect(c.streamUrl('wf', '/v2/stream?id=w').href).toBe('https://gw.example/v2/stream?id=w');
    expect(c.streamUrl('wf', 'https://gw.example/v2/stream?id=w').href).toBe('https://gw.example/v2/stream?id=w');
  });
});

describe('redirects', () => {
  it('a redirect to another origin is not followed: the key never reaches it, and the error says why', async () => {
    const other = await server((_req, res) => sse(res));
    const gw = await server((req, res) => {
      if (req.method === 'POST') {
        res.writeHead(201, { 'Content-Type': 'application/json' });
        return res.end(
          JSON.stringify({ workflow_id: 'w', task_id: 't', stream_url: '/api/v1/stream/sse?workflow_id=w' }),
        );
      }
      res.writeHead(302, { Location: `${other.url}/collect` });
      res.end();
    });
    const c = new GatewayClient({ baseUrl: new URL(gw.url), apiKey: 'the-key' });
    const t = await c.submitTask({ query: 'q' }, signal());
    const err = (await collect(
      c.events(t.streamUrl, { signal: signal(), idleTimeoutMs: 5_000, isTerminal: terminal }),
    ).catch((e: unknown) => e)) as GatewayError;
    expect(err).toBeInstanceOf(GatewayError);
    expect(err.transient).toBe(false);
    expect(err.message).toBe(
      `the cloud gateway answered GET /api/v1/stream/sse with HTTP 302, a redirect to another origin (${other.url}); not followed: the API key is only ever sent to ${gw.url}`,
    );
    expect(other.seen).toHaveLength(0);
    // Not retried either: one stream request.
    expect(gw.seen.filter((s) => s.method === 'GET')).toHaveLength(1);
  });

  it('follows redirects on the same origin with the key: 307/308 keep a POST and its body, 303 turns it into a GET', async () => {
    const gw = await server((req, res, body) => {
      if (req.url === '/api/v1/tasks/stream') {
        res.writeHead(308, { Location: '/v2/tasks/stream' });
        return res.end();
      }
      if (req.url === '/v2/tasks/stream') {
        res.writeHead(201, { 'Content-Type': 'application/json' });
        return res.end(JSON.stringify({ workflow_id: 'w', echoed: body }));
      }
      if (req.url === '/api/v1/tasks/w/cancel') {
        res.writeHead(303, { Location: '/api/v1/tasks/w' });
        return res.end();
      }
      if (req.url?.startsWith('/api/v1/stream/sse')) {
        res.writeHead(307, { Location: '/v2/sse?workflow_id=w' });
        return res.end();
      }
      if (req.url?.startsWith('/v2/sse')) return sse(res);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"status":"CANCELLED"}');
    });
    const c = new GatewayClient({ baseUrl: new URL(gw.url), apiKey: 'the-key' });
    const t = await c.submitTask({ query: 'q' }, signal());
    expect(t.workflowId).toBe('w');
    expect(
      await collect(c.events(t.streamUrl, { signal: signal(), idleTimeoutMs: 5_000, isTerminal: terminal })),
    ).toHaveLength(1);
    await c.cancelTask('w', signal());
    expect(gw.seen.map((s) => `${s.method} ${s.path}`)).toEqual([
      'POST /api/v1/tasks/stream',
      'POST /v2/tasks/stream',
      'GET /api/v1/stream/sse?workflow_id=w',
      'GET /v2/sse?workflow_id=w',
      'POST /api/v1/tasks/w/cancel',
      'GET /api/v1/tasks/w',
    ]);
    expect(gw.seen.every((s) => s.key === 'the-key')).toBe(true);
    expect(JSON.parse(gw.seen[1]!.body)).toEqual({ query: 'q' });
    expect(gw.seen[5]!.body).toBe('');
  });

  it('gives up after 5 redirects', async () => {
    const gw = await server((req, res) => {
      res.writeHead(302, { Location: `/loop${(req.url?.length ?? 0) % 7}` });
      res.end();
    });
    const c = new GatewayClient({ baseUrl: new URL(gw.url) });
    const err = (await c.getTask('t', signal()).catch((e: unknown) => e)) as GatewayError;
    expect(err.message).toBe('the cloud gateway redirected GET /api/v1/tasks/t more than 5 times');
    expect(gw.seen).toHaveLength(6);
  });
});
