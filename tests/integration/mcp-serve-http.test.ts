/**
 * `rein mcp serve --http`: the built CLI on a loopback port, driven by the MCP SDK's own Client over
 * Streamable HTTP, and by raw requests for what the gate refuses (token, Host, Origin).
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRein, tempHome, type CliResult } from '../support/cli.js';
import { useLeakCheck } from '../support/leaks.js';
import { http } from './daemon/support.js';

useLeakCheck();

interface Served {
  child: ChildProcess;
  done: Promise<CliResult>;
  url: URL;
  port: number;
  token: string;
}

const env = (home: string, userHome: string) => ({
  PATH: process.env.PATH ?? '',
  HOME: userHome,
  REIN_HOME: home,
  LANG: 'C.UTF-8',
});

/** Starts `rein mcp serve --http --port 0` and reads the URL (with its token) from its first line. */
async function serveHttp(home: string, cwd: string, userHome: string, extra: string[] = []): Promise<Served> {
  const { child, done } = startRein(['mcp', 'serve', '--http', '--port', '0', ...extra], {
    env: env(home, userHome),
    cwd,
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: string) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        child.stdout!.off('data', onData);
        resolve(out.slice(0, nl));
      }
    };
    child.stdout!.on('data', onData);
    void done.then((r) => reject(new Error(`rein mcp serve --http exited ${r.code}: ${r.stderr}`)));
  });
  const url = new URL(line);
  return { child, done, url, port: Number(url.port), token: url.searchParams.get('token')! };
}

async function stop(s: Served): Promise<CliResult> {
  s.child.kill('SIGTERM');
  return s.done;
}

const textOf = (r: unknown): string =>
  (r as { content: Array<{ type: string; text?: string }> }).content.find((c) => c.type === 'text')?.text ?? '';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

describe('rein mcp serve --http', () => {
  let home: string;
  let cwd: string;
  let userHome: string;
  let served: Served;
  let clients: Client[] = [];

  beforeAll(async () => {
    ({ home, cwd } = await tempHome());
    userHome = join(cwd, 'user');
    await mkdir(userHome, { recursive: true });
    served = await serveHttp(home, cwd, userHome);
  });
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.close()));
    clients = [];
  });
  afterAll(async () => {
    const r = await stop(served);
    expect(r.code, r.stderr).toBe(0);
  });

  async function connect(opts: { url?: URL; headers?: Record<string, string>; elicit?: boolean } = {}) {
    const transport = new StreamableHTTPClientTransport(
      opts.url ?? served.url,
      opts.headers ? { requestInit: { headers: opts.headers } } : {},
    );
    const client = new Client(
      { name: 'http-test', version: '1' },
      { capabilities: opts.elicit ? { elicitation: { form: {} } } : {} },
    );
    if (opts.elicit)
      client.setRequestHandler(ElicitRequestSchema, async () => ({
        action: 'accept',
        content: { decision: 'allow_once' },
      }));
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  it('prints a loopback URL at /mcp with the token, kept 0600 in secrets/', async () => {
    expect(served.url.origin).toBe(`http://127.0.0.1:${served.port}`);
    expect(served.url.pathname).toBe('/mcp');
    expect(served.token).toMatch(/^[0-9a-f]{64}$/);
    const file = join(home, 'secrets', 'mcp-serve.token');
    expect((await readFile(file, 'utf8')).trim()).toBe(served.token);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('serves the SDK client with the token in the URL: list, a read-only call, a hard block', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'grep')!.annotations).toMatchObject({ readOnlyHint: true });
    const ok = await client.callTool({ name: 'system_info', arguments: {} });
    expect(ok.isError).toBeFalsy();
    const blocked = await client.callTool({ name: 'bash', arguments: { command: 'rm -rf /' } });
    expect(blocked.isError).toBe(true);
    expect(textOf(blocked)).toMatch(/hard_block/);
  });

  it('takes the token as Authorization: Bearer too', async () => {
    const plain = new URL(served.url);
    plain.search = '';
    const { client } = await connect({ url: plain, headers: { Authorization: `Bearer ${served.token}` } });
    expect(await client.ping()).toEqual({});
  });

  it('asks over the session’s stream when the client supports elicitation', async () => {
    const { client } = await connect({ elicit: true });
    const r = await client.callTool({ name: 'bash', arguments: { command: 'touch over-http.txt' } });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(existsSync(join(cwd, 'over-http.txt'))).toBe(true);
  });

  it('streams progress and stops a cancelled call', async () => {
    const { client } = await connect();
    const ac = new AbortController();
    const progress: string[] = [];
    const call = client.callTool({ name: 'bash', arguments: { command: 'sleep 60' } }, undefined, {
      signal: ac.signal,
      onprogress: (p) => {
        progress.push(p.message ?? '');
        ac.abort('stop');
      },
    });
    await expect(call).rejects.toThrow();
    expect(progress[0]).toMatch(/^running bash/);
    expect(await client.ping()).toEqual({});
  });

  it('refuses a missing or wrong token, a foreign Host or Origin, before anything else', async () => {
    const d = { port: served.port, token: served.token };
    const noToken = await http(d, 'POST', '/mcp', { body: INIT, headers: MCP_HEADERS, token: null });
    expect(noToken.status).toBe(401);
    expect(noToken.json).toMatchObject({ code: 'unauthorized' });
    expect((await http(d, 'POST', '/mcp', { body: INIT, headers: MCP_HEADERS, token: 'f'.repeat(64) })).status).toBe(
      401,
    );
    expect(
      (await http(d, 'POST', `/mcp?token=${'f'.repeat(64)}`, { body: INIT, headers: MCP_HEADERS, token: null })).status,
    ).toBe(401);
    const rebound = await http(d, 'POST', '/mcp', {
      body: INIT,
      headers: { ...MCP_HEADERS, host: `evil.example:${served.port}` },
    });
    expect(rebound.status).toBe(403);
    expect(rebound.json).toMatchObject({ code: 'host_refused' });
    const foreign = await http(d, 'POST', '/mcp', {
      body: INIT,
      headers: { ...MCP_HEADERS, origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.json).toMatchObject({ code: 'origin_refused' });
    const own = await http(d, 'POST', '/mcp', {
      body: INIT,
      headers: { ...MCP_HEADERS, origin: `http://localhost:${served.port}` },
    });
    expect(own.status).toBe(200);
    expect(own.headers['mcp-session-id']).toMatch(/^[0-9a-f]{32}$/);
  });

  it('answers only at /mcp, and only for sessions it knows', async () => {
    const d = { port: served.port, token: served.token };
    expect((await http(d, 'GET', '/')).status).toBe(404);
    const unknown = await http(d, 'POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      headers: { ...MCP_HEADERS, 'mcp-session-id': 'a'.repeat(32) },
    });
    expect(unknown.status).toBe(404);
    const noSession = await http(d, 'POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      headers: MCP_HEADERS,
    });
    expect(noSession.status).toBe(400);
    const notJson = await http(d, 'POST', '/mcp', { rawBody: '{nope', headers: MCP_HEADERS });
    expect(notJson.status).toBe(400);
    expect(notJson.json).toMatchObject({ error: { code: -32700 } });
  });

  it('ends a session the client terminates', async () => {
    const { client, transport } = await connect();
    const id = transport.sessionId!;
    await transport.terminateSession();
    const d = { port: served.port, token: served.token };
    const after = await http(d, 'POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 3, method: 'ping' },
      headers: { ...MCP_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    });
    expect(after.status).toBe(404);
    await client.close();
  });
});

describe('the token', () => {
  it('stays the same across restarts until --new-token replaces it', async () => {
    const { home, cwd } = await tempHome();
    const userHome = join(cwd, 'user');
    await mkdir(userHome, { recursive: true });
    const first = await serveHttp(home, cwd, userHome);
    expect((await stop(first)).code).toBe(0);
    const second = await serveHttp(home, cwd, userHome);
    expect(second.token).toBe(first.token);
    expect((await stop(second)).code).toBe(0);
    const third = await serveHttp(home, cwd, userHome, ['--new-token']);
    expect(third.token).not.toBe(first.token);
    const old = await http({ port: third.port, token: first.token }, 'POST', '/mcp', {
      body: INIT,
      headers: MCP_HEADERS,
    });
    expect(old.status).toBe(401);
    expect((await stop(third)).code).toBe(0);
  });
});
