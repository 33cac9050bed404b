/**
 * OAuth for HTTP MCP servers against a fake authorization server and protected MCP server made of the
 * SDK's server pieces (tests/support/fakeMcpOAuth.ts): discovery, dynamic registration, PKCE and the
 * loopback redirect in a sign-in; tokens in a 0600 file; runs that use the stored tokens, refresh them
 * without a person, and report a sign-in as needed instead of opening a browser.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpManager } from '../../../src-main/core/mcpClient/manager.js';
import { fileTokenStore, memoryTokenStore, oauthFile, signIn } from '../../../src-main/core/mcpClient/oauth.js';
import type { McpServerSettings } from '../../../src-main/core/mcpClient/config.js';
import { useLeakCheck } from '../../support/leaks.js';
import { followAuthorization, startFakeMcpOAuth, type FakeOAuth } from '../../support/fakeMcpOAuth.js';
import { makeToolContext } from '../tools/toolTestContext.js';

useLeakCheck();

let fake: FakeOAuth;
let home: string;
const managers: McpManager[] = [];

beforeEach(async () => {
  fake = await startFakeMcpOAuth();
  home = await mkdtemp(join(tmpdir(), 'rein-oauth-'));
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.dispose()));
  await fake.close();
  await rm(home, { recursive: true, force: true });
});

const server = (url: string, extra: Partial<McpServerSettings> = {}): McpServerSettings => ({
  type: 'http',
  url,
  args: [],
  env: {},
  disabled: false,
  ...extra,
});
const manager = (servers: Record<string, McpServerSettings>) => {
  const m = new McpManager({ servers, env: process.env, home });
  managers.push(m);
  return m;
};

describe('OAuth sign-in', () => {
  it('without a sign-in the server is reported as needing one (no browser, no registration)', async () => {
    const m = manager({ remote: server(fake.url) });
    await m.ready();
    expect(m.status()[0]).toMatchObject({
      state: 'disconnected',
      sign_in_required: true,
      signed_in: false,
      last_error: expect.stringMatching(/rein mcp login remote/),
    });
    expect(fake.registrations).toHaveLength(0);
    expect(m.problems()[0]).toMatch(/sign-in needed: rein mcp login remote/);
  });

  it('discovers, registers, opens the authorization URL (PKCE, loopback redirect) and keeps the tokens in a 0600 file', async () => {
    const opened: URL[] = [];
    await signIn({
      serverUrl: new URL(fake.url),
      store: fileTokenStore(home, 'remote'),
      open: async (url) => {
        opened.push(url);
        await followAuthorization(url);
      },
    });
    expect(fake.registrations).toHaveLength(1);
    const u = opened[0]!;
    expect(u.searchParams.get('code_challenge_method')).toBe('S256');
    expect(u.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(u.searchParams.get('state')).toMatch(/^[0-9a-f]{32}$/);
    const file = oauthFile(home, 'remote');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, 'secrets', 'mcp-oauth'))).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved).toMatchObject({
      version: 1,
      server_url: fake.url,
      tokens: { access_token: fake.accessTokens[0], token_type: expect.stringMatching(/bearer/i) },
      client: { client_id: fake.registrations[0]!.client_id },
    });

    // A run uses the stored tokens.
    const m = manager({ remote: server(fake.url) });
    await m.ready();
    expect(m.status()[0]).toMatchObject({ state: 'healthy', sign_in_required: false, signed_in: true });
    const t = await makeToolContext();
    try {
      const whoami = (await m.providers[0]!.tools())[0]!;
      expect(await whoami.call({}, t.ctx, new AbortController().signal)).toEqual({
        ok: true,
        content: `client ${fake.registrations[0]!.client_id}`,
      });
      // Expired tokens are refreshed by the run itself, without a person.
      fake.expireAccessTokens();
      await m.dispose();
      const again = manager({ remote: server(fake.url) });
      await again.ready();
      expect(again.status()[0]!.state).toBe('healthy');
      expect(fake.accessTokens).toHaveLength(2);
      expect(fake.registrations).toHaveLength(1);
    } finally {
      await t.cleanup();
    }
  });

  it('a refresh the authorization server refuses means a new sign-in, not retries', async () => {
    const store = fileTokenStore(home, 'remote');
    await signIn({ serverUrl: new URL(fake.url), store, open: followAuthorization });
    const saved = (await store.read())!;
    await store.write({ ...saved, tokens: { ...saved.tokens!, access_token: 'stale', refresh_token: 'revoked' } });
    const m = manager({ remote: server(fake.url) });
    await m.ready();
    expect(m.status()[0]).toMatchObject({ state: 'disconnected', sign_in_required: true });
    expect(m.status()[0]!.next_attempt_at).toBeUndefined();
  });

  it('a second sign-in reuses the registration when it can listen on the same port', async () => {
    const store = fileTokenStore(home, 'remote');
    await signIn({ serverUrl: new URL(fake.url), store, open: followAuthorization });
    await signIn({ serverUrl: new URL(fake.url), store, open: followAuthorization, fresh: true });
    expect(fake.authorizations).toHaveLength(2);
    expect(fake.registrations).toHaveLength(1);
    expect(fake.authorizations[1]!.redirectUri).toBe(fake.authorizations[0]!.redirectUri);
  });

  it('a pre-registered client (oauth.client_id with a fixed redirect port) does not register', async () => {
    await fake.close();
    const port = 40000 + Math.floor(Math.random() * 20000);
    fake = await startFakeMcpOAuth({
      preRegistered: { client_id: 'rein-test-client', redirect_uri: `http://127.0.0.1:${port}/callback` },
    });
    const store = memoryTokenStore();
    await signIn({
      serverUrl: new URL(fake.url),
      store,
      oauth: { client_id: 'rein-test-client', redirect_port: port },
      open: followAuthorization,
    });
    expect(fake.registrations).toHaveLength(0);
    expect((await store.read())?.tokens?.access_token).toBe(fake.accessTokens[0]);
  });

  it('a redirect with the wrong state is refused', async () => {
    await expect(
      signIn({
        serverUrl: new URL(fake.url),
        store: memoryTokenStore(),
        timeoutMs: 5_000,
        open: async (url) => {
          const bad = new URL(url);
          bad.searchParams.set('state', 'forged');
          const res = await fetch(bad);
          await res.text();
        },
      }),
    ).rejects.toThrow(/wrong state/);
  });
});
