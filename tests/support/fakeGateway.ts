/**
 * A fake Shannon-compatible gateway on loopback, for cloud_delegate tests (docs/cloud.md). Each
 * submitted task takes the next scripted workflow: its events go out on the SSE stream (ids 1, 2, … unless
 * the script names them), the stream can be cut after N events (the next connection resumes after
 * `Last-Event-ID`), an event can wait for the plan's review, and the stream can stay open after the last
 * event (a workflow that never finishes). Every request is recorded.
 *
 * With `prefix: '/shannon'` it stands behind a reverse proxy at that path, as a gateway at
 * `https://host/shannon` does: only paths under the prefix reach it (others are 404), and, not knowing its
 * prefix, it answers the root-relative `stream_url` `/api/v1/stream/sse?workflow_id=…`.
 *
 *   POST /api/v1/tasks/stream        → 201 {workflow_id, task_id, stream_url}
 *   GET  /api/v1/stream/sse?workflow_id=…
 *   GET  /api/v1/tasks/{id}          → {task_id, workflow_id, status, result, query}
 *   POST /api/v1/tasks/{id}/review   → {status: "approved"}
 *   POST /api/v1/tasks/{id}/cancel   → {status: "cancelled"}
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSseEvent {
  /** Default: its position, from 1. Empty string: sent without an id line. */
  id?: string;
  /** The `event:` line (default: none, so the type travels in the data). */
  event?: string;
  /** JSON-encoded unless a string. */
  data: unknown;
  /** Wait this long before sending it. */
  delayMs?: number;
  /** Sent only once the workflow's plan was reviewed (POST …/review). */
  afterReview?: boolean;
}

export interface GatewayScript {
  workflowId?: string;
  taskId?: string;
  events: FakeSseEvent[];
  /** Connection k (0-based) is cut, without an end, after dropAfter[k] events of it. */
  dropAfter?: number[];
  /** Connection k (0-based) goes silent, and stays open, after stallAfter[k] events of it. */
  stallAfter?: number[];
  /** After the last event the stream stays open (no end): a workflow that never finishes. */
  hang?: boolean;
  /** `retry:` sent at the start of every connection (ms). */
  retryMs?: number;
  /** The full result `GET /api/v1/tasks/{id}` gives. */
  result?: string;
  /** The `usage` `GET /api/v1/tasks/{id}` gives (default: none). */
  usage?: unknown;
  /** Answer `GET /api/v1/tasks/{id}` with this status instead (an error). */
  taskStatus?: number;
  /** Answer the submission with this error instead. */
  submitError?: { status: number; body: string };
  /** The stream_url in the submission's answer (default the standard path). */
  streamUrl?: string;
}

export interface GatewayRequest {
  method: string;
  /** The path the gateway saw (without the prefix); a request outside the prefix keeps its whole path. */
  path: string;
  /** The path as it arrived, prefix and all. */
  rawPath: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface FakeGateway {
  /** The base URL to configure (with the prefix, when there is one). */
  url: string;
  requests: GatewayRequest[];
  enqueue(...scripts: GatewayScript[]): void;
  /** What a submission takes when the queue is empty. */
  fallback: GatewayScript;
  /** Requests to a path (`/api/v1/tasks/wf-1/cancel`) or matching a pattern. */
  requestsTo(path: string | RegExp, method?: string): GatewayRequest[];
  /** Resolves once a request to the path arrives (or has arrived). */
  waitFor(path: string | RegExp, method?: string, timeoutMs?: number): Promise<GatewayRequest>;
  close(): Promise<void>;
}

interface Workflow {
  script: GatewayScript;
  workflowId: string;
  taskId: string;
  query: string;
  connections: number;
  reviewed: boolean;
  onReview: Array<() => void>;
  cancelled: boolean;
}

export async function startFakeGateway(opts: { apiKey?: string; prefix?: string } = {}): Promise<FakeGateway> {
  const prefix = (opts.prefix ?? '').replace(/\/+$/, '');
  const requests: GatewayRequest[] = [];
  const queue: GatewayScript[] = [];
  const workflows = new Map<string, Workflow>();
  const open = new Set<ServerResponse>();
  const waiters: Array<{ match: (r: GatewayRequest) => boolean; resolve: (r: GatewayRequest) => void }> = [];
  let seq = 0;

  const matches = (path: string | RegExp, method: string | undefined) => (r: GatewayRequest) =>
    (typeof path === 'string' ? r.path === path : path.test(r.path)) && (method === undefined || r.method === method);

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json', Connection: 'close' });
    res.end(JSON.stringify(body));
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const rawPath = url.pathname;
    const inside = !prefix || rawPath === prefix || rawPath.startsWith(`${prefix}/`);
    if (inside && prefix) url.pathname = rawPath.slice(prefix.length) || '/';
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      // kept raw
    }
    const record: GatewayRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      rawPath,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
    };
    requests.push(record);
    for (const w of [...waiters]) {
      if (w.match(record)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(record);
      }
    }

    // What the reverse proxy answers for a path outside the gateway's prefix.
    if (!inside) return json(res, 404, { error: `no route ${req.method} ${rawPath} (the gateway is at ${prefix})` });
    if (opts.apiKey !== undefined && req.headers['x-api-key'] !== opts.apiKey)
      return json(res, 401, { error: 'invalid API key' });

    if (req.method === 'POST' && url.pathname === '/api/v1/tasks/stream') {
      const script = queue.shift() ?? gateway.fallback;
      if (script.submitError) {
        res.writeHead(script.submitError.status, { 'Content-Type': 'application/json', Connection: 'close' });
        return res.end(script.submitError.body);
      }
      seq++;
      const workflowId = script.workflowId ?? `wf-${seq}`;
      const taskId = script.taskId ?? `task-${seq}`;
      const query =
        typeof body === 'object' && body && 'query' in body ? String((body as { query: unknown }).query) : '';
      workflows.set(workflowId, {
        script,
        workflowId,
        taskId,
        query,
        connections: 0,
        reviewed: false,
        onReview: [],
        cancelled: false,
      });
      workflows.set(taskId, workflows.get(workflowId)!);
      return json(res, 201, {
        workflow_id: workflowId,
        task_id: taskId,
        stream_url: script.streamUrl ?? `/api/v1/stream/sse?workflow_id=${workflowId}`,
      });
    }

    if (req.method === 'GET' && url.pathname === '/api/v1/stream/sse') {
      const wf = workflows.get(url.searchParams.get('workflow_id') ?? '');
      if (!wf) return json(res, 404, { error: 'unknown workflow' });
      return stream(wf, req, res);
    }

    const task = /^\/api\/v1\/tasks\/([^/]+)(?:\/(review|cancel))?$/.exec(url.pathname);
    if (task) {
      const wf = workflows.get(decodeURIComponent(task[1]!));
      if (!wf) return json(res, 404, { error: 'unknown task' });
      if (req.method === 'GET' && !task[2]) {
        if (wf.script.taskStatus) return json(res, wf.script.taskStatus, { error: 'task lookup failed' });
        return json(res, 200, {
          task_id: wf.taskId,
          workflow_id: wf.workflowId,
          status: wf.cancelled ? 'CANCELLED' : 'COMPLETED',
          result: wf.script.result ?? '',
          query: wf.query,
          ...(wf.script.usage !== undefined ? { usage: wf.script.usage } : {}),
        });
      }
      if (req.method === 'POST' && task[2] === 'review') {
        wf.reviewed = true;
        for (const r of wf.onReview.splice(0)) r();
        return json(res, 200, { status: 'approved' });
      }
      if (req.method === 'POST' && task[2] === 'cancel') {
        wf.cancelled = true;
        return json(res, 200, { status: 'cancelled' });
      }
    }
    json(res, 404, { error: `no route ${req.method} ${url.pathname}` });
  });

  async function stream(wf: Workflow, req: IncomingMessage, res: ServerResponse) {
    const connection = wf.connections++;
    const ids = wf.script.events.map((e, i) => (e.id === undefined ? String(i + 1) : e.id));
    const after = req.headers['last-event-id'];
    let start = 0;
    if (typeof after === 'string') {
      const at = ids.indexOf(after);
      start = at === -1 ? 0 : at + 1;
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'close' });
    open.add(res);
    res.on('close', () => open.delete(res));
    if (wf.script.retryMs !== undefined) res.write(`retry: ${wf.script.retryMs}\n\n`);
    res.write(': connected\n\n');
    const dropAt = wf.script.dropAfter?.[connection];
    const stallAt = wf.script.stallAfter?.[connection];
    let sent = 0;
    for (let i = start; i < wf.script.events.length; i++) {
      if (res.destroyed) return;
      if (dropAt !== undefined && sent >= dropAt) {
        // Cut mid-way: no end of stream, the socket just goes (once what was written reached the client).
        await new Promise((ok) => setTimeout(ok, 30));
        res.socket?.destroy();
        return;
      }
      if (stallAt !== undefined && sent >= stallAt) return; // silent, open, until the client gives up on it
      const e = wf.script.events[i]!;
      if (e.delayMs) await new Promise((ok) => setTimeout(ok, e.delayMs));
      if (e.afterReview && !wf.reviewed) await new Promise<void>((ok) => wf.onReview.push(ok));
      if (res.destroyed) return;
      const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data);
      const lines = [
        ...(ids[i] ? [`id: ${ids[i]}`] : []),
        ...(e.event ? [`event: ${e.event}`] : []),
        ...data.split('\n').map((l) => `data: ${l}`),
      ];
      await new Promise<void>((ok) => res.write(`${lines.join('\n')}\n\n`, () => ok()));
      sent++;
    }
    if (wf.script.hang) return; // left open until the client goes or the gateway closes
    res.end();
  }

  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;

  const gateway: FakeGateway = {
    url: `http://127.0.0.1:${port}${prefix}`,
    requests,
    enqueue: (...scripts) => void queue.push(...scripts),
    fallback: { events: [{ data: { type: 'WORKFLOW_COMPLETED', message: 'done' } }], result: 'done' },
    requestsTo: (path, method) => requests.filter(matches(path, method)),
    waitFor: (path, method, timeoutMs = 5_000) => {
      const found = requests.find(matches(path, method));
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`no ${method ?? ''} request to ${String(path)} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({ match: matches(path, method), resolve: (r) => (clearTimeout(t), resolve(r)) });
      });
    },
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
  return gateway;
}
