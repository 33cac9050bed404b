/**
 * One `mcp_servers.<name>` entry made ready to connect: its transport (a program to start, or a URL),
 * timeouts with their defaults, the allow-list and the prompt context. An entry that cannot work (a
 * stdio server without `command`, an http server without a valid URL) resolves to a problem instead: the
 * server is listed as failed with that message, the other servers go on.
 *
 * Headers may name environment variables (`Authorization: Bearer ${GITHUB_TOKEN}`) so a token need not
 * be written into config.yaml; a variable that is not set is a problem, never an empty header.
 */
import type { GlobalConfig } from '../config/schema.js';
import { canonicalJson } from '../util/canonicalJson.js';

export type McpServerSettings = GlobalConfig['mcp_servers'][string];

export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 300_000;
/** `keep_alive: false`: a connection unused this long is closed (the server's process stops). */
export const IDLE_CLOSE_MS = 5 * 60_000;

export type McpTransportSpec =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  /** `via: 'sse'` (`type: sse`): the legacy HTTP+SSE transport only; else Streamable HTTP, falling back to it. */
  | { kind: 'http'; url: URL; headers: Record<string, string>; via?: 'sse' };

export interface ResolvedServer {
  name: string;
  transport: McpTransportSpec;
  connectTimeoutMs: number;
  toolTimeoutMs: number;
  /** Tool names (the server's own, or the registry's `mcp__…`) that run without asking. */
  alwaysAllow: readonly string[];
  context?: string;
  oauth?: NonNullable<McpServerSettings['oauth']>;
  /** `keep_alive: false`: close the connection after this long without a call; absent = keep it open. */
  idleCloseMs?: number;
}

export type ServerResolution = { ok: true; server: ResolvedServer } | { ok: false; error: string };

const ENV_REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function resolveServer(name: string, cfg: McpServerSettings, env: NodeJS.ProcessEnv): ServerResolution {
  const where = `mcp_servers.${name}`;
  const common = {
    name,
    connectTimeoutMs:
      cfg.connect_timeout_seconds !== undefined
        ? Math.round(cfg.connect_timeout_seconds * 1000)
        : DEFAULT_CONNECT_TIMEOUT_MS,
    toolTimeoutMs:
      cfg.tool_timeout_seconds !== undefined ? Math.round(cfg.tool_timeout_seconds * 1000) : DEFAULT_TOOL_TIMEOUT_MS,
    alwaysAllow: [...(cfg.always_allow ?? [])],
    ...(cfg.context !== undefined && cfg.context.trim() !== '' ? { context: cfg.context } : {}),
    ...(cfg.oauth ? { oauth: cfg.oauth } : {}),
    ...(cfg.keep_alive === false ? { idleCloseMs: IDLE_CLOSE_MS } : {}),
  };
  if (cfg.type === 'http' || cfg.type === 'sse') {
    if (!cfg.url) return { ok: false, error: `${where}: type ${cfg.type} needs a url` };
    let url: URL;
    try {
      url = new URL(cfg.url);
    } catch {
      return { ok: false, error: `${where}.url: not a URL: ${cfg.url}` };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return { ok: false, error: `${where}.url: must be http or https, not ${url.protocol}` };
    const headers: Record<string, string> = {};
    for (const [key, raw] of Object.entries(cfg.headers ?? {})) {
      const missing: string[] = [];
      const value = raw.replace(ENV_REF, (_, v: string) => {
        const got = env[v];
        if (got === undefined) missing.push(v);
        return got ?? '';
      });
      if (missing.length > 0)
        return { ok: false, error: `${where}.headers.${key}: environment variable ${missing.join(', ')} is not set` };
      headers[key] = value;
    }
    return {
      ok: true,
      server: {
        ...common,
        transport: { kind: 'http', url, headers, ...(cfg.type === 'sse' ? { via: 'sse' as const } : {}) },
      },
    };
  }
  if (!cfg.command || cfg.command.trim() === '')
    return { ok: false, error: `${where}: a stdio server needs a command (or set type: http and a url)` };
  if (cfg.headers && Object.keys(cfg.headers).length > 0)
    return { ok: false, error: `${where}.headers: only http servers take headers` };
  return {
    ok: true,
    server: { ...common, transport: { kind: 'stdio', command: cfg.command, args: [...cfg.args], env: { ...cfg.env } } },
  };
}

/** The transport family of a config entry: `sse` servers are HTTP servers (status, sign-in). */
export const isUrlServer = (cfg: Pick<McpServerSettings, 'type'>): boolean => cfg.type === 'http' || cfg.type === 'sse';

/**
 * The name an ad-hoc URL (`rein mcp tools|call <URL>`) goes by in messages and tool names: its host, with
 * the port when it has one (`mcp.example.com`, `127.0.0.1:3001`); the caller uses a configured server's
 * own name instead when one has this URL.
 */
export function urlServerName(url: URL): string {
  return url.port ? `${url.hostname}:${url.port}` : url.hostname;
}

/** What identifies a server's connection: a change to any of it means a new connection. */
export function serverSignature(cfg: McpServerSettings): string {
  return canonicalJson(cfg);
}
