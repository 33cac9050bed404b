/**
 * The settings a named agent actually runs with: its config.yaml laid over the global config. Pure (no
 * files, no clock, no environment), so the rules below are pinned by table tests.
 *
 * - scalars (model, limits, mode, budget, auto_approve): the agent's value when set, else the global one;
 * - lists replace the global list when the agent sets them, except where safety must never loosen:
 *   `tools.denied`, `permissions.denied_commands` and `permissions.sensitive_patterns` are the global
 *   list plus the agent's (duplicates dropped), so an agent can add restrictions but never lift one;
 * - `permissions.always_allow_tools` and `permissions.grants` are the agent's own lists only: a grant
 *   given to one agent is never a grant for another;
 * - `tools.allowed` replaces, and denied always wins over allowed (the registry applies denied last);
 * - `mcp_servers`: absent in the agent = every global server; present = the agent's servers plus the
 *   global servers marked `_inherit: true` (an agent server of the same name replaces the global one);
 * - everything an agent cannot set (hooks, daemon, cloud, prices, allowed_dirs, …) is the global value.
 *
 * docs/agents.md states the same rules for users; change both together.
 */
import type { GlobalConfig, PermissionMode } from '../config/schema.js';
import type { AgentConfig } from './agentConfig.js';
import { parseDailyWindow, parseDuration, type DailyWindow } from './duration.js';

type McpServer = GlobalConfig['mcp_servers'][string];
type Permissions = GlobalConfig['permissions'];

/** Quiet time before a batch of file changes starts a watch run, when the entry sets none. */
export const DEFAULT_WATCH_DEBOUNCE_MS = 2_000;

export interface EffectiveHeartbeat {
  everyMs: number;
  /** Absent: active all day. */
  activeHours?: DailyWindow;
  /** The model id heartbeat runs use (`small` already resolved to the small model). */
  model: string;
  overlapPrevention: boolean;
  /** heartbeat.pause_when_idle: beats stop once nobody has written to the agent for this long. */
  pauseWhenIdleMs?: number;
}

export interface EffectiveWatch {
  /** As written (`~/…` or absolute); resolveAgentRuntimeConfig expands `~`. */
  path: string;
  glob?: string;
  debounceMs: number;
  prompt?: string;
}

export interface EffectiveConfig {
  /**
   * The global config with the agent's overrides applied, in the global shape, so everything that
   * already takes a GlobalConfig (runtime, permission engine, MCP manager) takes this unchanged.
   */
  config: GlobalConfig;
  model: string;
  smallModel: string;
  /** Absent: the default of the run's origin (core/permissions/runPolicy.ts). */
  maxIterations: number | undefined;
  unattendedApprovals: 'deny' | 'ask';
  maxTokens: number;
  contextWindow: number;
  mode: PermissionMode;
  /** Skip approval questions (hard blocks and denied commands still hold). */
  autoApprove: boolean;
  maxUsdPerRun: number;
  /** Empty `allowed` = every tool; `denied` is applied after `allowed`, so it always wins. */
  tools: { allowed: string[]; denied: string[] };
  mcpServers: Record<string, McpServer>;
  permissions: Permissions;
  /** Absent when the agent has no heartbeat block. */
  heartbeat?: EffectiveHeartbeat;
  watch: EffectiveWatch[];
  /** The agent's working folder as written (`~/…` or absolute), when it sets one. */
  cwd?: string;
}

export function mergeAgentConfig(global: GlobalConfig, agent: AgentConfig): EffectiveConfig {
  // A deep copy: the result must share no arrays or objects with either input.
  const base = structuredClone(global);
  const mode = agent.mode ?? base.permissions.mode;
  const permissions: Permissions = {
    ...base.permissions,
    mode,
    allowed_commands: replaceList(base.permissions.allowed_commands, agent.permissions?.allowed_commands),
    denied_commands: appendUnique(base.permissions.denied_commands, agent.permissions?.denied_commands),
    sensitive_patterns: appendUnique(base.permissions.sensitive_patterns, agent.permissions?.sensitive_patterns),
    network_allowlist: replaceList(base.permissions.network_allowlist, agent.permissions?.network_allowlist),
    gui_unattended: replaceList(base.permissions.gui_unattended, agent.permissions?.gui_unattended),
    always_allow_tools: [...(agent.permissions?.always_allow_tools ?? [])],
    grants: structuredClone(agent.permissions?.grants ?? []),
  };
  const tools = {
    ...base.tools,
    allowed: replaceList(base.tools.allowed, agent.tools?.allowed),
    denied: appendUnique(base.tools.denied, agent.tools?.denied),
  };
  const config: GlobalConfig = {
    ...base,
    model: agent.model ?? base.model,
    small_model: agent.small_model ?? base.small_model,
    max_iterations: agent.max_iterations ?? base.max_iterations,
    unattended_approvals: agent.unattended_approvals ?? base.unattended_approvals,
    max_tokens: agent.max_tokens ?? base.max_tokens,
    context_window: agent.context_window ?? base.context_window,
    budget: { ...base.budget, max_usd_per_run: agent.budget?.max_usd_per_run ?? base.budget.max_usd_per_run },
    tools,
    permissions,
    mcp_servers: mergeMcpServers(base.mcp_servers, agent.mcp_servers),
  };

  const heartbeat = agent.heartbeat ? effectiveHeartbeat(agent.heartbeat, config) : undefined;
  return {
    config,
    model: config.model,
    smallModel: config.small_model,
    maxIterations: config.max_iterations,
    unattendedApprovals: config.unattended_approvals,
    maxTokens: config.max_tokens,
    contextWindow: config.context_window,
    mode,
    autoApprove: agent.auto_approve ?? false,
    maxUsdPerRun: config.budget.max_usd_per_run,
    tools: { allowed: [...tools.allowed], denied: [...tools.denied] },
    mcpServers: structuredClone(config.mcp_servers),
    permissions: structuredClone(permissions),
    ...(heartbeat ? { heartbeat } : {}),
    watch: (agent.watch ?? []).map((w) => ({
      path: w.path,
      ...(w.glob !== undefined ? { glob: w.glob } : {}),
      debounceMs: w.debounce === undefined ? DEFAULT_WATCH_DEBOUNCE_MS : toMs(w.debounce),
      ...(w.prompt !== undefined ? { prompt: w.prompt } : {}),
    })),
    ...(agent.cwd !== undefined ? { cwd: agent.cwd } : {}),
  };
}

function replaceList(global: readonly string[], agent: readonly string[] | undefined): string[] {
  return [...(agent ?? global)];
}

function appendUnique(global: readonly string[], agent: readonly string[] | undefined): string[] {
  return [...new Set([...global, ...(agent ?? [])])];
}

function mergeMcpServers(
  global: Record<string, McpServer>,
  agent: Record<string, McpServer> | undefined,
): Record<string, McpServer> {
  if (agent === undefined) return global;
  const out: Record<string, McpServer> = {};
  for (const [name, server] of Object.entries(global)) if (server._inherit === true) setOwn(out, name, server);
  for (const [name, server] of Object.entries(agent)) setOwn(out, name, structuredClone(server));
  return out;
}

function effectiveHeartbeat(hb: NonNullable<AgentConfig['heartbeat']>, config: GlobalConfig): EffectiveHeartbeat {
  return {
    everyMs: toMs(hb.every),
    ...(hb.active_hours !== undefined ? { activeHours: toWindow(hb.active_hours) } : {}),
    model: hb.model === undefined ? config.model : hb.model === 'small' ? config.small_model : hb.model,
    overlapPrevention: hb.overlap_prevention ?? true,
    ...(hb.pause_when_idle !== undefined ? { pauseWhenIdleMs: toMs(hb.pause_when_idle) } : {}),
  };
}

/** Values here already passed the schema, so a parse failure would be a bug in it, not in the file. */
function toMs(value: string | number): number {
  if (typeof value === 'number') return value;
  const parsed = parseDuration(value);
  if (!parsed.ok) throw new Error(`internal: unvalidated duration reached the merge: ${parsed.error}`);
  return parsed.value;
}

function toWindow(value: string): DailyWindow {
  const parsed = parseDailyWindow(value);
  if (!parsed.ok) throw new Error(`internal: unvalidated time window reached the merge: ${parsed.error}`);
  return parsed.value;
}

/** `mcp_servers` is a user-named table: a server called `__proto__` must stay an ordinary key. */
function setOwn(target: Record<string, McpServer>, key: string, value: McpServer): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
