/**
 * OAuth for MCP servers over HTTP, on the SDK's client (`auth()`: protected-resource and
 * authorization-server discovery, dynamic client registration or a pre-registered client, PKCE,
 * refresh). Rein's part is where things are kept and who may sign in:
 *
 * - A TokenStore per server keeps the client registration, the tokens and the discovery state
 *   together, exactly as the SDK handed them over (it binds them to the authorization server that
 *   issued them). The CLI and the daemon use a file, `$REIN_HOME/secrets/mcp-oauth/<server>.json`,
 *   0600 in a 0700 folder (and under `secrets/`, which no tool may touch); the desktop app brings
 *   its own, sealed by the keychain (core/desktop/mcpTokenStore.ts). An entry made for another URL is ignored.
 * - Signing in is a person's act: `signIn` (rein mcp login, the CLI meeting a server that needs it, or
 *   the app's Sign in: service/mcpServers.ts)
 *   listens on 127.0.0.1 at an ephemeral port (or `oauth.redirect_port`) for the redirect, hands the
 *   authorization URL to `open` (the CLI's browser opener honours $BROWSER) and exchanges the code.
 * - A run never opens a browser: its provider refreshes tokens when it can and otherwise records that
 *   a sign-in is needed; the server is then reported as such (`rein mcp login NAME`).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { AsyncDisposable } from '../base/lifecycle.js';
import { ReinError, errorMessage } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { isStepUp, unionScopes, type AuthChallenge } from './challenge.js';
import type { McpServerSettings } from './config.js';

export const DEFAULT_SIGN_IN_TIMEOUT_MS = 5 * 60_000;
export const CALLBACK_PATH = '/callback';

/** Everything kept for one server's sign-in, as the SDK gave it. */
export interface StoredOAuth {
  version: 1;
  /** The server the entry is for: an entry for another URL is not used. */
  server_url: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  discovery?: OAuthDiscoveryState;
  /** The redirect URI the client was registered with (its port is tried again at the next sign-in). */
  redirect_url?: string;
  /**
   * The scope asked for at the last sign-in, with any scope the server demanded since (a 403
   * `insufficient_scope`): the next sign-in asks for all of it.
   */
  scope?: string;
  saved_at?: string;
}

export interface TokenStore {
  /** Where it is kept, for messages (`~/.rein/secrets/mcp-oauth/github.json`, `memory`). */
  readonly where: string;
  read(): Promise<StoredOAuth | undefined>;
  write(value: StoredOAuth): Promise<void>;
  remove(): Promise<void>;
  /** Whether anything is stored, answered at once (a server's `signed_in` in its status). */
  exists?(): boolean;
}

/** The file name for a server: its name with anything but letters, digits, `.`, `_` and `-` escaped. */
export function oauthFileName(server: string): string {
  const safe = server.replace(/[^A-Za-z0-9._-]/g, (c) => `%${c.codePointAt(0)!.toString(16).padStart(2, '0')}`);
  return `${safe.startsWith('.') ? `%2e${safe.slice(1)}` : safe}.json`;
}

export const oauthDir = (home: string): string => join(home, 'secrets', 'mcp-oauth');
export const oauthFile = (home: string, server: string): string => join(oauthDir(home), oauthFileName(server));

export function fileTokenStore(home: string, server: string): TokenStore {
  const file = oauthFile(home, server);
  return {
    where: file,
    async read() {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
      try {
        const v = JSON.parse(text) as StoredOAuth;
        return v && typeof v === 'object' && v.version === 1 && typeof v.server_url === 'string' ? v : undefined;
      } catch {
        // A damaged file is as good as none: the next sign-in writes a new one.
        return undefined;
      }
    },
    async write(value) {
      await mkdir(join(home, 'secrets'), { recursive: true, mode: 0o700 });
      await mkdir(oauthDir(home), { recursive: true, mode: 0o700 });
      await atomicWriteFile(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600, followSymlinks: false });
    },
    async remove() {
      await rm(file, { force: true });
    },
    exists: () => existsSync(file),
  };
}

/** Kept in memory only: `rein mcp call <URL>` signs in for the one command and writes nothing. */
export function memoryTokenStore(): TokenStore {
  let value: StoredOAuth | undefined;
  return {
    where: 'memory',
    read: async () => (value ? structuredClone(value) : undefined),
    write: async (v) => void (value = structuredClone(v)),
    remove: async () => void (value = undefined),
  };
}

export interface ProviderOptions {
  serverUrl: URL;
  store: TokenStore;
  /** The loopback redirect URI; a run's provider uses the one the client was registered with. */
  redirectUrl: string;
  /** How to show the authorization URL to a person; absent = a run, which only records that a sign-in is needed. */
  open?: (url: URL) => Promise<void> | void;
  oauth?: McpServerSettings['oauth'];
  clientName?: string;
  /** Rein's URL-based client ID (clientMetadata.ts), used when the authorization server supports it. */
  clientMetadataUrl?: string;
}

/**
 * The SDK's OAuthClientProvider over a TokenStore. Writes are queued so the read-modify-write of the
 * one entry never loses a field; the PKCE verifier stays in memory (it is only good for one sign-in).
 */
export class ReinOAuthProvider implements OAuthClientProvider {
  readonly #o: ProviderOptions;
  #verifier: string | undefined;
  #state: string | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  /** The server needs a person to sign in (set instead of opening a browser, in a run). */
  signInNeeded = false;
  /** The authorization URL handed to `open`. */
  authorizationUrl: URL | undefined;
  /**
   * A 403 asked for more scope: until new tokens arrive the refresh token is not offered, so the SDK's
   * step-up goes to a new authorization (a refresh would only bring the old scope back).
   */
  #stepUp = false;
  /** The access token the 403 refused: once another one is stored (a step-up elsewhere), the hold ends. */
  #refused: string | undefined;

  constructor(o: ProviderOptions) {
    this.#o = o;
  }

  get redirectUrl(): string {
    return this.#o.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.#o.clientMetadataUrl;
  }

  /** What the server's last 401/403 said (the connection reports it). */
  challenged(c: AuthChallenge): void {
    if (!isStepUp(c)) return;
    this.#stepUp = true;
    void this.#entry().then(
      (v) => {
        if (this.#stepUp && this.#refused === undefined) this.#refused = v?.tokens?.access_token;
      },
      () => undefined,
    );
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.#o.oauth?.client_secret;
    return {
      client_name: this.#o.clientName ?? 'Rein',
      redirect_uris: [this.#o.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: secret ? 'client_secret_post' : 'none',
      ...(this.#o.oauth?.scope ? { scope: this.#o.oauth.scope } : {}),
    };
  }

  /** The state sent with the last authorization request, checked when the redirect comes back. */
  get expectedState(): string | undefined {
    return this.#state;
  }

  state(): string {
    this.#state = randomBytes(16).toString('hex');
    return this.#state;
  }

  async #entry(): Promise<StoredOAuth | undefined> {
    const v = await this.#o.store.read();
    return v && v.server_url === this.#o.serverUrl.href ? v : undefined;
  }

  #update(change: (v: StoredOAuth) => void): Promise<void> {
    const run = this.#queue.then(async () => {
      const v: StoredOAuth = (await this.#entry()) ?? { version: 1, server_url: this.#o.serverUrl.href };
      change(v);
      v.saved_at = new Date().toISOString();
      await this.#o.store.write(v);
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const o = this.#o.oauth;
    if (o?.client_id) return { client_id: o.client_id, ...(o.client_secret ? { client_secret: o.client_secret } : {}) };
    const v = await this.#entry();
    const client = v?.client;
    if (!client) return undefined;
    // A client registered for another redirect URI (another port) must register again.
    const uris = (client as { redirect_uris?: unknown }).redirect_uris;
    if (Array.isArray(uris) && uris.length > 0 && !uris.map(String).includes(this.#o.redirectUrl)) return undefined;
    return client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): Promise<void> {
    return this.#update((v) => {
      v.client = info;
      v.redirect_url = this.#o.redirectUrl;
    });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const tokens = (await this.#entry())?.tokens;
    if (this.#stepUp && this.#refused !== undefined && tokens?.access_token !== this.#refused) {
      this.#stepUp = false;
      this.#refused = undefined;
    }
    if (!tokens || !this.#stepUp) return tokens;
    const { refresh_token: _held, ...rest } = tokens;
    return rest;
  }

  saveTokens(tokens: OAuthTokens): Promise<void> {
    this.signInNeeded = false;
    this.#stepUp = false;
    this.#refused = undefined;
    return this.#update((v) => {
      v.tokens = tokens;
      v.redirect_url ??= this.#o.redirectUrl;
    });
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizationUrl = url;
    if (!this.#o.open) {
      this.signInNeeded = true;
      return;
    }
    await this.#o.open(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.#verifier) throw new Error('no PKCE code verifier: the sign-in was not started by this process');
    return this.#verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    return this.#update((v) => {
      v.discovery = state;
    });
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.#entry())?.discovery;
  }

  /** Keeps the scope this sign-in asked for (the next one asks for it too). */
  rememberScope(scope: string | undefined): Promise<void> {
    return this.#update((v) => {
      const all = unionScopes(v.scope, scope);
      if (all) v.scope = all;
    });
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.#verifier = undefined;
      return Promise.resolve();
    }
    return this.#update((v) => {
      if (scope === 'all' || scope === 'client') delete v.client;
      if (scope === 'all' || scope === 'tokens') delete v.tokens;
      if (scope === 'all' || scope === 'discovery') delete v.discovery;
    });
  }
}

/**
 * A run met a 403 asking for more scope and nobody can sign in now: the scope is kept in the server's
 * entry, so the next sign-in (`rein mcp login`) asks for it too.
 */
export async function rememberNeededScope(store: TokenStore, serverUrl: URL, scope: string | undefined): Promise<void> {
  const v = await store.read();
  if (!v || v.server_url !== serverUrl.href) return;
  const all = unionScopes(v.tokens?.scope, v.scope, scope);
  if (!all || all === v.scope) return;
  await store.write({ ...v, scope: all, saved_at: new Date().toISOString() });
}

/** A run's provider: stored tokens (refreshed when they can be), never a browser. */
export async function runProvider(
  serverUrl: URL,
  store: TokenStore,
  oauth?: McpServerSettings['oauth'],
): Promise<ReinOAuthProvider | undefined> {
  const v = await store.read();
  if (!v || v.server_url !== serverUrl.href || (!v.tokens && !oauth?.client_id)) return undefined;
  return new ReinOAuthProvider({
    serverUrl,
    store,
    redirectUrl: v.redirect_url ?? `http://127.0.0.1${CALLBACK_PATH}`,
    ...(oauth ? { oauth } : {}),
  });
}

export interface SignInOptions {
  serverUrl: URL;
  store: TokenStore;
  oauth?: McpServerSettings['oauth'];
  /** Shows the authorization URL to the person (opens their browser). */
  open: (url: URL) => Promise<void> | void;
  timeoutMs?: number;
  signal?: AbortSignal;
  fetchFn?: typeof fetch;
  /** Start from scratch even when stored tokens could be refreshed (rein mcp login). */
  fresh?: boolean;
  /**
   * The 401/403 that made this sign-in necessary, as the server sent it: its scope and resource metadata
   * are used as they are (instead of asking the server again). A 403 `insufficient_scope` is a step-up:
   * the stored tokens are not refreshed, and the scope asked for is the union of what was granted (or
   * asked for) before and what the server now requires.
   */
  challenge?: AuthChallenge;
  /** Rein's URL-based client ID (clientMetadata.ts); absent: dynamic registration (or oauth.client_id). */
  clientMetadataUrl?: string;
}

/**
 * Signs in to the server: discovery, registration when needed, the browser, the redirect, the code
 * exchange. Resolves once tokens are stored; throws a ReinError (`unavailable`) saying what failed.
 */
export async function signIn(o: SignInOptions): Promise<void> {
  const raw = await o.store.read().catch(() => undefined);
  const previous = raw?.server_url === o.serverUrl.href ? raw : undefined;
  const stepUp = isStepUp(o.challenge);
  if ((o.fresh || stepUp) && previous?.tokens) {
    const { tokens: _dropped, ...rest } = previous;
    await o.store.write(rest);
  }
  const lastPort = previous?.redirect_url ? Number(new URL(previous.redirect_url).port) || undefined : undefined;
  const receiver = await startRedirectReceiver(o.oauth?.redirect_port, o.oauth?.redirect_port ? undefined : lastPort);
  try {
    const provider = new ReinOAuthProvider({
      serverUrl: o.serverUrl,
      store: o.store,
      redirectUrl: receiver.url,
      open: o.open,
      ...(o.oauth ? { oauth: o.oauth } : {}),
      ...(o.clientMetadataUrl ? { clientMetadataUrl: o.clientMetadataUrl } : {}),
    });
    const challenge = o.challenge
      ? {
          ...(o.challenge.scope ? { scope: o.challenge.scope } : {}),
          ...(o.challenge.resourceMetadataUrl ? { resourceMetadataUrl: new URL(o.challenge.resourceMetadataUrl) } : {}),
        }
      : await probeChallenge(o.serverUrl, o.fetchFn);
    // A step-up keeps what was granted and adds what is required; any sign-in asks again for a scope a
    // server demanded since the last one (StoredOAuth.scope).
    const scope = stepUp
      ? unionScopes(previous?.tokens?.scope, previous?.scope, challenge.scope)
      : challenge.scope
        ? unionScopes(challenge.scope, previous?.scope)
        : unionScopes(o.oauth?.scope, previous?.scope);
    const opts = {
      serverUrl: o.serverUrl,
      ...(scope ? { scope } : {}),
      ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
      ...(o.fetchFn ? { fetchFn: o.fetchFn } : {}),
    };
    if (scope) await provider.rememberScope(scope);
    // The SDK's OAuth client, loaded by a sign-in only (docs/architecture.md, *Startup*).
    const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
    let result: 'AUTHORIZED' | 'REDIRECT';
    try {
      result = await auth(provider, opts);
    } catch (e) {
      throw new ReinError(
        'unavailable',
        `sign-in to ${o.serverUrl.href} failed before the browser step: ${errorMessage(e)}`,
        {},
        { cause: e },
      );
    }
    if (result === 'AUTHORIZED') return;
    const code = await receiver.code(() => provider.expectedState, o.timeoutMs ?? DEFAULT_SIGN_IN_TIMEOUT_MS, o.signal);
    try {
      result = await auth(provider, { ...opts, authorizationCode: code });
    } catch (e) {
      throw new ReinError(
        'unavailable',
        `sign-in to ${o.serverUrl.href}: the code could not be exchanged for tokens: ${errorMessage(e)}`,
        {},
        { cause: e },
      );
    }
    if (result !== 'AUTHORIZED') throw new ReinError('unavailable', `sign-in to ${o.serverUrl.href} did not complete`);
  } finally {
    await receiver.dispose();
  }
}

/** An `initialize` without any token (only `headers`): what the server answers before a sign-in. Its body is dropped. */
async function bareInitialize(
  serverUrl: URL,
  headers: Record<string, string>,
  fetchFn: typeof fetch,
): Promise<Response> {
  const { LATEST_PROTOCOL_VERSION } = await import('@modelcontextprotocol/sdk/types.js');
  const res = await fetchFn(serverUrl, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'rein', version: '0' },
      },
    }),
    signal: AbortSignal.timeout(15_000),
  });
  await res.body?.cancel().catch(() => undefined);
  return res;
}

/**
 * Does the server ask for a sign-in? It does when an `initialize` with the configured headers but no
 * token is refused with 401; any other answer means Rein gets in without OAuth. Throws a ReinError
 * (`unavailable`) when the server cannot be reached.
 */
export async function asksForSignIn(
  serverUrl: URL,
  headers: Record<string, string> = {},
  fetchFn: typeof fetch = fetch,
): Promise<{ asks: boolean; status: number }> {
  let res: Response;
  try {
    res = await bareInitialize(serverUrl, headers, fetchFn);
  } catch (e) {
    throw new ReinError('unavailable', `cannot reach ${serverUrl.href}: ${errorMessage(e)}`, {}, { cause: e });
  }
  return { asks: res.status === 401, status: res.status };
}

/** What the server's 401 says about where to authorise (RFC 9728 `resource_metadata`) and which scope. */
async function probeChallenge(
  serverUrl: URL,
  fetchFn: typeof fetch = fetch,
): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  try {
    const res = await bareInitialize(serverUrl, {}, fetchFn);
    if (res.status !== 401) return {};
    const { extractWWWAuthenticateParams } = await import('@modelcontextprotocol/sdk/client/auth.js');
    const p = extractWWWAuthenticateParams(res);
    return {
      ...(p.resourceMetadataUrl ? { resourceMetadataUrl: p.resourceMetadataUrl } : {}),
      ...(p.scope ? { scope: p.scope } : {}),
    };
  } catch {
    return {};
  }
}

interface RedirectReceiver extends AsyncDisposable {
  url: string;
  code(expectedState: () => string | undefined, timeoutMs: number, signal?: AbortSignal): Promise<string>;
  dispose(): Promise<void>;
}

const PAGE = (title: string, line: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font:16px system-ui;margin:3em"><h1>${title}</h1><p>${line}</p></body>`;

/** A one-shot HTTP listener on 127.0.0.1 for the authorization server's redirect. */
async function startRedirectReceiver(
  port: number | undefined,
  preferred: number | undefined,
): Promise<RedirectReceiver> {
  let deliver: ((q: URLSearchParams) => void) | undefined;
  const pending: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== CALLBACK_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const failed = url.searchParams.get('error');
    res
      .writeHead(failed ? 400 : 200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(
        failed
          ? PAGE('Sign-in failed', 'Rein was not authorised. You can close this window.')
          : PAGE('Signed in', 'Rein has the authorization. You can close this window.'),
      );
    if (deliver) deliver(url.searchParams);
    else pending.push(url.searchParams);
  });
  const listen = (p: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  try {
    await listen(port ?? preferred ?? 0);
  } catch (e) {
    if (port !== undefined)
      throw new ReinError(
        'unavailable',
        `cannot listen on 127.0.0.1:${port} for the sign-in redirect (oauth.redirect_port): ${errorMessage(e)}`,
      );
    await listen(0);
  }
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${CALLBACK_PATH}`;
  return {
    url,
    code(expectedState, timeoutMs, signal) {
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            finish(
              new ReinError('unavailable', `nobody completed the sign-in within ${Math.round(timeoutMs / 1000)} s`),
            ),
          timeoutMs,
        );
        const onAbort = () => finish(new ReinError('unavailable', 'the sign-in was cancelled'));
        signal?.addEventListener('abort', onAbort, { once: true });
        const finish = (result: Error | string) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          deliver = undefined;
          if (typeof result === 'string') resolve(result);
          else reject(result);
        };
        deliver = (q) => {
          const error = q.get('error');
          if (error)
            return finish(
              new ReinError(
                'unavailable',
                `the authorization server refused: ${error}${q.get('error_description') ? ` (${q.get('error_description')})` : ''}`,
              ),
            );
          const expected = expectedState();
          if (expected !== undefined && q.get('state') !== expected)
            return finish(
              new ReinError('unavailable', 'the sign-in redirect carried the wrong state; it was not this sign-in'),
            );
          const code = q.get('code');
          if (!code) return finish(new ReinError('unavailable', 'the sign-in redirect carried no code'));
          finish(code);
        };
        if (signal?.aborted) onAbort();
        const early = pending.shift();
        if (early) deliver(early);
      });
    },
    dispose: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
