/**
 * The app's view of each agent's MCP servers: their status (GET /mcp/servers), connecting one now
 * (mcpReconnect) and signing in to one (mcpLogin). The servers themselves are the agents' managers in
 * the RuntimeCache, the very ones runs use, so a server connected or signed in here is connected for
 * the agent's next run, and a run's servers show here as they are.
 *
 * A sign-in is a person's act in the app, so it may open a browser (a run never does): the
 * authorization page goes to the injected opener (the desktop app: `shell.openExternal`; the daemon:
 * the browser opener honouring $BROWSER), and the answer comes as soon as the page is on its way, with
 * its URL for a person whose browser did not open. The rest (the redirect to 127.0.0.1, the code
 * exchange) goes on here; the server's status says how it went (`sign_in`), and on success every
 * agent's manager that has the server connects again with the new tokens.
 */
import type { McpLoginResult, McpReconnectResult, McpServersResult, McpServerStatus } from '../api/mcpStatus.js';
import { agentExists, listAgents, type AgentRuntimeConfig } from '../agents/index.js';
import type { Disposable } from '../base/lifecycle.js';
import { DEFAULT_AGENT } from '../config/paths.js';
import type { GlobalConfig } from '../config/schema.js';
import { ReinError, errorMessage, fieldError } from '../errors.js';
import { browserOpener } from '../mcpClient/browser.js';
import { clientMetadataUrl } from '../mcpClient/clientMetadata.js';
import { resolveServer, type McpServerSettings } from '../mcpClient/config.js';
import {
  asksForSignIn,
  DEFAULT_SIGN_IN_TIMEOUT_MS,
  fileTokenStore,
  signIn,
  type TokenStore,
} from '../mcpClient/oauth.js';
import type { RuntimeCache } from '../runtime/runtimeCache.js';

export type UrlOpener = (url: URL) => Promise<void> | void;

export interface McpServersOptions {
  home: string;
  /** Working folder of stdio servers whose agent names none. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  cache: RuntimeCache;
  /** The global config as the files say now (service/liveConfig.ts): servers added or removed there show at once. */
  config: () => Promise<GlobalConfig>;
  /** Shows a sign-in page to the person (default: their browser, $BROWSER first). */
  open?: UrlOpener;
  warn: (message: string) => void;
  signInTimeoutMs?: number;
  /** A sign-in's state changed (it failed; success shows as the server connecting): the panels look again. */
  changed?: (agent: string, server: string, state: string) => void;
}

interface SignInState {
  state: 'waiting' | 'failed';
  startedAt: string;
  url?: string;
  error?: string;
  abort: AbortController;
}

export class McpServers implements Disposable {
  readonly #o: McpServersOptions;
  readonly #open: UrlOpener;
  /** Sign-ins started here, by agent and server: waiting for the browser, or the last failure. */
  readonly #signIns = new Map<string, SignInState>();

  constructor(o: McpServersOptions) {
    this.#o = o;
    this.#open = o.open ?? browserOpener(o.env, { write: (text: string) => o.warn(text.trimEnd()) });
  }

  /**
   * Each agent's servers (one agent with `agent`). Servers no run of this process has used yet are
   * `idle`; nothing is started by asking. An agent whose config does not load is listed with no servers.
   */
  async list(input: { agent?: string } = {}): Promise<McpServersResult> {
    if (input.agent !== undefined) await this.#checkAgent(input.agent);
    // A config.yaml that does not load is the answer (config_invalid), not an empty list per agent.
    await this.#o.config();
    const names = input.agent !== undefined ? [input.agent] : [DEFAULT_AGENT, ...(await listAgents(this.#o.home))];
    const agents = await Promise.all(
      names.map(async (agent) => {
        try {
          const rc = await this.#rc(agent);
          return {
            agent,
            servers: this.#o.cache.mcpStatus(this.#o.home, rc, this.#o.env).map((s) => this.#withSignIn(agent, s)),
          };
        } catch (e) {
          this.#o.warn(`mcp servers of ${agent}: ${errorMessage(e)}`);
          return { agent, servers: [] };
        }
      }),
    );
    return { agents };
  }

  /** Connects the server now (an idle, disconnected or dormant one too); a failed attempt is its state, not an error. */
  async reconnect(input: { agent?: string; name: string }): Promise<McpReconnectResult> {
    const agent = input.agent ?? DEFAULT_AGENT;
    const { rc, cfg } = await this.#server(agent, input.name);
    if (cfg.disabled)
      throw fieldError(
        'invalid_input',
        `MCP server ${input.name} is disabled (disabled: true in its config); enable it first`,
        'name',
      );
    const handle = this.#o.cache.agentMcp(this.#o.home, rc, this.#o.env, this.#o.cwd).server(input.name)!;
    await handle.ensure().catch(() => undefined);
    return { agent, server: this.#withSignIn(agent, handle.status()) };
  }

  /**
   * Starts the OAuth sign-in of an http server and hands its authorization page to the opener.
   * Refused, before anything is opened, for an unknown server, a stdio server, a server whose config
   * cannot be used, and a server that lets Rein in without signing in.
   */
  async login(input: { agent?: string; name: string }): Promise<McpLoginResult> {
    const agent = input.agent ?? DEFAULT_AGENT;
    const name = input.name;
    const { cfg } = await this.#server(agent, name);
    if (cfg.type === 'stdio') {
      throw fieldError(
        'invalid_input',
        `MCP server ${name} is a stdio server: there is nothing to sign in to (its credentials go in its env)`,
        'name',
      );
    }
    const resolution = resolveServer(name, cfg, this.#o.env);
    if (!resolution.ok)
      throw fieldError('invalid_input', `MCP server ${name} cannot be used: ${resolution.error}`, 'name');
    const server = resolution.server;
    if (server.transport.kind !== 'http') throw new ReinError('internal', `MCP server ${name} has no URL`);
    const url = server.transport.url;
    const asked = await asksForSignIn(url, server.transport.headers);
    if (!asked.asks) {
      throw fieldError(
        'invalid_input',
        `MCP server ${name} does not ask for a sign-in: ${url.origin} answered HTTP ${asked.status} without one`,
        'name',
      );
    }

    // Rein's URL-based client ID, as at the command line: REIN_MCP_CLIENT_METADATA_URL, else the global
    // config's mcp.client_metadata_url, else the release default (a malformed one refuses the sign-in,
    // naming where it came from, before any page opens).
    const metadataUrl = clientMetadataUrl(this.#o.env, (await this.#o.config()).mcp?.client_metadata_url);

    const key = keyOf(agent, name);
    this.#signIns.get(key)?.abort.abort(new Error('a new sign-in was started'));
    const entry: SignInState = { state: 'waiting', startedAt: new Date().toISOString(), abort: new AbortController() };
    this.#signIns.set(key, entry);
    const current = () => this.#signIns.get(key) === entry;

    let pageOpened!: (url: URL) => void;
    const opened = new Promise<URL>((resolve) => (pageOpened = resolve));
    const flow = signIn({
      serverUrl: url,
      store: this.#store(name),
      ...(server.oauth ? { oauth: server.oauth } : {}),
      ...(metadataUrl ? { clientMetadataUrl: metadataUrl } : {}),
      fresh: true,
      signal: entry.abort.signal,
      timeoutMs: this.#o.signInTimeoutMs ?? DEFAULT_SIGN_IN_TIMEOUT_MS,
      open: async (page) => {
        entry.url = page.href;
        pageOpened(page);
        // A browser that does not open is no failure: the person has the page's address.
        try {
          await this.#open(page);
        } catch (e) {
          this.#o.warn(
            `MCP server ${name}: the sign-in page could not be opened (${errorMessage(e)}); open ${page.href}`,
          );
        }
      },
    });
    flow.then(
      () => {
        if (current()) this.#signIns.delete(key);
        void this.#connectSignedIn(agent, name, url);
      },
      (e: unknown) => {
        if (!current()) return;
        entry.state = 'failed';
        entry.error = errorMessage(e);
        delete entry.url;
        this.#o.changed?.(agent, name, 'sign_in_failed');
      },
    );
    let first: { page: URL } | { done: true };
    try {
      first = await Promise.race([opened.then((page) => ({ page })), flow.then(() => ({ done: true as const }))]);
    } catch (e) {
      // Failed before any page was opened: the caller hears it, the status does not repeat it.
      if (current()) this.#signIns.delete(key);
      throw e;
    }
    if ('done' in first) return { agent, name, state: 'signed_in', message: `Signed in to ${name}.` };
    return {
      agent,
      name,
      state: 'waiting',
      authorization_url: first.page.href,
      message: `Sign in to ${name} in your browser. If no browser window opened, open the authorization page.`,
    };
  }

  /** Pending sign-ins end (their loopback listeners close). */
  dispose(): void {
    for (const s of this.#signIns.values()) s.abort.abort(new Error('Rein is shutting down'));
    this.#signIns.clear();
  }

  /** After a sign-in: the agent's server connects, and every other agent's with the same server and URL. */
  async #connectSignedIn(agent: string, name: string, url: URL): Promise<void> {
    try {
      const { rc } = await this.#server(agent, name);
      this.#o.cache.agentMcp(this.#o.home, rc, this.#o.env, this.#o.cwd);
    } catch (e) {
      this.#o.warn(`MCP server ${name}: signed in, but ${errorMessage(e)}`);
    }
    for (const { manager } of this.#o.cache.mcpManagers()) {
      const handle = manager.server(name);
      if (handle?.server?.transport.kind !== 'http' || handle.server.transport.url.href !== url.href) continue;
      void handle.ensure().catch(() => undefined);
    }
  }

  #withSignIn(agent: string, status: McpServerStatus): McpServerStatus {
    const key = keyOf(agent, status.name);
    const s = this.#signIns.get(key);
    if (!s) return status;
    // A server that connected since needs no word about a sign-in that failed before.
    if (s.state === 'failed' && (status.state === 'healthy' || status.state === 'degraded')) {
      this.#signIns.delete(key);
      return status;
    }
    return {
      ...status,
      sign_in: {
        state: s.state,
        started_at: s.startedAt,
        ...(s.url ? { authorization_url: s.url } : {}),
        ...(s.error ? { error: s.error } : {}),
      },
    };
  }

  #store(server: string): TokenStore {
    return this.#o.cache.mcpTokenStores?.(this.#o.home, server) ?? fileTokenStore(this.#o.home, server);
  }

  async #checkAgent(agent: string): Promise<void> {
    if (agent !== DEFAULT_AGENT && !(await agentExists(this.#o.home, agent)))
      throw new ReinError('agent_not_found', `no agent named "${agent}"`);
  }

  async #rc(agent: string): Promise<AgentRuntimeConfig> {
    return this.#o.cache.agentConfig(this.#o.home, await this.#o.config(), agent);
  }

  /** The agent's resolved config and the named server's settings; unknown agent or server is an error. */
  async #server(agent: string, name: string): Promise<{ rc: AgentRuntimeConfig; cfg: McpServerSettings }> {
    await this.#checkAgent(agent);
    const rc = await this.#rc(agent);
    const servers = rc.effective.mcpServers;
    if (!Object.hasOwn(servers, name)) {
      const names = Object.keys(servers).sort();
      throw fieldError(
        'not_found',
        `no MCP server "${name}" for agent ${agent}${names.length > 0 ? ` (it has: ${names.join(', ')})` : ' (it has none: rein mcp add NAME --command … | --url …)'}`,
        'name',
      );
    }
    return { rc, cfg: servers[name]! };
  }
}

const keyOf = (agent: string, server: string) => `${agent}\0${server}`;
