/**
 * What the app asks of the daemon about MCP servers: the list with each server's tools, connecting a
 * server now (`POST /mcp/servers/{name}/reconnect`: a real stdio server comes up healthy, one whose
 * program exits shows why), and signing in to an http server (`POST /mcp/servers/{name}/login`): the
 * refusals before anything opens, a sign-in whose page the injected opener completes (the server then
 * healthy, the tokens stored), one the authorization server refuses (the status says so), and the same
 * operations through the in-process desktop API.
 */
import { stat } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { oauthFile, type StoredOAuth, type TokenStore } from '../../../src-main/core/mcpClient/oauth.js';
import { createDesktopReinApi } from '../../../src-main/core/desktop/desktopApi.js';
import { startFakeAnthropic, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { followAuthorization, startFakeMcpOAuth, type FakeOAuth } from '../../support/fakeMcpOAuth.js';
import { useLeakCheck } from '../../support/leaks.js';
import { everythingStdio, freePort, McpServer, startSdkServer, type SdkServer } from '../../support/mcpPeers.js';
import { http, startTestDaemon, type TestDaemon } from './support.js';

useLeakCheck();

let fake: FakeAnthropic;
let d: TestDaemon | undefined;
let oauth: FakeOAuth | undefined;
let open: SdkServer | undefined;
const opened: string[] = [];

beforeEach(async () => {
  fake = await startFakeAnthropic();
  opened.length = 0;
});
afterEach(async () => {
  await d?.daemon.dispose();
  d = undefined;
  await oauth?.close();
  oauth = undefined;
  await open?.close();
  open = undefined;
  await fake.close();
});

/** The everything server, one whose program exits at once, and (when given) http servers. */
async function daemonWith(
  http: Record<string, string> = {},
  opener: (url: URL) => Promise<void> | void = (u) => void opened.push(u.href),
) {
  const servers: Record<string, unknown> = {
    everything: everythingStdio(),
    broken: {
      type: 'stdio',
      command: process.execPath,
      args: ['-e', 'process.stderr.write("cannot start: no config\\n"); process.exit(3)'],
      env: {},
      disabled: false,
      connect_timeout_seconds: 10,
    },
    off: { ...everythingStdio(), disabled: true },
  };
  for (const [name, url] of Object.entries(http))
    servers[name] = { type: 'http', url, args: [], env: {}, disabled: false };
  d = await startTestDaemon(fake, { config: { mcp_servers: servers as never }, daemon: { openUrl: opener } });
  return d;
}

/** The `mcp_status` events of the daemon's bus from now on, as `agent/server: state`. */
function mcpStatuses(t: TestDaemon): string[] {
  const states: string[] = [];
  t.daemon.service.subscribe((e) => {
    if (e.event.type === 'mcp_status') states.push(`${e.event.agent}/${e.event.server}: ${e.event.state}`);
  });
  return states;
}

const serversOf = async (t: TestDaemon, agent = 'default') =>
  (await http(t, 'GET', `/mcp/servers?agent=${agent}`)).json.agents[0].servers as any[];

describe('MCP servers for the app', () => {
  it('connects a server on request: healthy with its tool names; a program that exits shows its last error', async () => {
    const t = await daemonWith();
    const before = await serversOf(t);
    expect(before.map((s) => [s.name, s.state])).toEqual([
      ['broken', 'idle'],
      ['everything', 'idle'],
      ['off', 'disabled'],
    ]);
    expect(before[1].tool_names).toEqual([]);

    const states = mcpStatuses(t);
    const up = await http(t, 'POST', '/mcp/servers/everything/reconnect', { body: {} });
    expect(up.status).toBe(200);
    expect(up.json.agent).toBe('default');
    expect(up.json.server).toMatchObject({ name: 'everything', type: 'stdio', state: 'healthy' });
    expect(up.json.server.tool_names).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    expect(up.json.server.tools).toBe(up.json.server.tool_names.length);

    const down = await http(t, 'POST', '/mcp/servers/broken/reconnect');
    expect(down.status).toBe(200);
    expect(down.json.server).toMatchObject({ name: 'broken', state: 'disconnected' });
    expect(down.json.server.last_error).toMatch(/./);
    // Each change went on the bus, so the app's panels look again without asking every few seconds.
    expect(states).toEqual([
      'default/everything: connecting',
      'default/everything: healthy',
      'default/broken: connecting',
      'default/broken: disconnected',
    ]);

    // The list now shows them as they are: the run-time managers are the same ones.
    const after = await serversOf(t);
    expect(after.find((s) => s.name === 'everything')).toMatchObject({
      state: 'healthy',
      tool_names: expect.arrayContaining(['echo']),
    });
    expect(after.find((s) => s.name === 'broken')).toMatchObject({
      state: 'disconnected',
      last_error: down.json.server.last_error,
    });

    expect(await http(t, 'POST', '/mcp/servers/off/reconnect')).toMatchObject({
      status: 400,
      json: { code: 'invalid_input', field: 'name' },
    });
    expect(await http(t, 'POST', '/mcp/servers/nope/reconnect')).toMatchObject({
      status: 404,
      json: { code: 'not_found', field: 'name' },
    });
  });

  it('refuses a sign-in that cannot be one, naming why, before anything is opened', async () => {
    open = await startSdkServer({
      setup: (s: McpServer) =>
        s.registerTool('ping', { description: 'p' }, async () => ({ content: [{ type: 'text', text: 'pong' }] })),
    });
    const t = await daemonWith({ open: open.url, gone: 'http://127.0.0.1:9/mcp' });
    const login = (name: string, body: unknown = {}) =>
      http(t, 'POST', `/mcp/servers/${encodeURIComponent(name)}/login`, { body });

    const unknown = await login('wiki');
    expect(unknown).toMatchObject({ status: 404, json: { code: 'not_found', field: 'name' } });
    expect(unknown.json.error).toMatch(
      /no MCP server "wiki" for agent default \(it has: broken, everything, gone, off, open\)/,
    );
    expect((await login('everything')).json).toMatchObject({
      code: 'invalid_input',
      error: expect.stringMatching(/stdio server: there is nothing to sign in to/),
    });
    expect((await login('open')).json).toMatchObject({
      code: 'invalid_input',
      error: expect.stringMatching(/does not ask for a sign-in: .* answered HTTP 200/),
    });
    expect(await login('gone')).toMatchObject({ status: 503, json: { code: 'unavailable' } });
    expect(await login('open', { agent: 'nobody' })).toMatchObject({ status: 404, json: { code: 'agent_not_found' } });
    expect(await login('open', { agent: 'Not An Agent' })).toMatchObject({ status: 400, json: { field: 'agent' } });
    expect(await login('open', { name: 'other' })).toMatchObject({ status: 400, json: { field: 'name' } });
    expect(opened).toEqual([]);
  });

  it('signs in from the app: the page goes to the opener, the server comes up healthy, the tokens are stored', async () => {
    oauth = await startFakeMcpOAuth();
    // The opener plays the person's browser, which the authorization server sends straight back to Rein.
    const t = await daemonWith({ wiki: oauth.url }, async (url) => {
      opened.push(url.href);
      await followAuthorization(url);
    });
    await http(t, 'POST', '/mcp/servers/wiki/reconnect');
    expect((await serversOf(t)).find((s) => s.name === 'wiki')).toMatchObject({
      state: 'disconnected',
      sign_in_required: true,
      signed_in: false,
    });

    const started = await http(t, 'POST', '/mcp/servers/wiki/login', { body: { agent: 'default' } });
    expect(started.status).toBe(200);
    expect(started.json).toMatchObject({ agent: 'default', name: 'wiki', state: 'waiting' });
    expect(started.json.authorization_url).toBe(opened[0]);
    expect(new URL(started.json.authorization_url).searchParams.get('redirect_uri')).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/callback$/,
    );

    await expect
      .poll(async () => (await serversOf(t)).find((s) => s.name === 'wiki')?.state, { timeout: 15_000 })
      .toBe('healthy');
    const wiki = (await serversOf(t)).find((s) => s.name === 'wiki');
    expect(wiki).toMatchObject({ sign_in_required: false, signed_in: true, tool_names: ['whoami'] });
    expect(wiki.sign_in).toBeUndefined();
    expect((await stat(oauthFile(t.home, 'wiki'))).mode & 0o777).toBe(0o600);
  });

  it('signs in with Rein’s URL-based client ID from mcp.client_metadata_url when the server supports it: nothing is registered', async () => {
    const port = await freePort();
    oauth = await startFakeMcpOAuth({ cimd: { redirect_uri: `http://127.0.0.1:${port}/callback` } });
    const id = 'https://rein.example/oauth/client-metadata.json';
    const wiki = { type: 'http', url: oauth.url, args: [], env: {}, disabled: false, oauth: { redirect_port: port } };
    d = await startTestDaemon(fake, {
      config: { mcp: { client_metadata_url: id }, mcp_servers: { wiki } as never },
      daemon: { openUrl: (u: URL) => followAuthorization(u) },
    });
    const started = await http(d, 'POST', '/mcp/servers/wiki/login', { body: {} });
    expect(started.status, started.text).toBe(200);
    expect(new URL(started.json.authorization_url).searchParams.get('client_id')).toBe(id);
    await expect
      .poll(async () => (await serversOf(d!)).find((s) => s.name === 'wiki')?.state, { timeout: 15_000 })
      .toBe('healthy');
    expect(oauth.registrations).toEqual([]);
  });

  it('takes REIN_MCP_CLIENT_METADATA_URL first, and refuses a malformed one naming it, before any page opens', async () => {
    oauth = await startFakeMcpOAuth();
    const wiki = { type: 'http', url: oauth.url, args: [], env: {}, disabled: false };
    const env = {
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: 'test-key',
      REIN_RETRY_BASE_MS: '1',
      REIN_MCP_CLIENT_METADATA_URL: 'http://rein.example/c.json',
    };
    d = await startTestDaemon(fake, {
      config: {
        mcp: { client_metadata_url: 'https://rein.example/oauth/client-metadata.json' },
        mcp_servers: { wiki } as never,
      },
      daemon: { env, openUrl: (u: URL) => void opened.push(u.href) },
    });
    const refused = await http(d, 'POST', '/mcp/servers/wiki/login', { body: {} });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      code: 'invalid_input',
      error: expect.stringMatching(
        /REIN_MCP_CLIENT_METADATA_URL: "http:\/\/rein\.example\/c\.json" is not an https URL/,
      ),
    });
    expect(opened).toEqual([]);
  });

  it('shows a sign-in the authorization server refused in the server’s status, until the next one', async () => {
    oauth = await startFakeMcpOAuth();
    // A person who clicks "Deny": the authorization server redirects back with an error.
    const t = await daemonWith({ wiki: oauth.url }, async (url) => {
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('state', url.searchParams.get('state')!);
      await (await fetch(back)).text();
    });
    const states = mcpStatuses(t);
    expect((await http(t, 'POST', '/mcp/servers/wiki/login')).json.state).toBe('waiting');
    await expect
      .poll(async () => (await serversOf(t)).find((s) => s.name === 'wiki')?.sign_in?.state, { timeout: 10_000 })
      .toBe('failed');
    const wiki = (await serversOf(t)).find((s) => s.name === 'wiki');
    expect(wiki.sign_in.error).toMatch(/refused: access_denied/);
    expect(states).toContain('default/wiki: sign_in_failed');
    expect(wiki.state).toBe('idle'); // never connected: the failed sign-in is all there is to say
  });

  it('answers the same operations in process for the desktop window, with the desktop’s token store', async () => {
    oauth = await startFakeMcpOAuth();
    const kept = new Map<string, StoredOAuth>();
    const store = (server: string): TokenStore => ({
      where: `test store ${server}`,
      read: async () => kept.get(server),
      write: async (v) => void kept.set(server, v),
      remove: async () => void kept.delete(server),
      exists: () => kept.has(server),
    });
    d = await startTestDaemon(fake, {
      config: { mcp_servers: { wiki: { type: 'http', url: oauth.url } as never, everything: everythingStdio() } },
      daemon: { openUrl: followAuthorization, mcpTokenStores: (_home, server) => store(server) },
    });
    const api = createDesktopReinApi(d.daemon.service, {
      read: async () => ({}),
      save: async () => undefined,
      openPermissionSettings: async () => ({ opened: false }),
    });
    await expect(api.mcpServers(undefined)).resolves.toMatchObject({
      agents: [{ agent: 'default', servers: [{ name: 'everything' }, { name: 'wiki', signed_in: false }] }],
    });
    await expect(api.mcpReconnect({ name: 'everything' })).resolves.toMatchObject({ server: { state: 'healthy' } });
    await expect(api.mcpLogin({ name: 'nope' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(api.mcpLogin({ name: 'wiki' })).resolves.toMatchObject({ state: 'waiting' });
    await expect
      .poll(
        async () =>
          (await api.mcpServers({ agent: 'default' })).agents[0]!.servers.find((s) => s.name === 'wiki')?.state,
        { timeout: 15_000 },
      )
      .toBe('healthy');
    expect(kept.get('wiki')?.tokens?.access_token).toMatch(/^at_/);
    expect((await api.mcpServers({})).agents[0]!.servers.find((s) => s.name === 'wiki')?.signed_in).toBe(true);
  });
});
