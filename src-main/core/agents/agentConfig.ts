/**
 * The schema of an agent's own `agents/<name>/config.yaml`. Every key is optional and nothing gets a
 * default here: "absent" must stay distinguishable from "set", because an absent key inherits the
 * global value when the two are merged (see mergeAgentConfig.ts). Unknown keys are errors, so a typo
 * never silently does nothing.
 */
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { GrantEntry, McpServerConfig, PermissionMode } from '../config/schema.js';
import { parseDailyWindow, parseDuration } from './duration.js';

/** The heartbeat runs at most once a minute: a faster period would only burn tokens. */
export const MIN_HEARTBEAT_MS = 60_000;
export const MAX_HEARTBEAT_MS = 7 * 86_400_000;
export const MAX_DEBOUNCE_MS = 3_600_000;

/** A duration string checked to lie within [min, max] milliseconds. */
function durationString(min: number, max: number, minText: string, maxText: string) {
  return z.string().superRefine((text, ctx) => {
    const parsed = parseDuration(text);
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
    else if (parsed.value < min)
      ctx.addIssue({ code: 'custom', message: `"${text}" is shorter than the minimum ${minText}` });
    else if (parsed.value > max)
      ctx.addIssue({ code: 'custom', message: `"${text}" is longer than the maximum ${maxText}` });
  });
}

const DailyWindowString = z.string().superRefine((text, ctx) => {
  const parsed = parseDailyWindow(text);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
});

/** `~`, `~/x` or an absolute path: a relative path would depend on where Rein happened to start. */
const PathString = z
  .string()
  .min(1)
  .refine((p) => p === '~' || p.startsWith('~/') || isAbsolute(p), {
    message: 'must be an absolute path or start with ~/',
  });

/** Same rule as the tool registry, so a name that could never match a tool is caught here. */
const ToolName = z
  .string()
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, { message: 'not a tool name (letters, digits, _ and -, at most 64)' });
const NonEmptyStrings = z.array(z.string().min(1));

/**
 * Same shape as a global server, except `_inherit`: that flag marks a *global* server to keep for every
 * agent, and an agent's own servers are always used, so in an agent file it could only mislead.
 */
const AgentMcpServer = McpServerConfig.extend({
  _inherit: z
    .custom<never>(() => false, {
      message:
        '_inherit belongs in the global config.yaml (it marks a global server every agent keeps); an agent always uses its own servers',
    })
    .optional(),
});

export const AgentHeartbeatConfig = z.strictObject({
  /** How often the heartbeat runs. */
  every: durationString(MIN_HEARTBEAT_MS, MAX_HEARTBEAT_MS, '1m', '7d'),
  /** Local-time window the heartbeat runs in (`09:00-18:00`; `22:00-06:00` crosses midnight); absent = all day. */
  active_hours: DailyWindowString.optional(),
  /** Model id for heartbeat runs, or `small` for the effective small_model; absent = the agent's model. */
  model: z.string().min(1).optional(),
  /** Skip a beat while the previous one is still running (default true). */
  overlap_prevention: z.boolean().optional(),
  /** What the heartbeat may spend in one local day, in US dollars (default 1.00; 0 turns the cap off). */
  max_usd_per_day: z.number().nonnegative().optional(),
  /** Skip beats once nobody has written to the agent for this long (`7d`); absent = beat regardless. */
  pause_when_idle: durationString(3_600_000, 365 * 86_400_000, '1h', '365d').optional(),
});

export const AgentWatchEntry = z.strictObject({
  /** Folder to watch (recursively): absolute or `~/…`. */
  path: PathString,
  /** Glob matched against the changed file's name; absent = every file. */
  glob: z.string().min(1).optional(),
  /** Quiet time before a batch of changes starts a run: a duration (`2s`) or milliseconds (`2000`). */
  debounce: z
    .union([z.number().int().nonnegative().max(MAX_DEBOUNCE_MS), durationString(0, MAX_DEBOUNCE_MS, '0ms', '1h')])
    .optional(),
  /** Instructions for the run the changes start; the list of changed files is appended. */
  prompt: z.string().min(1).optional(),
});

export const AgentConfig = z.strictObject({
  model: z.string().min(1).optional(),
  small_model: z.string().min(1).optional(),
  max_iterations: z.number().int().positive().max(1000).optional(),
  /** deny (default): an unattended run's call that needs approval is refused at once; ask: sent to the desktop app or web UI when one is connected. */
  unattended_approvals: z.enum(['deny', 'ask']).optional(),
  max_tokens: z.number().int().positive().max(200_000).optional(),
  context_window: z.number().int().positive().optional(),
  mode: PermissionMode.optional(),
  /** Skip approval questions for this agent (hard blocks and denied commands still hold). */
  auto_approve: z.boolean().optional(),
  tools: z
    .strictObject({
      allowed: z.array(ToolName).optional(),
      denied: z.array(ToolName).optional(),
    })
    .optional(),
  mcp_servers: z.record(z.string().min(1), AgentMcpServer).optional(),
  permissions: z
    .strictObject({
      allowed_commands: NonEmptyStrings.optional(),
      denied_commands: NonEmptyStrings.optional(),
      always_allow_tools: z.array(ToolName).optional(),
      /** What "Always allow" saved for this agent (config/schema.ts GrantEntry); the agent's own only. */
      grants: z.array(GrantEntry).max(2_000).optional(),
      gui_unattended: z.array(ToolName).optional(),
      network_allowlist: NonEmptyStrings.optional(),
      sensitive_patterns: NonEmptyStrings.optional(),
    })
    .optional(),
  budget: z
    .strictObject({
      /** Spending cap per run in US dollars; 0 disables it. */
      max_usd_per_run: z.number().nonnegative().optional(),
    })
    .optional(),
  heartbeat: AgentHeartbeatConfig.optional(),
  watch: z.array(AgentWatchEntry).optional(),
  /** Working folder for this agent's runs when the caller names none: absolute or `~/…`. */
  cwd: PathString.optional(),
});
export type AgentConfig = z.infer<typeof AgentConfig>;
export type AgentHeartbeatConfig = z.infer<typeof AgentHeartbeatConfig>;
export type AgentWatchEntry = z.infer<typeof AgentWatchEntry>;
