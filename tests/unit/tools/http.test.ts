import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { httpTool } from '../../../src-main/core/tools/builtin/http.js';
import type { EgressCheck } from '../../../src-main/core/tools/tool.js';
import { callTool, makeToolContext, type TempToolContext } from './toolTestContext.js';

let t: TempToolContext;
let server: Server;
let base: string;
let received: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[];
let pending: ServerResponse[];

function route(req: IncomingMessage, res: ServerResponse, body: string): void {
  switch (req.url) {
    case '/hello':
      res.writeHead(200, { 'content-type': 'text/plain', 'x-demo': 'yes' }).end('hello world');
      return;
    case '/big':
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '20000' }).end('b'.repeat(20_000));
      return;
    case '/echo':
      res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ body, type: req.headers['content-type'] }));
      return;
    case '/redirect':
      res.writeHead(302, { location: '/hello' }).end();
      return;
    case '/binary':
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from([1, 0, 2, 0]));
      return;
    case '/hang':
      pending.push(res); // never answered; closed in afterEach
      return;
    default:
      res.writeHead(404).end('not here');
  }
}

beforeEach(async () => {
  t = await makeToolContext();
  received = [];
  pending = [];
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      route(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const res of pending) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.cleanup();
});

describe('http', () => {
  it('returns the status line, response headers, a blank line and the body', async () => {
    const r = await callTool(httpTool, { url: `${base}/hello` }, t.ctx);
    expect(r.ok).toBe(true);
    const [head, body] = r.content.split('\n\n');
    expect(head!.split('\n')[0]).toBe('HTTP 200 OK');
    expect(head).toContain('content-type: text/plain');
    expect(head).toContain('x-demo: yes');
    expect(body).toBe('hello world');
  });

  it('cuts the body at 10,240 bytes with a note', async () => {
    const r = await callTool(httpTool, { url: `${base}/big` }, t.ctx);
    const body = r.content.slice(r.content.indexOf('\n\n') + 2);
    expect(body.startsWith('b'.repeat(10_240) + '\n\n... (body cut at 10240 bytes of 20000)')).toBe(true);
    expect(body).not.toContain('b'.repeat(10_241));
  });

  it('sends a POST with headers and body', async () => {
    const r = await callTool(
      httpTool,
      { url: `${base}/echo`, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' },
      t.ctx,
    );
    expect(r.content.startsWith('HTTP 201 Created')).toBe(true);
    expect(received[0]).toMatchObject({ method: 'POST', body: '{"a":1}' });
    expect(r.content).toContain('"type":"application/json"');
  });

  it('asks the egress policy first and refuses without sending anything', async () => {
    const asked: string[] = [];
    const egress: EgressCheck = async (url, method) => {
      asked.push(`${method} ${url.href}`);
      return { allowed: false, reason: 'host is not on the allowlist' };
    };
    const r = await callTool(httpTool, { url: `${base}/hello` }, { ...t.ctx, egress });
    expect(r.ok).toBe(false);
    expect(r.errorKind).toBe('permission');
    expect(r.content).toContain('host is not on the allowlist');
    expect(asked).toEqual([`GET ${base}/hello`]);
    expect(received).toHaveLength(0);
  });

  it('times out as a transient error', async () => {
    const r = await callTool(httpTool, { url: `${base}/hang`, timeout: 0.3 }, t.ctx);
    expect(r.ok).toBe(false);
    expect(r.errorKind).toBe('transient');
    expect(r.content).toContain('timed out after 0.3 s');
  });

  it('is cancelled through the AbortSignal', async () => {
    const controller = new AbortController();
    const call = callTool(httpTool, { url: `${base}/hang` }, t.ctx, controller.signal);
    while (received.length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    const r = await call;
    expect(r.errorKind).toBe('transient');
    expect(r.content).toContain('cancelled');
  });

  it('reports a refused connection as a transient error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const r = await callTool(httpTool, { url: `http://127.0.0.1:${port}/` }, t.ctx);
    expect(r.errorKind).toBe('transient');
    expect(r.content).toContain('ECONNREFUSED');
  });

  it('does not follow redirects, so every host passes the egress check', async () => {
    const r = await callTool(httpTool, { url: `${base}/redirect` }, t.ctx);
    expect(r.content.startsWith('HTTP 302 Found')).toBe(true);
    expect(r.content).toContain('location: /hello');
    expect(received.map((x) => x.url)).toEqual(['/redirect']);
  });

  it('does not print a binary body', async () => {
    const r = await callTool(httpTool, { url: `${base}/binary` }, t.ctx);
    expect(r.content).toContain('binary body of application/octet-stream; 4 bytes, not shown');
  });

  it('returns error statuses as results for the model to read', async () => {
    const r = await callTool(httpTool, { url: `${base}/missing` }, t.ctx);
    expect(r.ok).toBe(true);
    expect(r.content.startsWith('HTTP 404 Not Found')).toBe(true);
  });

  it('accepts only GET and POST over http and https', async () => {
    expect(httpTool.input.safeParse({ url: `${base}/`, method: 'PUT' }).success).toBe(false);
    const put = await httpTool.call({ url: `${base}/`, method: 'PUT' as 'GET' }, t.ctx, new AbortController().signal);
    expect(put.errorKind).toBe('validation');
    const ftp = await callTool(httpTool, { url: 'ftp://127.0.0.1/file' }, t.ctx);
    expect(ftp.errorKind).toBe('validation');
    const bad = await callTool(httpTool, { url: 'not a url' }, t.ctx);
    expect(bad.errorKind).toBe('validation');
    const getWithBody = await callTool(httpTool, { url: `${base}/hello`, body: 'x' }, t.ctx);
    expect(getWithBody.errorKind).toBe('validation');
    expect(received).toHaveLength(0);
  });

  it('is read-only for GET only', () => {
    expect(httpTool.isReadOnly({ url: base })).toBe(true);
    expect(httpTool.isReadOnly({ url: base, method: 'GET' })).toBe(true);
    expect(httpTool.isReadOnly({ url: base, method: 'POST' })).toBe(false);
  });
});

describe('http input checks', () => {
  it('reports an invalid header name as a validation error without sending', async () => {
    const r = await callTool(httpTool, { url: `${base}/hello`, headers: { 'bad header': 'x' } }, t.ctx);
    expect(r.errorKind).toBe('validation');
    expect(r.content).toContain('headers');
    expect(received).toHaveLength(0);
  });
});
