/**
 * Issue 14, findings 7–9, through a real socket: the stored API key goes only to the configured base
 * URL; signed webhooks cannot be replayed; bad input is a 4xx, never a 500 (prototype keys, deep JSON,
 * YAML alias bombs, oversized fields) and answers to unauthenticated callers never name a path;
 * Rein's files are 0600 and its folders 0700 whatever REIN_HOME's mode; a slow body is timed out (a
 * slow answer is not); the static UI never follows a symlink out of its folder; a damaged session file
 * is listed as damaged.
 */
import { connect } from 'node:net';
import { chmod, mkdir, mkdtemp, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signBody, signedHeaders } from '../../../src-main/core/daemon/webhooks.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { gate, http, openWs, startTestDaemon, type TestDaemon } from './support.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

let fake: FakeAnthropic;
const started: TestDaemon[] = [];

beforeEach(async () => {
  fake = await startFakeAnthropic();
  fake.fallback = () => text('ok');
});
afterEach(async () => {
  for (const t of started.splice(0)) await t.daemon.dispose();
  await fake.close();
});

async function daemon(opts: Parameters<typeof startTestDaemon>[1] = {}): Promise<TestDaemon> {
  const t = await startTestDaemon(fake, opts);
  started.push(t);
  return t;
}

/** The key a request carried, as x-api-key or as a bearer token. */
const keyOf = (h: Record<string, string | string[] | undefined>) =>
  String(h['x-api-key'] ?? h.authorization ?? '').replace(/^Bearer /, '');
const mode = async (p: string) => (await stat(p)).mode & 0o777;
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
/** Nine aliases of nine aliases of … : a few hundred bytes standing for 9^8 values. */
const ALIAS_BOMB = [
  'a: &a [x, x, x, x, x, x, x, x, x]',
  ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`),
].join('\n');

describe('finding 7: POST /settings/test keeps the stored key for the configured base URL', () => {
  it('sends the stored key to the configured base URL, and to no other', async () => {
    const t = await daemon();
    const other = await startFakeAnthropic();
    other.fallback = () => text('ok');
    try {
      // The configured base URL (ANTHROPIC_BASE_URL here), named or not: the stored key goes.
      expect((await http(t, 'POST', '/settings/test', { body: {} })).json.ok).toBe(true);
      expect((await http(t, 'POST', '/settings/test', { body: { base_url: `${fake.url}/` } })).json.ok).toBe(true);
      expect(fake.requests.map((r) => keyOf(r.headers))).toEqual(['test-key', 'test-key']);

      // Another server on this machine is tried without any key.
      const local = await http(t, 'POST', '/settings/test', { body: { base_url: other.url } });
      expect(local.status).toBe(200);
      expect(other.requests).toHaveLength(1);
      expect(keyOf(other.requests[0]!.headers)).not.toBe('test-key');
      expect(JSON.stringify(other.requests[0]!.headers)).not.toContain('test-key');

      // Another server elsewhere: refused before anything is sent, unless the request brings its own key.
      const remote = await http(t, 'POST', '/settings/test', { body: { base_url: 'https://api.attacker.example' } });
      expect(remote.status).toBe(400);
      expect(remote.json).toMatchObject({ code: 'invalid_request', field: 'api_key' });
      expect(remote.text).not.toContain('test-key');

      // A key of its own may go anywhere the request says.
      const own = await http(t, 'POST', '/settings/test', {
        body: { base_url: other.url, api_key: 'sk-ant-own-key-0000000' },
      });
      expect(own.json.ok).toBe(true);
      expect(keyOf(other.requests[1]!.headers)).toBe('sk-ant-own-key-0000000');
    } finally {
      await other.close();
    }
  });

  it('caps the model name at 200 characters, in PUT /settings and in the test', async () => {
    const t = await daemon();
    const long = 'x'.repeat(900_000);
    const put = await http(t, 'PUT', '/settings', { body: { model: long } });
    expect(put.status).toBe(400);
    expect(put.json.field).toBe('model');
    expect((await http(t, 'PUT', '/settings', { body: { small_model: 'y'.repeat(201) } })).json.field).toBe(
      'small_model',
    );
    expect((await http(t, 'POST', '/settings/test', { body: { model: 'z'.repeat(201) } })).json.field).toBe('model');
    await expect(stat(join(t.home, 'config.yaml'))).rejects.toThrow();
    // A config.yaml made that large by hand is refused as invalid, naming the file.
    await writeFile(join(t.home, 'config.yaml'), `model: ${long}\n`);
    const broken = await http(t, 'PUT', '/settings', { body: { model: 'claude-haiku-5-5' } });
    expect(broken.status).toBe(409);
    expect(broken.json.code).toBe('config_invalid');
  });
});

describe('finding 8: webhooks reject replays', () => {
  const secret = 'relay-secret-0123456789';
  const setup = async () => {
    const t = await daemon();
    await writeFile(
      join(t.home, 'webhooks.yaml'),
      [
        'sources:',
        '  slack:',
        `    secret: ${secret}`,
        '    map: { text: event.text, channel: event.channel }',
        '  ci:',
        '    auth: header',
        `    secret: ${secret}`,
        '    map: { text: msg }',
      ].join('\n'),
    );
    return t;
  };
  const hook = (t: TestDaemon, body: string, headers: Record<string, string>) =>
    http(t, 'POST', '/hooks/slack', { token: null, rawBody: body, headers });

  it('accepts a signed request once: the same request again is 409 webhook_replayed and starts no run', async () => {
    const t = await setup();
    const body = JSON.stringify({ event: { text: 'deploy?', channel: 'C1' } });
    const headers = signedHeaders(secret, body);
    expect((await hook(t, body, headers)).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const again = await hook(t, body, headers);
      expect(again.status).toBe(409);
      expect(again.json.code).toBe('webhook_replayed');
    }
    expect(fake.requests).toHaveLength(1);
    // The same text delivered again by the relay, signed afresh, is a new delivery.
    const later = signedHeaders(secret, body, Date.now() + 1_000);
    expect((await hook(t, body, later)).status).toBe(200);
    expect(fake.requests).toHaveLength(2);
  });

  it('refuses a signature over the body alone, a missing timestamp and a timestamp over 5 minutes old', async () => {
    const t = await setup();
    const body = JSON.stringify({ event: { text: 'hi', channel: 'C1' } });
    const now = Math.floor(Date.now() / 1000);
    const { createHmac } = await import('node:crypto');
    const bodyOnly = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const refusals = [
      await hook(t, body, { 'x-rein-signature': bodyOnly }),
      await hook(t, body, { 'x-rein-signature': bodyOnly, 'x-rein-timestamp': String(now) }),
      await hook(t, body, { 'x-rein-signature': signBody(secret, body, now) }),
      await hook(t, body, {
        'x-rein-signature': signBody(secret, body, now - 301),
        'x-rein-timestamp': String(now - 301),
      }),
      await hook(t, body, {
        'x-rein-signature': signBody(secret, body, now + 3_600),
        'x-rein-timestamp': String(now + 3_600),
      }),
    ];
    expect(refusals.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expect(refusals.map((r) => r.json.code)).toEqual([
      'webhook_unauthorized',
      'webhook_unauthorized',
      'webhook_unauthorized',
      'webhook_replayed',
      'webhook_replayed',
    ]);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('finding 9: every bad input is a 4xx, and unauthenticated answers name no path', () => {
  it('answers a source named like an Object.prototype key with 404, not 500', async () => {
    const t = await daemon();
    await writeFile(
      join(t.home, 'webhooks.yaml'),
      'sources:\n  slack:\n    secret: relay-secret-0123456789\n    map: { text: event.text }\n',
    );
    for (const source of ['constructor', 'tostring', 'hasownproperty', 'valueof', 'isprototypeof']) {
      const res = await http(t, 'POST', `/hooks/${source}`, { token: null, rawBody: '{}' });
      expect(res.status, source).toBe(404);
      expect(res.json.code).toBe('webhook_unknown_source');
    }
    expect((await http(t, 'POST', '/hooks/toString', { token: null, rawBody: '{}' })).status).toBe(404);
    expect((await http(t, 'POST', '/hooks/__proto__', { token: null, rawBody: '{}' })).status).toBe(404);
  });

  it('never tells an unauthenticated caller where REIN_HOME is', async () => {
    const t = await daemon();
    const unknown = await http(t, 'POST', '/hooks/nope', { token: null, rawBody: '{}' });
    expect(unknown.status).toBe(404);
    expect(unknown.text).not.toContain(t.home);
    expect(unknown.json.error).toContain('webhooks.yaml');
    await writeFile(join(t.home, 'webhooks.yaml'), 'sources:\n  slack:\n    map: { text: 3 }\n');
    const invalid = await http(t, 'POST', '/hooks/slack', { token: null, rawBody: '{}' });
    expect(invalid.status).toBe(500);
    expect(invalid.json.code).toBe('webhooks_config_invalid');
    expect(invalid.text).not.toContain(t.home);
    await writeFile(join(t.home, 'webhooks.yaml'), ALIAS_BOMB);
    const bomb = await http(t, 'POST', '/hooks/slack', { token: null, rawBody: '{}' });
    expect(bomb.json.code).toBe('webhooks_config_invalid');
    expect(bomb.text).not.toContain(t.home);
  });

  it('refuses JSON nested 50,000 deep with 400 on every endpoint, HTTP and WebSocket', async () => {
    const t = await daemon();
    await http(t, 'POST', '/agents', { body: { name: 'ops', prompt: 'You run ops.' } });
    const deep = deepObject(50_000);
    const answers = [
      await http(t, 'POST', '/agents', { rawBody: `{"name":"x1","prompt":"p","config":${deep}}` }),
      await http(t, 'PUT', '/agents/ops', { rawBody: `{"config":${deep}}` }),
      await http(t, 'POST', '/message', { rawBody: `{"text":"hi","x":${deep}}` }),
      await http(t, 'PUT', '/settings', { rawBody: `{"model":${deep}}` }),
      await http(t, 'POST', '/approval', { rawBody: deep }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(400);
      expect(a.json.code).toBe('invalid_json');
      expect(a.json.error).toMatch(/deeper than 64/);
    }
    // A body nested within reason is read (depth is not the same as size).
    const nested = await http(t, 'PUT', '/agents/ops', { body: { config: { tools: { result_budget: 20_000 } } } });
    expect(nested.json.code).not.toBe('invalid_json');
    const ws = await openWs(t);
    ws.send({ type: 'cancel', route: 'x', extra: JSON.parse(deepObject(60)) });
    ws.ws.send(`{"type":"cancel","ref":"deep","x":${deep}}`);
    const reply = await ws.next((f) => f.frame === 'reply' && f.code === 'invalid_json');
    expect(reply.status).toBe(400);
    ws.close();
    await ws.waitClosed();
  });

  it('refuses a YAML alias bomb as agent config text (400), and in config.yaml on disk as invalid (409)', async () => {
    const t = await daemon();
    const created = await http(t, 'POST', '/agents', { body: { name: 'x3', prompt: 'p', config: ALIAS_BOMB } });
    expect(created.status).toBe(400);
    expect(created.json.error).toMatch(/alias/i);
    await http(t, 'POST', '/agents', { body: { name: 'ops', prompt: 'You run ops.' } });
    const put = await http(t, 'PUT', '/agents/ops', { body: { config: ALIAS_BOMB } });
    expect(put.status).toBe(400);
    expect(put.json.field).toBe('config');
    // The same bomb written into an agent's config.yaml by hand: the agent opens with the problem listed.
    await writeFile(join(t.home, 'agents', 'ops', 'config.yaml'), ALIAS_BOMB);
    const opened = await http(t, 'GET', '/agents/ops');
    expect(opened.status).toBe(200);
    expect(JSON.stringify(opened.json.problems)).toMatch(/alias/i);
    await writeFile(join(t.home, 'config.yaml'), ALIAS_BOMB);
    const settings = await http(t, 'PUT', '/settings', { body: { model: 'claude-haiku-5-5' } });
    expect(settings.status).toBe(409);
    expect(settings.json.code).toBe('config_invalid');
  });
});

describe('finding 9: files holding sessions, config or tokens are 0600, folders 0700, whatever REIN_HOME is', () => {
  it('creates every file 0600 in a REIN_HOME of 0755, with a umask of 022', async () => {
    const root = await mkdtemp(join(tmpdir(), 'rein-modes-'));
    const home = join(root, 'home');
    await mkdir(home, { mode: 0o755 });
    await chmod(home, 0o755);
    const old = process.umask(0o022);
    try {
      const t = await daemon({ home });
      expect(
        (await http(t, 'POST', '/message', { body: { text: 'hello there', channel: 'c1', source: 'web' } })).status,
      ).toBe(200);
      expect(
        (await http(t, 'PUT', '/settings', { body: { model: 'claude-haiku-5-5', hotkey: 'CommandOrControl+Shift+K' } }))
          .status,
      ).toBe(200);
      expect((await http(t, 'GET', '/sessions/search?q=hello')).status).toBe(200);
      expect(
        (await http(t, 'POST', '/agents', { body: { name: 'ops', prompt: 'You run ops.', memory: 'remember this' } }))
          .status,
      ).toBe(201);
      const files = [
        'config.yaml',
        'desktop.json',
        'daemon.json',
        'daemon.token',
        'rein.db',
        'agents/ops/AGENT.md',
        'agents/ops/MEMORY.md',
      ];
      const sessions = (await readdir(join(home, 'sessions'))).filter((n) => n.endsWith('.json'));
      expect(sessions).toHaveLength(1);
      files.push(`sessions/${sessions[0]}`);
      for (const f of await readdir(home)) if (/^rein\.db-(wal|shm)$/.test(f) || /routes/.test(f)) files.push(f);
      for (const f of files) expect(await mode(join(home, f)), f).toBe(0o600);
      for (const dir of ['sessions', 'agents', 'agents/ops']) expect(await mode(join(home, dir)), dir).toBe(0o700);
    } finally {
      process.umask(old);
    }
  });

  it('narrows a rein.db an earlier version left 0644', async () => {
    const root = await mkdtemp(join(tmpdir(), 'rein-modes-'));
    const home = join(root, 'home');
    const first = await daemon({ home });
    await http(first, 'GET', '/sessions/search?q=x');
    await first.daemon.dispose();
    started.splice(started.indexOf(first), 1);
    await chmod(join(home, 'rein.db'), 0o644);
    const second = await daemon({ home });
    await http(second, 'GET', '/sessions/search?q=x');
    expect(await mode(join(home, 'rein.db'))).toBe(0o600);
  });
});

describe('finding 9: request timeouts', () => {
  it('answers 408 body_timeout to a body that stops arriving, and closes the connection', async () => {
    const t = await daemon({ daemon: { bodyTimeoutMs: 300 } });
    const sock = connect(t.port, '127.0.0.1');
    let got = '';
    sock.setEncoding('utf8').on('data', (c: string) => (got += c));
    const closed = new Promise<void>((ok) => sock.on('close', () => ok()));
    sock.write(
      `POST /message HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nAuthorization: Bearer ${t.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text":`,
    );
    await closed;
    expect(got).toMatch(/^HTTP\/1\.1 408/);
    expect(got).toContain('"code":"body_timeout"');
    expect(fake.requests).toHaveLength(0);
  });

  it('lets an answer take longer than the body deadline: only receiving the request is timed', async () => {
    const t = await daemon({ daemon: { bodyTimeoutMs: 200 } });
    const held = gate();
    fake.fallback = async () => {
      await held.promise;
      return text('late but whole');
    };
    const answer = http(t, 'POST', '/message', { body: { text: 'take your time' } });
    await new Promise((ok) => setTimeout(ok, 600));
    held.open();
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.json.text).toBe('late but whole');
  });

  it('sets a receive timeout on the server (requestTimeout is not 0)', async () => {
    const t = await daemon();
    // A request whose body nobody reads is still cut by the server's own timeout.
    const { createHttpServer } = await import('../../../src-main/core/daemon/httpServer.js');
    const server = createHttpServer({ bodyTimeoutMs: 1_000 } as never, []);
    expect(server.requestTimeout).toBeGreaterThan(0);
    expect(server.headersTimeout).toBeGreaterThan(0);
    expect(server.headersTimeout).toBeLessThanOrEqual(server.requestTimeout);
    expect(t.port).toBeGreaterThan(0);
  });
});

describe('finding 9: the static UI never follows a symlink out of its folder', () => {
  it('serves links inside the folder and refuses links that leave it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'rein-static-'));
    const staticDir = join(root, 'renderer');
    await mkdir(join(staticDir, 'assets'), { recursive: true });
    await writeFile(join(staticDir, 'index.html'), '<!doctype html><title>Rein</title>');
    await writeFile(join(staticDir, 'assets', 'app.js'), 'console.log(1)');
    await writeFile(join(root, 'secret.txt'), 'TOP SECRET');
    await mkdir(join(root, 'outside'));
    await writeFile(join(root, 'outside', 'x.js'), 'OUTSIDE');
    await symlink(join(root, 'secret.txt'), join(staticDir, 'secret.txt'));
    await symlink(join(root, 'outside'), join(staticDir, 'linked'));
    await symlink(join(staticDir, 'assets', 'app.js'), join(staticDir, 'alias.js'));
    const t = await daemon({ daemon: { staticDir } });
    const leak = await http(t, 'GET', '/secret.txt', { token: null });
    expect(leak.status).toBe(404);
    expect(leak.text).not.toContain('TOP SECRET');
    const dir = await http(t, 'GET', '/linked/x.js', { token: null });
    expect(dir.text).not.toContain('OUTSIDE');
    const inside = await http(t, 'GET', '/alias.js', { token: null });
    expect(inside.status).toBe(200);
    expect(inside.text).toBe('console.log(1)');
    expect((await http(t, 'GET', '/assets/app.js', { token: null })).status).toBe(200);
  });
});

describe('finding 9: damaged session files are listed as damaged', () => {
  it('GET /sessions marks a truncated or invalid file damaged with its problem, and lists the rest', async () => {
    const t = await daemon();
    const a = await http(t, 'POST', '/message', { body: { text: 'first conversation' } });
    const b = await http(t, 'POST', '/message', { body: { text: 'second conversation', new_session: true } });
    const dir = join(t.home, 'sessions');
    const fileA = join(dir, `${a.json.session_id}.json`);
    const whole = await readFile(fileA, 'utf8');
    await writeFile(fileA, whole.slice(0, Math.floor(whole.length / 2)));
    const bad = '2026-01-05-0123456789ab';
    await writeFile(join(dir, `${bad}.json`), JSON.stringify({ version: 1, id: bad, title: 'broken one' }, null, 2));
    const res = await http(t, 'GET', '/sessions');
    expect(res.status).toBe(200);
    const byId = new Map<string, any>(res.json.sessions.map((s: { id: string }) => [s.id, s]));
    expect(byId.get(b.json.session_id)).toMatchObject({ message_count: 2 });
    expect(byId.get(b.json.session_id).damaged).toBeUndefined();
    expect(byId.get(a.json.session_id)).toMatchObject({
      damaged: true,
      title: 'first conversation',
      source: 'http',
      message_count: 0,
    });
    expect(byId.get(a.json.session_id).problem).toMatch(/JSON/);
    expect(byId.get(bad)).toMatchObject({ damaged: true, title: 'broken one' });
    expect(byId.get(bad).problem).toMatch(/agent/);
    // The damaged file itself still cannot be opened, and says why.
    expect((await http(t, 'GET', `/sessions/${a.json.session_id}`)).status).toBe(409);
  });
});
