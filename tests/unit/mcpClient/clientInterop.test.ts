/**
 * The MCP client against the peers its interop gaps were found with (issue 28): server-filesystem's
 * `read_media_file` (an image that also carries structured content), server-everything over
 * Streamable HTTP (no reconnecting after close) and in its legacy `sse` mode (the spec's fallback,
 * `type: sse`), a server answering with an HTML 404 page, and the fake OAuth server in step-up and
 * URL-client-ID modes.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clientMetadataUrl, RELEASE_CLIENT_METADATA_URL } from '../../../src-main/core/mcpClient/clientMetadata.js';
import type { McpServerSettings } from '../../../src-main/core/mcpClient/config.js';
import { McpConnection } from '../../../src-main/core/mcpClient/connection.js';
import { configuredStatus, McpManager } from '../../../src-main/core/mcpClient/manager.js';
import { memoryTokenStore, signIn } from '../../../src-main/core/mcpClient/oauth.js';
import { NeedsPersonError } from '../../../src-main/core/mcpClient/supervisor.js';
import { followAuthorization, startFakeMcpOAuth, type FakeOAuth } from '../../support/fakeMcpOAuth.js';
import { useLeakCheck } from '../../support/leaks.js';
import {
  filesystemStdio,
  freePort,
  startEverythingHttp,
  startEverythingSse,
  type ChildServer,
} from '../../support/mcpPeers.js';
import { makeToolContext } from '../tools/toolTestContext.js';

useLeakCheck();

const http = (url: string, extra: Partial<McpServerSettings> = {}): McpServerSettings => ({
  type: 'http',
  url,
  args: [],
  env: {},
  disabled: false,
  ...extra,
});
const signal = () => new AbortController().signal;

let managers: McpManager[] = [];
afterEach(async () => {
  await Promise.all(managers.map((m) => m.dispose()));
  managers = [];
});
function manager(o: Omit<ConstructorParameters<typeof McpManager>[0], 'env' | 'home'>): McpManager {
  const m = new McpManager({ env: process.env, home: '/nonexistent-rein-home', ...o });
  managers.push(m);
  return m;
}

describe('an image result that also carries structured content (server-filesystem read_media_file)', () => {
  it('reaches the model as an image, with no base64 text anywhere in the result', async () => {
    const root = await realpath(await mkdtemp(join(tmpdir(), 'rein-media-')));
    try {
      // A PNG signature and 6 KiB after it: the server only reads and encodes the bytes.
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(6 * 1024)]);
      await writeFile(join(root, 'pic.png'), png);
      const m = manager({ servers: { fs: filesystemStdio(root) } });
      await m.ready();
      const tool = (await m.providers[0]!.tools()).find((t) => t.name === 'mcp__fs__read_media_file')!;
      const t = await makeToolContext();
      try {
        const r = await tool.call({ path: join(root, 'pic.png') }, t.ctx, signal());
        expect(r.ok).toBe(true);
        expect(r.images).toEqual([{ mediaType: 'image/png', data: png.toString('base64') }]);
        // Before: the structured copy of the image, as a JSON dump of its base64.
        expect(r.content).not.toContain(png.toString('base64').slice(0, 64));
        expect(r.content.length).toBeLessThan(200);
      } finally {
        await t.cleanup();
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('Streamable HTTP: closing is final (server-everything streamableHttp)', () => {
  let everything: ChildServer;
  beforeAll(async () => {
    everything = await startEverythingHttp();
  });
  afterAll(async () => {
    await everything.close();
  });

  /** server-everything over Streamable HTTP, with this tool timeout. */
  const evh = (toolTimeoutMs: number) => ({
    name: 'evh',
    transport: { kind: 'http' as const, url: new URL(everything.url), headers: {} },
    connectTimeoutMs: 15_000,
    toolTimeoutMs,
    alwaysAllow: [],
  });
  /** A fetch that records every request made once `state.closed` is set. */
  const recordingFetch = () => {
    const state = { closed: false };
    const after: string[] = [];
    const fetchFn: typeof fetch = async (input, init) => {
      if (state.closed) after.push(`${init?.method ?? 'GET'} ${String(input)}`);
      return fetch(input, init);
    };
    return { state, after, fetchFn };
  };

  it('after a call times out and the connection is closed, no stream is reopened', async () => {
    const { state, after, fetchFn } = recordingFetch();
    const server = evh(300);
    // Short retry steps, so reconnection after close (the bug) would show within the wait below.
    const conn = await McpConnection.open(server, {
      baseEnv: process.env,
      fetch: fetchFn,
      reconnection: {
        initialReconnectionDelay: 20,
        maxReconnectionDelay: 20,
        reconnectionDelayGrowFactor: 1,
        maxRetries: 5,
      },
    });
    // What the SDK tried to fetch once disposed: refused by the connection, reported through onerror.
    const knocked: string[] = [];
    const ours = conn.client.onerror;
    conn.client.onerror = (e) => {
      if (/the MCP connection is closed/.test(e.message)) knocked.push(e.message);
      ours?.(e);
    };
    // The timeout's `notifications/cancelled` is fetched within a microtask of the timeout, before the
    // call's rejection reaches this test (so before dispose): it is never among `after`.
    await expect(
      conn.callTool('trigger-long-running-operation', { duration: 5, steps: 5 }, { signal: signal(), timeoutMs: 300 }),
    ).rejects.toThrow(/timed out/i);
    await conn.dispose();
    state.closed = true;
    // Five reconnection attempts 20 ms apart would all have been made by now.
    await new Promise((r) => setTimeout(r, 400));
    expect(after).toEqual([]);
    // And none was even tried (a retry budget not zeroed, a reconnection timer close() left behind).
    expect(knocked).toEqual([]);
  });

  it('once disposed, a send the SDK still makes (a timer it left behind) never reaches the fetch it was given', async () => {
    const { state, after, fetchFn } = recordingFetch();
    const server = evh(5_000);
    const conn = await McpConnection.open(server, { baseEnv: process.env, fetch: fetchFn });
    const transport = conn.client.transport!;
    await conn.dispose();
    state.closed = true;
    await expect(
      transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }),
    ).rejects.toThrow(/the MCP connection is closed/);
    expect(after).toEqual([]);
  });
});

describe('the legacy HTTP+SSE transport (server-everything sse)', () => {
  let sse: ChildServer;
  beforeAll(async () => {
    sse = await startEverythingSse();
  });
  afterAll(async () => {
    await sse.close();
  });

  it('an http URL that refuses Streamable HTTP (4xx) is reached over HTTP+SSE; type: sse goes there at once', async () => {
    for (const cfg of [http(sse.url), http(sse.url, { type: 'sse' })]) {
      const m = manager({ servers: { ev: cfg } });
      await m.ready();
      // The status says the transport as configured; the connection says the one it fell back to.
      expect(m.status()[0]).toMatchObject({ type: cfg.type, state: 'healthy' });
      expect(m.server('ev')!.connection!.httpTransport).toBe('sse');
      const echo = (await m.providers[0]!.tools()).find((t) => t.name === 'mcp__ev__echo')!;
      const t = await makeToolContext();
      try {
        expect(await echo.call({ message: 'over sse' }, t.ctx, signal())).toEqual({
          ok: true,
          content: 'Echo: over sse',
        });
      } finally {
        await t.cleanup();
      }
    }
  });

  it("before it is started (the daemon's GET /mcp/servers), a type: sse server is sse too", () => {
    const store = memoryTokenStore();
    const servers = { a: http(sse.url), b: http(sse.url, { type: 'sse' }) };
    expect(configuredStatus('/nonexistent', servers, {}, () => store)).toMatchObject([
      { name: 'a', type: 'http', state: 'idle', signed_in: false },
      { name: 'b', type: 'sse', state: 'idle', signed_in: false },
    ]);
  });
});

describe('error text never carries an HTML page', () => {
  let page: Server;
  let url: string;
  beforeAll(async () => {
    page = createServer((_req, res) => {
      res
        .writeHead(404, { 'content-type': 'text/html; charset=utf-8', connection: 'close' })
        .end(
          `<!DOCTYPE html>\n<html><head><title>Error</title></head><body><pre>Cannot POST /mcp</pre>${'<p>filler</p>'.repeat(200)}</body></html>`,
        );
    });
    await new Promise<void>((r) => page.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(page.address() as AddressInfo).port}/mcp`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => page.close(() => r()));
  });

  it('a 404 page is the status line and a short reason, in the error and in the status (mcp list)', async () => {
    const m = manager({ servers: { gone: http(url) } });
    await m.ready();
    const err = m.status()[0]!.last_error ?? '';
    expect(err).toMatch(/404 Not Found/);
    expect(err).toMatch(/Cannot POST \/mcp/);
    expect(err).not.toMatch(/<html|<!DOCTYPE|<p>|filler/i);
    expect(err.length).toBeLessThan(400);
  });
});

describe('OAuth: step-up on 403 insufficient_scope, and URL-based client IDs', () => {
  let oauth: FakeOAuth | undefined;
  afterEach(async () => {
    await oauth?.close();
    oauth = undefined;
  });
  const open = async (u: URL) => followAuthorization(u);

  it('signs in with the 401’s scope, then on the 403 again with the union of scopes, and the call runs once more', async () => {
    oauth = await startFakeMcpOAuth({ stepUp: { basic: 'mcp:basic', write: 'mcp:write' } });
    const store = memoryTokenStore();
    const serverUrl = new URL(oauth.url);
    const m = manager({
      servers: { remote: http(oauth.url) },
      tokenStore: () => store,
      reauthorize: (_n, _server, challenge) => signIn({ serverUrl, store, challenge, open }),
    });
    const h = m.server('remote')!;
    const first = await h.ensure().catch((e: unknown) => e);
    expect(first).toBeInstanceOf(NeedsPersonError);
    expect((first as NeedsPersonError).challenge).toMatchObject({ status: 401, scope: 'mcp:basic' });
    await signIn({ serverUrl, store, challenge: (first as NeedsPersonError).challenge!, open });
    expect(oauth.authorizations.map((a) => a.scopes)).toEqual([['mcp:basic']]);
    await h.ensure();
    const r = await h.callRaw('whoami', {}, { signal: signal() });
    expect(r.content).toEqual([{ type: 'text', text: expect.stringMatching(/^client /) }]);
    expect(oauth.authorizations).toHaveLength(2);
    expect(oauth.authorizations[1]!.scopes).toEqual(['mcp:basic', 'mcp:write']);
  });

  it('without anyone to sign in (a run) the call fails saying which scope and how; the next sign-in asks for it', async () => {
    oauth = await startFakeMcpOAuth({ stepUp: { basic: 'mcp:basic', write: 'mcp:write' } });
    const store = memoryTokenStore();
    const serverUrl = new URL(oauth.url);
    await signIn({ serverUrl, store, open });
    const m = manager({ servers: { remote: http(oauth.url) }, tokenStore: () => store });
    await m.ready();
    const tool = (await m.providers[0]!.tools()).find((t) => t.name === 'mcp__remote__whoami')!;
    const t = await makeToolContext();
    try {
      const r = await tool.call({}, t.ctx, signal());
      expect(r.ok).toBe(false);
      expect(r.content).toMatch(
        /needs more permission for whoami \(scope "mcp:basic mcp:write"\).*rein mcp login remote/,
      );
    } finally {
      await t.cleanup();
    }
    await expect.poll(async () => (await store.read())?.scope).toBe('mcp:basic mcp:write');
    await signIn({ serverUrl, store, open, fresh: true });
    expect(oauth.authorizations.at(-1)!.scopes).toEqual(['mcp:basic', 'mcp:write']);
  });

  it('an authorization server that supports client ID metadata documents gets Rein’s URL as client_id: no registration', async () => {
    const port = await freePort();
    oauth = await startFakeMcpOAuth({ cimd: { redirect_uri: `http://127.0.0.1:${port}/callback` } });
    const store = memoryTokenStore();
    const id = 'https://rein.example/oauth/client-metadata.json';
    await signIn({ serverUrl: new URL(oauth.url), store, open, oauth: { redirect_port: port }, clientMetadataUrl: id });
    expect(oauth.registrations).toEqual([]);
    const m = manager({ servers: { remote: http(oauth.url) }, tokenStore: () => store });
    await m.ready();
    const r = await m.server('remote')!.callRaw('whoami', {}, { signal: signal() });
    expect(r.content).toEqual([{ type: 'text', text: `client ${id}` }]);
  });

  it('the client metadata URL: the environment, then config.yaml, then the release default; a bad one names its source', () => {
    expect(
      clientMetadataUrl({ REIN_MCP_CLIENT_METADATA_URL: 'https://a.example/c.json' }, 'https://b.example/c.json'),
    ).toBe('https://a.example/c.json');
    expect(clientMetadataUrl({ REIN_MCP_CLIENT_METADATA_URL: '' }, 'https://b.example/c.json', true)).toBeUndefined();
    expect(clientMetadataUrl({}, 'https://b.example/c.json')).toBe('https://b.example/c.json');
    expect(clientMetadataUrl({}, null, true)).toBeUndefined();
    expect(clientMetadataUrl({}, undefined, true)).toBe(RELEASE_CLIENT_METADATA_URL);
    expect(clientMetadataUrl({}, undefined, false)).toBeUndefined();
    expect(() => clientMetadataUrl({ REIN_MCP_CLIENT_METADATA_URL: 'http://a.example/c.json' })).toThrow(
      /REIN_MCP_CLIENT_METADATA_URL: .*not an https URL/,
    );
    expect(() => clientMetadataUrl({}, 'https://a.example/')).toThrow(/mcp\.client_metadata_url/);
  });
});
