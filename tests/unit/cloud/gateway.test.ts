import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayClient, GatewayError } from '../../../src-main/core/cloud/gateway.js';
import type { SseEvent } from '../../../src-main/core/cloud/sse.js';
import { startFakeGateway, type FakeGateway } from '../../support/fakeGateway.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

let gw: FakeGateway;
beforeEach(async () => {
  gw = await startFakeGateway({ apiKey: 'secret-key' });
});
afterEach(async () => {
  await gw.close();
});

const client = (over: { apiKey?: string; base?: string } = {}) =>
  new GatewayClient({ baseUrl: new URL(over.base ?? gw.url), apiKey: over.apiKey ?? 'secret-key' });
const signal = () => new AbortController().signal;
const terminal = (ev: SseEvent) => ev.data.includes('WORKFLOW_COMPLETED');

async function collect(gen: AsyncGenerator<SseEvent, void>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const ev of gen) out.push(ev);
  return out;
}

describe('GatewayClient', () => {
  it('submits a task with X-API-Key and JSON, and resolves the stream URL against the base', async () => {
    gw.enqueue({ workflowId: 'wf-a', taskId: 'task-a', events: [] });
    const t = await client().submitTask({ query: 'q', session_id: 's1', context: { user_context: 'c' } }, signal());
    expect(t).toMatchObject({ workflowId: 'wf-a', taskId: 'task-a' });
    expect(t.streamUrl.href).toBe(`${gw.url}/api/v1/stream/sse?workflow_id=wf-a`);
    const [req] = gw.requestsTo('/api/v1/tasks/stream', 'POST');
    expect(req!.headers['x-api-key']).toBe('secret-key');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.body).toEqual({ query: 'q', session_id: 's1', context: { user_context: 'c' } });
  });

  it('never follows a stream_url to another origin (the key would go there)', async () => {
    gw.enqueue({ workflowId: 'wf-b', events: [], streamUrl: 'https://elsewhere.example/steal?workflow_id=wf-b' });
    const t = await client().submitTask({ query: 'q' }, signal());
    expect(t.streamUrl.origin).toBe(gw.url);
    expect(t.streamUrl.pathname).toBe('/api/v1/stream/sse');
  });

  it('keeps a path prefix of the base URL', () => {
    const c = new GatewayClient({ baseUrl: new URL('https://gw.example/shannon') });
    expect(c.url('api/v1/tasks/x').href).toBe('https://gw.example/shannon/api/v1/tasks/x');
  });

  it('reports error answers with their status and at most 4 KiB of the body; 5xx and 429 are transient, 4xx not', async () => {
    gw.enqueue(
      { events: [], submitError: { status: 503, body: 'x'.repeat(10_000) } },
      { events: [], submitError: { status: 400, body: '{"error":"bad query"}' } },
    );
    const first = await client()
      .submitTask({ query: 'q' }, signal())
      .catch((e: unknown) => e);
    expect(first).toBeInstanceOf(GatewayError);
    expect((first as GatewayError).status).toBe(503);
    expect((first as GatewayError).transient).toBe(true);
    expect((first as GatewayError).body!.length).toBe(4096);
    const second = (await client()
      .submitTask({ query: 'q' }, signal())
      .catch((e: unknown) => e)) as GatewayError;
    expect(second.transient).toBe(false);
    expect(second.message).toContain('HTTP 400: {"error":"bad query"}');
    const denied = (await client({ apiKey: 'wrong' })
      .submitTask({ query: 'q' }, signal())
      .catch((e: unknown) => e)) as GatewayError;
    expect(denied.status).toBe(401);
  });

  it('a gateway that cannot be reached is a transient error naming it', async () => {
    const dead = createServer();
    await new Promise<void>((ok) => dead.listen(0, '127.0.0.1', ok));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((ok) => dead.close(() => ok()));
    const err = (await client({ base: `http://127.0.0.1:${port}` })
      .submitTask({ query: 'q' }, signal())
      .catch((e: unknown) => e)) as GatewayError;
    expect(err.transient).toBe(true);
    expect(err.message).toMatch(/cannot reach the cloud gateway at http:\/\/127\.0\.0\.1:\d+.*ECONNREFUSED/);
  });

  it('resumes a dropped stream with Last-Event-ID, waiting the server’s retry, without repeating events', async () => {
    const events = Array.from({ length: 6 }, (_, i) => ({
      data: { type: i === 5 ? 'WORKFLOW_COMPLETED' : 'AGENT_STARTED', n: i },
    }));
    gw.enqueue({ workflowId: 'wf-r', events, dropAfter: [2, 1], retryMs: 20 });
    const c = client();
    const t = await c.submitTask({ query: 'q' }, signal());
    const reconnects: unknown[] = [];
    const seen = await collect(
      c.events(t.streamUrl, {
        signal: signal(),
        idleTimeoutMs: 5_000,
        isTerminal: terminal,
        onReconnect: (r) => reconnects.push(r),
      }),
    );
    expect(seen.map((e) => JSON.parse(e.data).n)).toEqual([0, 1, 2, 3, 4, 5]);
    const streams = gw.requestsTo('/api/v1/stream/sse', 'GET');
    expect(streams.map((r) => r.headers['last-event-id'])).toEqual([undefined, '2', '3']);
    expect(
      streams.every((r) => r.headers['x-api-key'] === 'secret-key' && r.headers.accept === 'text/event-stream'),
    ).toBe(true);
    expect(reconnects).toEqual([
      expect.objectContaining({ attempt: 1, lastEventId: '2', delayMs: 20 }),
      expect.objectContaining({ attempt: 1, lastEventId: '3', delayMs: 20 }),
    ]);
  });

  it('reopens a stream that went quiet for the idle timeout', async () => {
    gw.enqueue({
      workflowId: 'wf-i',
      events: [{ data: { type: 'AGENT_STARTED' } }, { data: { type: 'WORKFLOW_COMPLETED' } }],
      stallAfter: [1],
      retryMs: 10,
    });
    const c = client();
    const t = await c.submitTask({ query: 'q' }, signal());
    const reasons: string[] = [];
    const seen = await collect(
      c.events(t.streamUrl, {
        signal: signal(),
        idleTimeoutMs: 150,
        isTerminal: terminal,
        onReconnect: (r) => reasons.push(r.reason),
      }),
    );
    // The first connection went silent after event 1 and was given up after 150 ms; the second resumed after it.
    expect(seen.map((e) => e.id)).toEqual(['1', '2']);
    expect(reasons).toEqual(['no data for 150 ms']);
    expect(gw.requestsTo('/api/v1/stream/sse').map((r) => r.headers['last-event-id'])).toEqual([undefined, '1']);
  });

  it('gives up after maxReconnects drops without a new event', async () => {
    gw.enqueue({ workflowId: 'wf-x', events: [{ data: { type: 'AGENT_STARTED' } }], retryMs: 5 });
    const c = client();
    const t = await c.submitTask({ query: 'q' }, signal());
    const err = (await collect(
      c.events(t.streamUrl, { signal: signal(), idleTimeoutMs: 5_000, maxReconnects: 3, isTerminal: terminal }),
    ).catch((e: unknown) => e)) as GatewayError;
    expect(err).toBeInstanceOf(GatewayError);
    expect(err.message).toMatch(/lost 4 times in a row/);
    expect(gw.requestsTo('/api/v1/stream/sse')).toHaveLength(4);
  });

  it('stops at once when the signal aborts, without reconnecting', async () => {
    gw.enqueue({ workflowId: 'wf-h', events: [{ data: { type: 'AGENT_STARTED' } }], hang: true });
    const c = client();
    const t = await c.submitTask({ query: 'q' }, signal());
    const ac = new AbortController();
    const gen = c.events(t.streamUrl, { signal: ac.signal, idleTimeoutMs: 5_000, isTerminal: terminal });
    expect((await gen.next()).done).toBe(false);
    setTimeout(() => ac.abort(), 20);
    await expect(gen.next()).rejects.toBeDefined();
    expect(gw.requestsTo('/api/v1/stream/sse')).toHaveLength(1);
  });

  it('a 4xx on the stream is final (no reconnects)', async () => {
    const c = client();
    const err = (await collect(
      c.events(new URL(`${gw.url}/api/v1/stream/sse?workflow_id=nope`), {
        signal: signal(),
        idleTimeoutMs: 5_000,
        isTerminal: terminal,
      }),
    ).catch((e: unknown) => e)) as GatewayError;
    expect(err.status).toBe(404);
    expect(gw.requestsTo('/api/v1/stream/sse')).toHaveLength(1);
  });
});
