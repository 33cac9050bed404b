/**
 * Every refusal through a real socket: missing or wrong token (HTTP and WebSocket), a token in the
 * query string, foreign Host (DNS rebinding) and Origin headers (including on the WebSocket upgrade),
 * oversized and malformed bodies; plus what must stay open (/health, static files) and token rotation.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { http, openWs, startTestDaemon, type TestDaemon } from './support.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

let fake: FakeAnthropic;
let d: TestDaemon;
let staticDir: string;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  staticDir = await mkdtemp(join(tmpdir(), 'rein-static-'));
  await writeFile(join(staticDir, 'index.html'), '<!doctype html><title>Rein</title>');
  d = await startTestDaemon(fake, { daemon: { staticDir } });
});
afterEach(async () => {
  await d.daemon.dispose();
  await fake.close();
});

describe('HTTP refusals', () => {
  it('answers /health without a token and refuses the API without one (401)', async () => {
    const health = await http(d, 'GET', '/health', { token: null });
    expect(health.status).toBe(200);
    expect(health.json.status).toBe('ok');
    for (const [method, path] of [
      ['GET', '/status'],
      ['GET', '/events'],
      ['GET', '/approvals'],
      ['POST', '/message'],
      ['GET', '/agents'],
    ] as const) {
      const res = await http(d, method, path, { token: null, ...(method === 'POST' ? { body: { text: 'x' } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.json.code).toBe('unauthorized');
    }
    const wrong = await http(d, 'GET', '/status', { token: 'f'.repeat(64) });
    expect(wrong.status).toBe(401);
    const scheme = await http(d, 'GET', '/status', { headers: { authorization: `Basic ${d.token}` } });
    expect(scheme.status).toBe(401);
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses a token in the query string even when it is right', async () => {
    const res = await http(d, 'GET', `/status?token=${d.token}`, { token: null });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('token_in_query');
    const withHeader = await http(d, 'GET', `/status?access_token=${d.token}`);
    expect(withHeader.status).toBe(400);
  });

  it('refuses a foreign Host header (DNS rebinding), also on public paths', async () => {
    for (const host of [
      'evil.example',
      `evil.example:${d.port}`,
      `127.0.0.1:${d.port + 1}`,
      '127.0.0.1',
      `localhost.evil.example:${d.port}`,
    ]) {
      const res = await http(d, 'GET', '/status', { headers: { host } });
      expect(res.status, host).toBe(403);
      expect(res.json.code).toBe('host_refused');
    }
    expect(
      (await http(d, 'GET', '/health', { headers: { host: `rebind.example:${d.port}` }, token: null })).status,
    ).toBe(403);
    for (const host of [`localhost:${d.port}`, `127.0.0.1:${d.port}`, `[::1]:${d.port}`]) {
      expect((await http(d, 'GET', '/status', { headers: { host } })).status, host).toBe(200);
    }
  });

  it('refuses a browser Origin other than the daemon’s own', async () => {
    const evil = await http(d, 'GET', '/status', { headers: { origin: 'http://evil.example' } });
    expect(evil.status).toBe(403);
    expect(evil.json.code).toBe('origin_refused');
    const otherPort = await http(d, 'POST', '/message', {
      headers: { origin: `http://127.0.0.1:${d.port + 1}` },
      body: { text: 'x' },
    });
    expect(otherPort.status).toBe(403);
    const nullOrigin = await http(d, 'GET', '/status', { headers: { origin: 'null' } });
    expect(nullOrigin.status).toBe(403);
    const own = await http(d, 'GET', '/status', { headers: { origin: `http://localhost:${d.port}` } });
    expect(own.status).toBe(200);
    expect(fake.requests).toHaveLength(0);
  });

  it('answers 413 for a body over 1 MiB and 400 for a body that is not JSON', async () => {
    const big = await http(d, 'POST', '/message', { rawBody: JSON.stringify({ text: 'x'.repeat(1024 * 1024 + 10) }) });
    expect(big.status).toBe(413);
    expect(big.json.code).toBe('body_too_large');
    const notJson = await http(d, 'POST', '/message', { rawBody: '{"text": "unclosed' });
    expect(notJson.status).toBe(400);
    expect(notJson.json.code).toBe('invalid_json');
    const empty = await http(d, 'POST', '/message', { rawBody: '' });
    expect(empty.status).toBe(400);
    const list = await http(d, 'POST', '/message', { body: ['text'] });
    expect(list.status).toBe(400);
    expect(list.json.code).toBe('invalid_request');
  });

  it('answers unknown endpoints with 404 and wrong methods with 405, both as {error, code}', async () => {
    const missing = await http(d, 'GET', '/agents/a/b/c');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ code: 'not_found' });
    expect((await http(d, 'GET', '/agents/a/b/c', { token: null })).status).toBe(401);
    expect((await http(d, 'GET', '/missing.js', { token: null })).status).toBe(404);
    const method = await http(d, 'DELETE', '/message');
    expect(method.status).toBe(405);
    expect(method.headers.allow).toBe('POST');
  });

  it('serves the static UI without a token but never outside its folder', async () => {
    const page = await http(d, 'GET', '/', { token: null });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.text).toContain('<title>Rein</title>');
    const spa = await http(d, 'GET', '/some/client/route', { token: null });
    expect(spa.text).toContain('<title>Rein</title>');
    const escape = await http(d, 'GET', '/..%2f..%2fetc%2fpasswd', { token: null });
    expect(escape.status).toBe(404);
    // API paths never fall through to the static files; the settings need the token like the rest.
    expect((await http(d, 'GET', '/sessions/nope/x', { token: null })).status).toBe(401);
    expect((await http(d, 'GET', '/settings', { token: null })).status).toBe(401);
    expect((await http(d, 'PUT', '/settings', { token: null, body: { model: 'x' } })).status).toBe(401);
    expect((await http(d, 'GET', '/', { token: null, headers: { host: `evil.example:${d.port}` } })).status).toBe(403);
  });

  it('sends pages with a policy that allows connections only to this daemon, HTTP and WebSocket', async () => {
    const page = await http(d, 'GET', '/', { token: null });
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(new RegExp(`connect-src 'self' ws://127\\.0\\.0\\.1:${d.port}(;|$)`));
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    expect(page.headers['x-frame-options']).toBe('DENY');
    const viaLocalhost = await http(d, 'GET', '/', { token: null, headers: { host: `localhost:${d.port}` } });
    expect(String(viaLocalhost.headers['content-security-policy'])).toContain(`ws://localhost:${d.port}`);
    // Only pages carry it; scripts and styles do not need one.
    await writeFile(join(staticDir, 'app.js'), 'console.log(1)');
    const script = await http(d, 'GET', '/app.js', { token: null });
    expect(script.headers['content-type']).toContain('text/javascript');
    expect(script.headers['content-security-policy']).toBeUndefined();
  });
});

describe('daemon.json and the token', () => {
  it('writes daemon.json with mode 0600 holding pid, port, token, version and start time', async () => {
    const file = join(d.home, 'daemon.json');
    const info = JSON.parse(await readFile(file, 'utf8'));
    expect(info).toMatchObject({ pid: process.pid, port: d.port, token: d.token });
    expect(typeof info.version).toBe('string');
    expect(Date.parse(info.started_at)).not.toBeNaN();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('rotates the token: the old one stops working, open sockets are closed, daemon.json has the new one', async () => {
    const ws = await openWs(d);
    const res = await http(d, 'POST', '/token/rotate');
    expect(res.status).toBe(200);
    const next = res.json.token as string;
    expect(next).not.toBe(d.token);
    expect((await http(d, 'GET', '/status')).status).toBe(401);
    expect((await http(d, 'GET', '/status', { token: next })).status).toBe(200);
    expect((await ws.waitClosed()).code).toBe(4001);
    expect(JSON.parse(await readFile(join(d.home, 'daemon.json'), 'utf8')).token).toBe(next);
    d.token = next;
  });
});

describe('WebSocket refusals', () => {
  it('accepts the token in Sec-WebSocket-Protocol and answers with rein.v1 only', async () => {
    const ws = await openWs(d);
    expect(ws.ws.protocol).toBe('rein.v1');
    ws.close();
    const viaHeader = await openWs(d, { protocols: [], headers: { authorization: `Bearer ${d.token}` } });
    viaHeader.close();
  });

  it('refuses an upgrade without a token, with a wrong one, or with the token in the query string', async () => {
    await expect(openWs(d, { protocols: ['rein.v1'] })).rejects.toMatchObject({ status: 401 });
    await expect(openWs(d, { protocols: ['rein.v1', `token.${'0'.repeat(64)}`] })).rejects.toMatchObject({
      status: 401,
    });
    await expect(openWs(d, { protocols: ['rein.v1'], query: `?token=${d.token}` })).rejects.toMatchObject({
      status: 400,
    });
  });

  it('refuses an upgrade from a foreign Origin or to a foreign Host', async () => {
    await expect(openWs(d, { origin: 'http://evil.example' })).rejects.toMatchObject({ status: 403 });
    await expect(openWs(d, { headers: { host: `evil.example:${d.port}` } })).rejects.toMatchObject({ status: 403 });
    const own = await openWs(d, { origin: `http://127.0.0.1:${d.port}` });
    own.close();
  });

  it('refuses an upgrade that offers subprotocols without rein.v1', async () => {
    await expect(openWs(d, { protocols: ['chat', `token.${d.token}`] })).rejects.toMatchObject({ status: 400 });
  });
});
