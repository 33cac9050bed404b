/**
 * The global `config.yaml` (and the project overlay `./.rein/config.yaml`). Every key is optional in
 * the file; defaults live here, in one place. Unknown keys are errors, so a typo never silently does
 * nothing.
 */
import { z } from 'zod';

import { PermissionMode } from '../api/patterns.js';

export { PermissionMode };

const HookEntry = z.strictObject({
  /** Tool-name pattern (exact, `*` glob, or `a|b`); empty or absent = every tool. */
  matcher: z.string().optional(),
  command: z.string().min(1),
  timeout: z.number().positive().max(600).optional(),
});

export const McpServerConfig = z.strictObject({
  type: z.enum(['stdio', 'http']).default('stdio'),
  command: z.string().optional(),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  url: z.string().optional(),
  disabled: z.boolean().default(false),
  context: z.string().optional(),
  keep_alive: z.boolean().optional(),
  /** Global servers with `_inherit: true` are kept for every named agent. */
  _inherit: z.boolean().optional(),
});

export const PermissionsConfig = z.strictObject({
  allowed_commands: z.array(z.string()).default([]),
  denied_commands: z.array(z.string()).default([]),
  allowed_dirs: z.array(z.string()).default([]),
  sensitive_patterns: z.array(z.string()).default([]),
  network_allowlist: z.array(z.string()).default([]),
  always_allow_tools: z.array(z.string()).default([]),
  /** GUI tools an unattended run (schedule, heartbeat, watcher) may use without a person. */
  gui_unattended: z.array(z.string()).default([]),
  mode: PermissionMode.default('default'),
  approval_timeout_seconds: z.number().positive().max(86_400).default(300),
});

export const GlobalConfig = z.strictObject({
  model: z.string().min(1).default('claude-sonnet-5-5'),
  small_model: z.string().min(1).default('claude-haiku-5-5'),
  /** Overrides ANTHROPIC_BASE_URL when set. */
  base_url: z.string().url().optional(),
  /** Absent: the default of the run's origin (attended 200, remote and unattended 25; docs/permissions.md). */
  max_iterations: z.number().int().positive().max(1000).optional(),
  /** What an unattended run (schedule, heartbeat, watcher) does with a call that needs approval. */
  unattended_approvals: z.enum(['deny', 'ask']).default('deny'),
  max_tokens: z.number().int().positive().max(200_000).default(8192),
  context_window: z.number().int().positive().default(200_000),
  temperature: z.number().min(0).max(1).optional(),
  budget: z
    .strictObject({
      /** Hard spending cap per run in US dollars; 0 disables it. */
      max_usd_per_run: z.number().nonnegative().default(2),
    })
    .prefault({}),
  /** USD per million tokens for models the built-in table does not know (local servers, new models). */
  prices: z
    .record(
      z.string(),
      z.strictObject({
        input: z.number().nonnegative(),
        output: z.number().nonnegative(),
        cache_write: z.number().nonnegative().optional(),
        cache_read: z.number().nonnegative().optional(),
      }),
    )
    .default({}),
  tools: z
    .strictObject({
      allowed: z.array(z.string()).default([]),
      denied: z.array(z.string()).default([]),
      result_budget: z.number().int().positive().default(30_000),
      bash_timeout: z.number().int().positive().max(600).default(120),
      max_parallel: z.number().int().positive().max(10).default(10),
    })
    .prefault({}),
  permissions: PermissionsConfig.prefault({}),
  mcp_servers: z.record(z.string(), McpServerConfig).default({}),
  hooks: z
    .strictObject({
      PreToolUse: z.array(HookEntry).default([]),
      PostToolUse: z.array(HookEntry).default([]),
      SessionStart: z.array(HookEntry).default([]),
      Stop: z.array(HookEntry).default([]),
    })
    .prefault({}),
  daemon: z
    .strictObject({
      port: z.number().int().min(0).max(65_535).default(7533),
      host: z.string().default('127.0.0.1'),
      max_concurrent_runs: z.number().int().positive().default(5),
    })
    .prefault({}),
  cloud: z
    .strictObject({
      enabled: z.boolean().default(false),
      endpoint: z.string().optional(),
      timeout: z.number().int().positive().default(3600),
    })
    .prefault({}),
});
export type GlobalConfig = z.infer<typeof GlobalConfig>;
export type GlobalConfigInput = z.input<typeof GlobalConfig>;

export const defaultConfig = (): GlobalConfig => GlobalConfig.parse({});
