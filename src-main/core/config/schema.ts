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
  /** stdio: a program; http: Streamable HTTP (falling back to HTTP+SSE); sse: the legacy HTTP+SSE transport only. */
  type: z.enum(['stdio', 'http', 'sse']).default('stdio'),
  command: z.string().optional(),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  url: z.string().optional(),
  disabled: z.boolean().default(false),
  context: z.string().optional(),
  keep_alive: z.boolean().optional(),
  /** Global servers with `_inherit: true` are kept for every named agent. */
  _inherit: z.boolean().optional(),
  // The keys below have no defaults here (so an entry reads back as written); core/mcpClient/config.ts applies them.
  /** Seconds to start (stdio) or reach (http) the server and list its tools; default 30. */
  connect_timeout_seconds: z.number().positive().max(600).optional(),
  /** Seconds one tool call may take (progress notifications restart the clock); default 300. */
  tool_timeout_seconds: z.number().positive().max(86_400).optional(),
  /** The server's tools (its own names, or `mcp__<server>__<tool>`) that run without asking. */
  always_allow: z.array(z.string().min(1)).optional(),
  /** Extra HTTP headers for `http` servers; `${NAME}` is replaced by the environment variable NAME. */
  headers: z.record(z.string(), z.string()).optional(),
  /** OAuth for `http` servers: a pre-registered client, the scope to ask for, a fixed redirect port. */
  oauth: z
    .strictObject({
      client_id: z.string().min(1).optional(),
      client_secret: z.string().min(1).optional(),
      scope: z.string().min(1).optional(),
      /** The loopback port of the redirect URI (http://127.0.0.1:PORT/callback); any free port when absent. */
      redirect_port: z.number().int().min(1).max(65_535).optional(),
    })
    .optional(),
});

/**
 * One "Always allow", as saved (core/permissions/grants.ts): it covers exactly what the person saw. bash:
 * the exact `command` in the working folder `cwd`, void once a script it runs changes (`scripts`: path →
 * `sha256:…` of its content, or `missing`); file tools: one `path`; GUI tools: one `app`; http: one
 * `method` to one `host`; `input`: exactly one call; only `tool`: any call of that tool.
 */
export const GrantEntry = z.strictObject({
  tool: z.string().min(1).max(200),
  command: z.string().min(1).max(20_000).optional(),
  cwd: z.string().min(1).max(4096).optional(),
  scripts: z
    .record(
      z.string().max(4096),
      z.string().regex(/^(sha256:[0-9a-f]{64}|missing)$/, 'sha256:<64 hex digits> or missing'),
    )
    .optional(),
  path: z.string().min(1).max(4096).optional(),
  app: z.string().min(1).max(500).optional(),
  host: z.string().min(1).max(500).optional(),
  method: z.string().min(1).max(20).optional(),
  input: z.string().min(1).max(20_000).optional(),
});
export type GrantEntry = z.infer<typeof GrantEntry>;

export const PermissionsConfig = z.strictObject({
  allowed_commands: z.array(z.string()).default([]),
  denied_commands: z.array(z.string()).default([]),
  allowed_dirs: z.array(z.string()).default([]),
  sensitive_patterns: z.array(z.string()).default([]),
  network_allowlist: z.array(z.string()).default([]),
  always_allow_tools: z.array(z.string()).default([]),
  /** GUI tools an unattended run (schedule, heartbeat, watcher) may use without a person. */
  gui_unattended: z.array(z.string()).default([]),
  /** What "Always allow" saved: each entry covers one command in one folder, one path, one app… (GrantEntry). */
  grants: z.array(GrantEntry).max(2_000).default([]),
  mode: PermissionMode.default('default'),
  approval_timeout_seconds: z.number().positive().max(86_400).default(300),
});

/** A model id (`claude-sonnet-5-5`, `llama3:8b`, `org/model`): a name, never a document. */
export const MODEL_NAME_MAX = 200;
const ModelName = z.string().min(1).max(MODEL_NAME_MAX);

export const GlobalConfig = z.strictObject({
  model: ModelName.default('claude-sonnet-5-5'),
  small_model: ModelName.default('claude-haiku-5-5'),
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
        cache_write_1h: z.number().nonnegative().optional(),
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
      /**
       * Variables the bash tool and hooks pass to their commands although their names look secret
       * (`GITHUB_TOKEN`, `AWS_*`). Rein's own credentials never pass (core/process/childEnv.ts).
       */
      env_passthrough: z
        .array(z.string().regex(/^[A-Za-z0-9_*]{1,128}$/, 'a variable name, or a glob with *'))
        .default([]),
    })
    .prefault({}),
  permissions: PermissionsConfig.prefault({}),
  mcp_servers: z.record(z.string(), McpServerConfig).default({}),
  /** Rein as an MCP client (docs/mcp.md): `client_metadata_url` is its URL-based OAuth client ID (null: none). */
  mcp: z.strictObject({ client_metadata_url: z.string().nullable().optional() }).prefault({}),
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
      /** System notifications (heartbeat alerts, schedules, waiting approvals) from a daemon without the app's window and from launchd runs. */
      notifications: z.boolean().default(true),
    })
    .prefault({}),
  schedule: z
    .strictObject({
      /** launchd (macOS default): one job per schedule, runs with the app closed; daemon: cron jobs inside the daemon. */
      backend: z.enum(['launchd', 'daemon']).optional(),
      /** Scheduled runs at once (daemon backend); a schedule due while all are busy is skipped and logged. */
      max_concurrent: z.number().int().positive().max(50).default(5),
    })
    .prefault({}),
  /** A Shannon-compatible gateway for `cloud_delegate` (docs/cloud.md). */
  cloud: z
    .strictObject({
      enabled: z.boolean().default(false),
      /** The gateway's URL (`https://gateway.example.com`). */
      base_url: z.string().url().optional(),
      /** The old name of base_url, still read for one release (base_url wins when both are set). */
      endpoint: z.string().optional(),
      /**
       * Sent as `X-API-Key`. Better kept out of this file: REIN_CLOUD_API_KEY / SHANNON_API_KEY or
       * `<REIN_HOME>/secrets/cloud-api-key` (core/cloud/settings.ts).
       */
      api_key: z.string().min(1).optional(),
      /** Seconds one delegation may take, from submitting to the full result. */
      timeout: z.number().int().positive().max(86_400).default(3600),
      /** Seconds without a byte on the event stream before it is reopened (resumed where it stopped). */
      stream_idle_timeout: z.number().int().positive().max(3600).default(45),
      /** Delegations per run that did not end in an error (a failed one frees its place); 0 = no limit. */
      max_per_run: z.number().int().nonnegative().max(100).default(1),
    })
    .prefault({}),
  /** The GUI tools (accessibility, computer, screenshot, wait_for, applescript) and their helper (docs/tools.md, GUI tools). */
  gui: z
    .strictObject({
      /** auto: on macOS; on Linux when DISPLAY is set and the AT-SPI helper can run. true: always offered; false: never. */
      enabled: z.union([z.boolean(), z.literal('auto')]).default('auto'),
    })
    .prefault({}),
});
export type GlobalConfig = z.infer<typeof GlobalConfig>;
export type GlobalConfigInput = z.input<typeof GlobalConfig>;

export const defaultConfig = (): GlobalConfig => GlobalConfig.parse({});
