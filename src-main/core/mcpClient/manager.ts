/**
 * An agent's MCP servers: one McpServerHandle (a tool provider with its supervisor) per configured
 * server, made from the agent's effective `mcp_servers` (the global servers, or the agent's own plus
 * the global ones marked `_inherit`). A long-lived process keeps one manager per agent in its
 * RuntimeCache, so the servers stay connected between runs and are stopped with the cache; `rein run`
 * makes one for its run and stops it when the run is over. Two agents never share a manager: agent A's
 * servers cannot reach agent B's runs.
 *
 * `ready()` waits for every enabled server's first attempt (each bounded by its connect timeout), so a
 * run that starts right after the manager is made sees the tools; later runs do not wait at all. The
 * prompt's MCP part (each server's `context` and the instructions the server sent) is rendered from
 * what is known then, sorted by server, so it is the same bytes while nothing changed.
 */
import type { McpServerStatus } from '../api/mcpStatus.js';
import type { Disposable } from '../base/lifecycle.js';
import { childEnvironment } from '../process/childEnv.js';
import type { ToolProvider } from '../tools/provider.js';
import type { AuthChallenge } from './challenge.js';
import { isUrlServer, resolveServer, type McpServerSettings, type ResolvedServer } from './config.js';
import { fileTokenStore, rememberNeededScope, runProvider, type TokenStore } from './oauth.js';
import { serverSlugs } from './names.js';
import { McpServerHandle, type ServerHandleOptions } from './server.js';
import type { Clock, SupervisorTiming } from './supervisor.js';

/** Characters of one server's instructions in the prompt. */
export const MAX_INSTRUCTIONS = 4_000;

export interface McpManagerOptions {
  servers: Readonly<Record<string, McpServerSettings>>;
  /** Rein's environment: servers start from it without Rein's credentials; headers read `${VAR}` from it. */
  env: NodeJS.ProcessEnv;
  /** REIN_HOME: OAuth tokens are under secrets/mcp-oauth/. */
  home: string;
  /** Working folder for stdio servers (default: Rein's). */
  cwd?: string;
  /** `tools.env_passthrough`: secret-looking variables a server may still see. */
  envPassthrough?: readonly string[];
  timing?: Partial<SupervisorTiming>;
  clock?: Clock;
  connection?: ServerHandleOptions['connection'];
  /** Where a server's OAuth tokens are kept (default: the 0600 file under secrets/mcp-oauth/). */
  tokenStore?: (server: string) => TokenStore;
  /**
   * A person can sign in again right now (the CLI): a call refused with 403 `insufficient_scope` signs in
   * with the larger scope and is tried once more. Without it (runs) the call fails saying so.
   */
  reauthorize?: (name: string, server: ResolvedServer, challenge: AuthChallenge) => Promise<void>;
}

export class McpManager implements Disposable {
  /** Where each server's OAuth tokens are kept. */
  readonly tokenStore: (server: string) => TokenStore;
  readonly #handles: McpServerHandle[];
  readonly #byName = new Map<string, McpServerHandle>();
  #ready: Promise<void> | undefined;
  #disposing: Promise<void> | undefined;

  constructor(o: McpManagerOptions) {
    const names = Object.keys(o.servers).sort();
    const slugs = serverSlugs(names);
    const baseEnv = childEnvironment(o.env, { passthrough: o.envPassthrough ?? [] });
    const store = o.tokenStore ?? ((name: string) => fileTokenStore(o.home, name));
    this.tokenStore = store;
    this.#handles = names.map((name) => {
      const cfg = o.servers[name]!;
      const resolution = resolveServer(name, cfg, o.env);
      const handle = new McpServerHandle({
        name,
        slug: slugs.get(name)!,
        type: cfg.type,
        resolution,
        disabled: cfg.disabled,
        baseEnv,
        ...(o.cwd ? { cwd: o.cwd } : {}),
        authProvider: (server) =>
          server.transport.kind === 'http'
            ? runProvider(server.transport.url, store(name), server.oauth)
            : Promise.resolve(undefined),
        signedIn: () => isUrlServer(cfg) && (store(name).exists?.() ?? false),
        ...(o.reauthorize
          ? { reauthorize: (server: ResolvedServer, c: AuthChallenge) => o.reauthorize!(name, server, c) }
          : {}),
        onScopeNeeded: (server, scope) =>
          server.transport.kind === 'http'
            ? rememberNeededScope(store(name), server.transport.url, scope)
            : Promise.resolve(),
        ...(o.timing ? { timing: o.timing } : {}),
        ...(o.clock ? { clock: o.clock } : {}),
        ...(o.connection ? { connection: o.connection } : {}),
      });
      this.#byName.set(name, handle);
      return handle;
    });
  }

  /** One provider per configured server (disabled ones give no tools), in name order. */
  get providers(): readonly ToolProvider[] {
    return this.#handles;
  }

  get servers(): readonly McpServerHandle[] {
    return this.#handles;
  }

  server(name: string): McpServerHandle | undefined {
    return this.#byName.get(name);
  }

  /** Starts every enabled server; resolves when each first attempt has settled (never rejects). */
  ready(): Promise<void> {
    this.#ready ??= Promise.all(this.#handles.map((h) => h.start())).then(() => undefined);
    return this.#ready;
  }

  /** `context` from the config, by server (enabled servers only). */
  context(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const h of this.#handles) if (h.enabled && h.server?.context) out[h.name] = h.server.context;
    return out;
  }

  /** What each connected server said in `initialize.instructions`, capped. */
  instructions(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const h of this.#handles) {
      const text = h.instructions;
      if (!h.enabled || !text) continue;
      out[h.name] = text.length <= MAX_INSTRUCTIONS ? text : `${text.slice(0, MAX_INSTRUCTIONS - 1)}…`;
    }
    return out;
  }

  /** Each server's `always_allow` list, for the permission engine. */
  alwaysAllow(): Record<string, readonly string[]> {
    const out: Record<string, readonly string[]> = {};
    for (const h of this.#handles) if (h.server && h.server.alwaysAllow.length > 0) out[h.name] = h.server.alwaysAllow;
    return out;
  }

  /** Servers an attended person should hear about at the start of a run (not connected, needing a sign-in). */
  problems(): string[] {
    const out: string[] = [];
    for (const h of this.#handles) {
      const s = h.status();
      if (
        s.state === 'disabled' ||
        s.state === 'healthy' ||
        s.state === 'degraded' ||
        s.state === 'connecting' ||
        s.state === 'idle'
      )
        continue;
      out.push(
        `MCP server ${h.name} is ${s.state}${s.sign_in_required ? ' (sign-in needed: rein mcp login ' + h.name + ')' : ''}${s.last_error ? `: ${s.last_error}` : ''}`,
      );
    }
    return out;
  }

  status(): McpServerStatus[] {
    return this.#handles.map((h) => h.status());
  }

  /**
   * The process (group) ids of the stdio servers connected now. For a process that exits without awaiting
   * `dispose` (`process.exit`): it can still signal them on its way out.
   */
  pids(): number[] {
    const out: number[] = [];
    for (const h of this.#handles) {
      const pid = h.connection?.pid;
      if (pid !== undefined) out.push(pid);
    }
    return out;
  }

  dispose(): Promise<void> {
    this.#disposing ??= Promise.all(this.#handles.map((h) => h.dispose())).then(() => undefined);
    return this.#disposing;
  }
}

/**
 * The servers of a config as they stand before this process has started them: `idle` (or `disabled`,
 * or `disconnected` with the config's problem), no tools known yet.
 */
export function configuredStatus(
  home: string,
  servers: Readonly<Record<string, McpServerSettings>>,
  env: NodeJS.ProcessEnv,
  tokenStore: (server: string) => TokenStore = (server) => fileTokenStore(home, server),
): McpServerStatus[] {
  const epoch = new Date(0).toISOString();
  return Object.keys(servers)
    .sort()
    .map((name) => {
      const cfg = servers[name]!;
      const resolution = resolveServer(name, cfg, env);
      const base = {
        name,
        type: cfg.type,
        since: epoch,
        tools: 0,
        tool_names: [],
        sign_in_required: false,
        signed_in: isUrlServer(cfg) && (tokenStore(name).exists?.() ?? false),
      };
      if (cfg.disabled) return { ...base, state: 'disabled' as const };
      if (!resolution.ok) return { ...base, state: 'disconnected' as const, last_error: resolution.error };
      return { ...base, state: 'idle' as const };
    });
}
