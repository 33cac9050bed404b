/**
 * A fake OAuth authorization server and an MCP server it protects, on one loopback port, from the
 * SDK's server pieces: `mcpAuthRouter` (RFC 8414 metadata, dynamic client registration, /authorize,
 * /token with the PKCE check, RFC 9728 protected-resource metadata) and `requireBearerAuth` in front of
 * a stateless Streamable HTTP MCP server with one tool, `whoami`. The authorization endpoint grants at
 * once (no login page): a BROWSER script that merely fetches the URL completes the sign-in.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createOAuthMetadata,
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface FakeOAuth {
  /** The protected MCP endpoint. */
  url: string;
  issuer: string;
  registrations: OAuthClientInformationFull[];
  authorizations: AuthorizationParams[];
  tokenRequests: number;
  /** Access tokens handed out, newest last. */
  accessTokens: string[];
  /** Makes every access token given so far invalid (the next call needs a refresh). */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

interface Grant {
  client: string;
  params: AuthorizationParams;
}

class Clients implements OAuthRegisteredClientsStore {
  readonly byId = new Map<string, OAuthClientInformationFull>();
  constructor(private readonly log: OAuthClientInformationFull[]) {}
  urlClients: { redirect_uri: string } | undefined;
  getClient(id: string) {
    if (this.urlClients && /^https:\/\//.test(id))
      return {
        client_id: id,
        redirect_uris: [this.urlClients.redirect_uri],
        token_endpoint_auth_method: 'none',
      } as OAuthClientInformationFull;
    return this.byId.get(id);
  }
  registerClient(c: Omit<OAuthClientInformationFull, 'client_id' | 'client_id_issued_at'>) {
    const full = {
      client_id: randomUUID(),
      client_id_issued_at: Math.floor(Date.now() / 1000),
      ...c,
    } as OAuthClientInformationFull;
    this.byId.set(full.client_id, full);
    this.log.push(full);
    return full;
  }
}

export interface FakeOAuthOptions {
  preRegistered?: { client_id: string; redirect_uri: string };
  /**
   * Step-up: every request needs a token with `basic`, and `tools/call` needs `basic` and `write` too
   * (403 `insufficient_scope` naming both, as the conformance suite's scenario does). The 401 asks for
   * `basic` only.
   */
  stepUp?: { basic: string; write: string };
  /**
   * The authorization server advertises `client_id_metadata_document_supported`; a URL client ID is
   * accepted as a client with this redirect URI (a real server would fetch the document).
   */
  cimd?: { redirect_uri: string };
}

export async function startFakeMcpOAuth(o: FakeOAuthOptions = {}): Promise<FakeOAuth> {
  // express ships without types here; the SDK's auth router is built on it.
  const express = ((await import('express' as string)) as { default: (...a: unknown[]) => any }).default as any;
  const registrations: OAuthClientInformationFull[] = [];
  const authorizations: AuthorizationParams[] = [];
  const clients = new Clients(registrations);
  clients.urlClients = o.cimd;
  if (o.preRegistered) {
    clients.byId.set(o.preRegistered.client_id, {
      client_id: o.preRegistered.client_id,
      redirect_uris: [o.preRegistered.redirect_uri],
      token_endpoint_auth_method: 'none',
    });
  }
  const codes = new Map<string, Grant>();
  const access = new Map<string, AuthInfo>();
  const refresh = new Map<string, { client: string; scopes: string[] }>();
  const accessTokens: string[] = [];
  let tokenRequests = 0;

  const issue = (client: string, scopes: string[]): OAuthTokens => {
    const token = `at_${randomUUID()}`;
    const rt = `rt_${randomUUID()}`;
    access.set(token, { token, clientId: client, scopes, expiresAt: Math.floor(Date.now() / 1000) + 3600 });
    refresh.set(rt, { client, scopes });
    accessTokens.push(token);
    return { access_token: token, token_type: 'bearer', expires_in: 3600, refresh_token: rt, scope: scopes.join(' ') };
  };

  const provider: OAuthServerProvider = {
    clientsStore: clients,
    async authorize(client, params, res) {
      authorizations.push(params);
      const code = `code_${randomUUID()}`;
      codes.set(code, { client: client.client_id, params });
      const target = new URL(params.redirectUri);
      target.searchParams.set('code', code);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      (res as unknown as { redirect(url: string): void }).redirect(target.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const g = codes.get(code);
      if (!g) throw new InvalidGrantError('unknown code');
      return g.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      tokenRequests++;
      const g = codes.get(code);
      if (!g || g.client !== client.client_id) throw new InvalidGrantError('bad code');
      codes.delete(code);
      return issue(client.client_id, g.params.scopes ?? []);
    },
    async exchangeRefreshToken(client, token) {
      tokenRequests++;
      const r = refresh.get(token);
      if (!r || r.client !== client.client_id) throw new InvalidGrantError('bad refresh token');
      refresh.delete(token);
      return issue(client.client_id, r.scopes);
    },
    async verifyAccessToken(token) {
      const info = access.get(token);
      if (!info) throw new InvalidTokenError('invalid or expired token');
      return info;
    },
  };

  const app = express();
  const http: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  const scopesSupported = o.stepUp ? [o.stepUp.basic, o.stepUp.write] : ['mcp:tools'];
  if (o.cimd) {
    // The router's own metadata, plus SEP-991's flag.
    const metadata = {
      ...createOAuthMetadata({ provider, issuerUrl: new URL(base), scopesSupported }),
      client_id_metadata_document_supported: true,
    };
    app.get('/.well-known/oauth-authorization-server', (_req: unknown, res: any) => res.json(metadata));
  }
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl, scopesSupported }));
  const prm = getOAuthProtectedResourceMetadataUrl(mcpUrl);
  const plainBearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: prm });
  /** The step-up check: 401 asking for `basic` without a valid token, 403 naming both scopes for a call without `write`. */
  const stepUpBearer = async (req: any, res: any, next: () => void) => {
    const { basic, write } = o.stepUp!;
    const header = String(req.headers.authorization ?? '');
    const info = header.startsWith('Bearer ') ? access.get(header.slice(7)) : undefined;
    if (!info) {
      res
        .status(401)
        .set('WWW-Authenticate', `Bearer error="invalid_token", scope="${basic}", resource_metadata="${prm}"`)
        .json({ error: 'invalid_token' });
      return;
    }
    const needed = req.body?.method === 'tools/call' ? [basic, write] : [basic];
    if (!needed.every((s) => info.scopes.includes(s))) {
      res
        .status(403)
        .set(
          'WWW-Authenticate',
          `Bearer error="insufficient_scope", scope="${needed.join(' ')}", resource_metadata="${prm}"`,
        )
        .json({ error: 'insufficient_scope' });
      return;
    }
    req.auth = info;
    next();
  };
  const bearer = o.stepUp ? stepUpBearer : plainBearer;
  app.post('/mcp', express.json(), bearer, async (req: any, res: any) => {
    const server = new McpServer({ name: 'protected', version: '1.0.0' });
    server.registerTool(
      'whoami',
      { description: 'Says which OAuth client is calling', inputSchema: {}, annotations: { readOnlyHint: true } },
      async (_args, extra) => ({
        content: [{ type: 'text', text: `client ${extra.authInfo?.clientId ?? 'unknown'}` }],
      }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const notAllowed = (_req: unknown, res: any) => res.status(405).set('allow', 'POST').end();
  app.get('/mcp', plainBearer, notAllowed);
  app.delete('/mcp', plainBearer, notAllowed);

  return {
    url: mcpUrl.href,
    issuer: base,
    registrations,
    authorizations,
    get tokenRequests() {
      return tokenRequests;
    },
    accessTokens,
    expireAccessTokens: () => access.clear(),
    close: () =>
      new Promise<void>((r) => {
        http.closeAllConnections();
        http.close(() => r());
      }),
  };
}

/** What a browser does with the authorization URL when the server grants at once: follow it to the callback. */
export async function followAuthorization(url: URL): Promise<void> {
  const res = await fetch(url);
  await res.text();
}

export const pkceChallenge = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');
