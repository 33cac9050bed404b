/**
 * The agent's MCP servers for one runtime: the cache's manager (kept connected between runs), one made
 * for the run and stopped when it ends (`rein run`), or none; and the wait for their first attempt,
 * which a stop ends at once.
 */
import { ReinError } from '../errors.js';
import type { GlobalConfig } from '../config/schema.js';
import type { AgentRuntimeConfig } from '../agents/index.js';
import type { McpManager } from '../mcpClient/manager.js';
import type { Runtime, RuntimeMcp, RuntimeOptions } from './types.js';

/** `work`, or a `llm_cancelled` error as soon as `signal` aborts (the work itself goes on: its owner stops it). */
export async function untilStopped<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  const stopped = () => new ReinError('llm_cancelled', 'the run was stopped before it started');
  if (signal.aborted) throw stopped();
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) =>
        signal.addEventListener('abort', (onAbort = () => reject(stopped())), { once: true }),
      ),
    ]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Stops what the runtime started for its one run (MCP servers of its own: `rein run`); a runtime on a
 * cache shares the cache's and stops nothing. Resolves once those servers' processes are gone; safe to
 * call again, and after the run's events have stopped them already.
 */
export async function closeRuntime(rt: Runtime): Promise<void> {
  if (rt.mcp?.owned) await rt.mcp.manager.dispose();
}

/** The run's MCP manager: the cache's for the agent, one of its own (`mcp: true` without a cache), or none. */
export async function mcpFor(
  opts: RuntimeOptions,
  rc: AgentRuntimeConfig,
  owned: McpManager[],
): Promise<RuntimeMcp | undefined> {
  const servers = rc.effective.mcpServers;
  if (Object.keys(servers).length === 0) return undefined;
  // The cache's is made the same way, with the cache's token store (the desktop app's key store).
  if (opts.cache && opts.mcp !== false)
    return {
      manager: opts.cache.agentMcp(opts.home, rc, opts.env, opts.cwd),
      owned: false,
      context: {},
      instructions: {},
    };
  if (opts.cache || opts.mcp !== true) return undefined;
  // Loaded only for an agent with MCP servers (docs/architecture.md, *Startup*).
  const { McpManager } = await import('../mcpClient/manager.js');
  // Stdio servers start in the agent's folder when it names one, else in the run's (`rein run`) or the process's.
  const manager = new McpManager({
    servers,
    env: opts.env,
    home: opts.home,
    cwd: rc.cwd ?? opts.cwd,
    envPassthrough: rc.effective.config.tools.env_passthrough,
  });
  owned.push(manager);
  return { manager, owned: true, context: {}, instructions: {} };
}

/** Each MCP server's `always_allow` list, from the effective config (the engine is kept per config). */
export function mcpAlwaysAllow(config: GlobalConfig): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, server] of Object.entries(config.mcp_servers))
    if (server.always_allow && server.always_allow.length > 0) out[name] = [...server.always_allow];
  return out;
}
