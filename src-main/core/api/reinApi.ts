/**
 * The ReinApi contract: what the page may ask of Rein, one entry per operation. Shared by the Electron
 * shell (IPC handlers), the preload (typed bridge), the page's two clients (IPC and HTTP+WebSocket to
 * the daemon) and, through the wire schemas in protocol.ts, the daemon's HTTP face.
 * Pure TypeScript + zod with no Node built-ins: the renderer bundles this file.
 *
 * Wire shapes are the daemon's JSON so an operation means the same thing over IPC and over HTTP; field
 * names are snake_case everywhere, events included. `docs/desktop.md` maps each operation
 * to its HTTP call. Outputs are loose objects: a newer server may add fields without breaking the page.
 */
import { z } from 'zod';
import { PendingChange, PermissionRaise, UsageTotals } from './events.js';
import { AgentName, COMMAND_MAX_CHARS, ItemName, PermissionMode, SessionId, SourceName as Source } from './patterns.js';
import { ApprovalAnswerRequest, CancelRequest, MessageRequest, PendingApproval, type RoutedEvent } from './protocol.js';
import { McpLoginResult, McpReconnectResult, McpServerName, McpServersResult } from './mcpStatus.js';
/** config.yaml as YAML text (comments kept) or as an object (written as YAML). */
const AgentConfigValue = z.union([z.string().max(100_000), z.record(z.string(), z.unknown())]);

// ---- status ---------------------------------------------------------------------------------------

export const ReinStatus = z.looseObject({
  /** Rein's version (package.json). */
  version: z.string(),
  /** The agent new messages go to when none is named. */
  active_agent: z.string().optional(),
  uptime_seconds: z.number().optional(),
  active_runs: z.number().int().nonnegative().optional(),
  pending_approvals: z.number().int().nonnegative().optional(),
  /** `default` first, then the named agents. */
  agents: z.array(z.string()).optional(),
  runs: z
    .array(z.looseObject({ route: z.string(), agent: z.string(), session_id: z.string().nullable().optional() }))
    .optional(),
});
export type ReinStatus = z.infer<typeof ReinStatus>;

// ---- agents ---------------------------------------------------------------------------------------

export const AgentSummary = z.looseObject({
  name: z.string(),
  has_memory: z.boolean().optional(),
  has_config: z.boolean().optional(),
  command_count: z.number().int().nonnegative().optional(),
  skill_count: z.number().int().nonnegative().optional(),
  /** Set when the agent's files are broken; the other fields are then absent. */
  problem: z.string().optional(),
});
export type AgentSummary = z.infer<typeof AgentSummary>;

/**
 * Something wrong in a file. In an agent's `problems`, `file` is relative to the agent's folder
 * (`config.yaml`, `commands/x.md`); line and column are 1-based; `field` is the dotted path inside it.
 */
export const FileProblem = z.looseObject({
  file: z.string(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  field: z.string().optional(),
  message: z.string(),
});
export type FileProblem = z.infer<typeof FileProblem>;

/** A slash command the agent's chat accepts (its own `commands/` and the global ones); the daemon expands it. */
export const SlashCommandInfo = z.looseObject({
  name: z.string(),
  description: z.string(),
  argument_hint: z.string().optional(),
  /** agent (its own folder) or global (`<REIN_HOME>/commands/`). */
  scope: z.string().optional(),
});
export type SlashCommandInfo = z.infer<typeof SlashCommandInfo>;

export const AgentDetail = z.looseObject({
  name: z.string(),
  /** AGENT.md as written ('' when it is empty). */
  prompt: z.string(),
  /** MEMORY.md, null when there is none. */
  memory: z.string().nullable(),
  /** config.yaml as validated, null when there is none or when it is invalid (see `problems`). */
  config: z.record(z.string(), z.unknown()).nullable(),
  /** config.yaml as written (comments included), null when there is none. */
  config_text: z.string().nullable(),
  /** commands/<name>.md by name. */
  commands: z.record(z.string(), z.string()),
  /** Global skills attached to the agent. */
  skills: z.array(z.string()),
  /** What is wrong with the agent's files, so the editor can open a broken agent and show where to fix it. */
  problems: z.array(FileProblem).optional(),
  /** Commands typed as `/name args` in its chat. */
  slash_commands: z.array(SlashCommandInfo).optional(),
  /** The built-in `default` agent: read only, no files of its own but commands. */
  builtin: z.boolean().optional(),
});
export type AgentDetail = z.infer<typeof AgentDetail>;

export { COMMAND_MAX_CHARS };
const Persona = z
  .string()
  .max(200_000)
  .refine((t) => t.trim() !== '', 'must not be blank: an agent needs a persona');
const Memory = z.string().max(500_000);
const CommandText = z
  .string()
  .refine((t) => t.trim() !== '', 'must not be blank')
  .refine((t) => Array.from(t).length <= COMMAND_MAX_CHARS, `at most ${COMMAND_MAX_CHARS} characters`);
const CommandName = ItemName('command');
const SkillNames = z.array(ItemName('skill')).max(500);

export const CreateAgentInput = z.strictObject({
  name: AgentName.refine((n) => n !== 'default', '"default" is the built-in agent'),
  prompt: Persona,
  memory: Memory.optional(),
  config: AgentConfigValue.optional(),
  commands: z.record(CommandName, CommandText).optional(),
  skills: SkillNames.optional(),
});
export type CreateAgentInput = z.infer<typeof CreateAgentInput>;

/** Only the parts named change; `null` deletes MEMORY.md, config.yaml or one command. */
export const SaveAgentInput = z.strictObject({
  name: AgentName,
  prompt: Persona.optional(),
  /** null deletes MEMORY.md. */
  memory: Memory.nullable().optional(),
  /** null deletes config.yaml. */
  config: AgentConfigValue.nullable().optional(),
  /** Each command: new text, or null to delete it. Commands not named are left alone. */
  commands: z.record(CommandName, CommandText.nullable()).optional(),
  /** The full list of attached global skills ([] detaches all). */
  skills: SkillNames.optional(),
});
export type SaveAgentInput = z.infer<typeof SaveAgentInput>;

export const DeleteAgentResult = z.looseObject({
  deleted: z.boolean(),
  name: z.string(),
  moved_to: z.string().optional(),
});

// ---- skills ---------------------------------------------------------------------------------------

export const SkillSummary = z.looseObject({
  name: z.string(),
  description: z.string(),
  /** agent (its own folder), user (global, attachable) or bundled (ships with Rein). */
  source: z.string(),
});
export type SkillSummary = z.infer<typeof SkillSummary>;

export const SkillList = z.looseObject({ skills: z.array(SkillSummary), problems: z.array(FileProblem) });

// ---- sessions -------------------------------------------------------------------------------------

/** What a listing and a whole session have in common. */
const SessionHead = z.looseObject({
  id: z.string(),
  agent: z.string(),
  title: z.string(),
  /** chat, http, ws, schedule, heartbeat, watcher, webhook source names… */
  source: z.string(),
  channel: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const SessionSummary = SessionHead.extend({
  message_count: z.number().int().nonnegative(),
  /** The file is not a readable session (cut short, not JSON, invalid): it cannot be opened; `problem` says why. */
  damaged: z.literal(true).optional(),
  problem: z.string().optional(),
});
export type SessionSummary = z.infer<typeof SessionSummary>;

const ContentBlock = z.looseObject({ type: z.string() });
export const SessionMessage = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(ContentBlock)]),
});
export type SessionMessage = z.infer<typeof SessionMessage>;

/** A session file as stored (messages in the Messages API's own shape). */
export const SessionRecord = SessionHead.extend({
  messages: z.array(SessionMessage),
  message_meta: z
    .array(z.looseObject({ source: z.string(), timestamp: z.string(), injected: z.boolean().optional() }))
    .optional(),
  usage: UsageTotals.optional(),
});
export type SessionRecord = z.infer<typeof SessionRecord>;

export const SearchHit = z.looseObject({
  session_id: z.string(),
  agent: z.string(),
  source: z.string(),
  channel: z.string().optional(),
  title: z.string(),
  /** The matching text with each match between `>>>` and `<<<` (see core/search/snippet.ts). */
  snippet: z.string(),
  role: z.string().optional(),
  msg_index: z.number().int().optional(),
  updated_at: z.string().optional(),
});
export type SearchHit = z.infer<typeof SearchHit>;

const Limit = (max: number) => z.number().int().min(1).max(max);

// ---- messages and runs ----------------------------------------------------------------------------

/**
 * The answer to sendMessage: which lane (route) the message went to and whether it started a run or
 * was injected into the run already in flight there. The run's events arrive through `subscribe`.
 */
export const SendMessageResult = z.looseObject({
  injected: z.boolean(),
  route: z.string(),
  agent: z.string().optional(),
  session_id: z.string().optional(),
});
export type SendMessageResult = z.infer<typeof SendMessageResult>;

export const CancelResult = z.looseObject({
  cancelled: z.boolean(),
  route: z.string().optional(),
  session_id: z.string().optional(),
});

export const ApprovalList = z.looseObject({ approvals: z.array(PendingApproval) });
export const ApprovalAnswerResult = z.looseObject({ ok: z.boolean(), request_id: z.string(), decision: z.string() });

// ---- permission-raising changes -------------------------------------------------------------------

export { PendingChange, PermissionRaise };

/**
 * The answer to createAgent, saveAgent or saveSettings over the daemon (HTTP 202) when the change would
 * raise permissions: nothing was written; a person confirms it with `accept_command` in a shell on the
 * daemon's machine, or in the desktop app (docs/daemon-api.md, *Changes that raise permissions*). The
 * desktop window's own changes apply at once.
 */
export const ChangePending = z.looseObject({
  pending: z.literal(true),
  change_id: z.string(),
  kind: z.string(),
  agent: z.string().optional(),
  raises: z.array(PermissionRaise),
  /** What confirms it in a shell on the daemon's machine (`rein changes accept chg_…`), when that can. */
  accept_command: z.string().optional(),
  message: z.string(),
});
export type ChangePending = z.infer<typeof ChangePending>;

export const ChangeList = z.looseObject({ changes: z.array(PendingChange) });

// ---- settings -------------------------------------------------------------------------------------

/** A macOS privacy permission as node-mac-permissions reports it (`authorized`, `denied`, `not determined`, …). */
export const MacPermissionName = z.enum(['accessibility', 'automation', 'screen_recording']);
export type MacPermissionName = z.infer<typeof MacPermissionName>;

export const ReinSettings = z.looseObject({
  /** The host's `process.platform`; the page shows macOS permissions only for `darwin`. */
  platform: z.string(),
  api_key: z.looseObject({
    present: z.boolean(),
    /** Where the key comes from: keychain (desktop safeStorage), env (ANTHROPIC_API_KEY) or none. */
    source: z.string().nullable().optional(),
    /** A few characters to recognise the key by (`sk-ant-…wxyz`), never the key. */
    hint: z.string().optional(),
    /** False when saveSettings cannot store a key here (the daemon without the desktop app); `note` says what to do instead. */
    writable: z.boolean().optional(),
    note: z.string().optional(),
  }),
  /** A compatible server instead of Anthropic's (config base_url); null = the default. */
  base_url: z.string().nullable(),
  model: z.string(),
  small_model: z.string(),
  permission_mode: PermissionMode,
  /** Desktop only: the global shortcut that toggles the chat window. */
  hotkey: z.string().nullable().optional(),
  /** Desktop only: why the hotkey could not be registered (taken by another app…). */
  hotkey_problem: z.string().optional(),
  /** Model ids worth suggesting. */
  models: z.array(z.string()).optional(),
  /** Only on macOS. */
  mac_permissions: z.partialRecord(MacPermissionName, z.string()).optional(),
  /** The global config.yaml the model, mode and base URL are saved in. */
  config_file: z.string().optional(),
  /**
   * Present while config.yaml (or the daemon folder's .rein/config.yaml) does not load: what is wrong
   * and where. No message runs until it is fixed (they are refused with the same `config_invalid`); the
   * values above are the last ones that loaded.
   */
  config_problem: z
    .looseObject({
      code: z.string(),
      message: z.string(),
      file: z.string().optional(),
      line: z.number().optional(),
      field: z.string().optional(),
    })
    .optional(),
});
export type ReinSettings = z.infer<typeof ReinSettings>;

export const SaveSettingsInput = z.strictObject({
  /** Write-only: stored in the keychain by the desktop app; never read back. */
  api_key: z.string().min(1).max(500).optional(),
  base_url: z
    .url({ protocol: /^https?$/ })
    .max(2_000)
    .nullable()
    .optional(),
  model: z.string().min(1).max(200).optional(),
  small_model: z.string().min(1).max(200).optional(),
  permission_mode: PermissionMode.optional(),
  hotkey: z.string().min(1).max(100).nullable().optional(),
});
export type SaveSettingsInput = z.infer<typeof SaveSettingsInput>;

/** One small request to the model with these values (or the saved ones where absent). */
export const TestConnectionInput = z.strictObject({
  api_key: z.string().min(1).max(500).optional(),
  base_url: z
    .url({ protocol: /^https?$/ })
    .max(2_000)
    .optional(),
  model: z.string().min(1).max(200).optional(),
});
export const TestConnectionResult = z.looseObject({
  ok: z.boolean(),
  /** What a person should read: the model's reply, or what went wrong. */
  message: z.string(),
  model: z.string().optional(),
  latency_ms: z.number().nonnegative().optional(),
  code: z.string().optional(),
});
export type TestConnectionResult = z.infer<typeof TestConnectionResult>;

// ---- what agents do on their own ------------------------------------------------------------------

export const AgentActivity = z.looseObject({
  agent: z.string(),
  heartbeat: z
    .looseObject({
      every: z.string(),
      active_hours: z.string().optional(),
      model: z.string(),
      has_goals: z.boolean(),
      next_at: z.string().optional(),
      last: z
        .looseObject({
          at: z.string(),
          outcome: z.string(),
          message: z.string().optional(),
          cost_usd: z.number(),
          total_input_tokens: z.number(),
          cache_read_share: z.number(),
        })
        .optional(),
      spent_today_usd: z.number(),
      beats_today: z.number(),
    })
    .nullable(),
  watchers: z.array(
    z.looseObject({
      path: z.string(),
      glob: z.string().optional(),
      debounce_ms: z.number(),
      watching: z.boolean(),
      /** watching, unreadable (this process may not read the folder), missing, not_a_folder; absent while the watchers have not looked. */
      state: z.string().optional(),
      reason: z.string().optional(),
      /** What to do about it (unreadable). */
      hint: z.string().optional(),
    }),
  ),
  problem: z.string().optional(),
});
export type AgentActivity = z.infer<typeof AgentActivity>;

// ---- schedules ------------------------------------------------------------------------------------

const ScheduleId = z.string().regex(/^[0-9a-f]{8}$/, 'expected a schedule id (8 hex characters)');
const CronText = z.string().min(1).max(200);
const SchedulePrompt = z.string().min(1).max(20_000);

export const ScheduleLastRun = z.looseObject({
  /** running, finished, failed, interrupted (stopped on the way, or its process gone), skipped. */
  status: z.string(),
  started_at: z.string().optional(),
  /** Null while it runs. */
  ended_at: z.string().nullable().optional(),
  /** Why it failed or was interrupted. */
  error: z.string().optional(),
  /** Its session id. */
  session: z.string().optional(),
  /** The same as started_at and session, under their first names. */
  at: z.string(),
  session_id: z.string().optional(),
  log: z.string().optional(),
  message: z.string().optional(),
  trigger: z.string().optional(),
});
/** What a time missed while the computer was off or asleep gets: once, skip, or within <duration> (the store checks it). */
const CatchUpText = z.string().min(1).max(40);

export const ScheduleInfo = z.looseObject({
  id: z.string(),
  agent: z.string(),
  cron: z.string(),
  prompt: z.string(),
  enabled: z.boolean(),
  /** once, skip or within <duration>. */
  catch_up: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
  last_run: ScheduleLastRun.optional(),
  /** The next fire times (ISO) of an enabled schedule. */
  next: z.array(z.string()),
  /** launchd (a job per schedule) or daemon (the daemon's own clock). */
  backend: z.string(),
});
export type ScheduleInfo = z.infer<typeof ScheduleInfo>;

export const CreateScheduleInput = z.strictObject({
  cron: CronText,
  prompt: SchedulePrompt,
  agent: AgentName.optional(),
  enabled: z.boolean().optional(),
  catch_up: CatchUpText.optional(),
});
export const UpdateScheduleInput = z
  .strictObject({
    id: ScheduleId,
    cron: CronText.optional(),
    prompt: SchedulePrompt.optional(),
    agent: AgentName.optional(),
    enabled: z.boolean().optional(),
    catch_up: CatchUpText.optional(),
  })
  .refine(
    (u) =>
      u.cron !== undefined ||
      u.prompt !== undefined ||
      u.agent !== undefined ||
      u.enabled !== undefined ||
      u.catch_up !== undefined,
    {
      path: ['cron'],
      message: 'give at least one of cron, prompt, agent, enabled or catch_up',
    },
  );
export const ScheduleLogList = z.looseObject({
  logs: z.array(z.looseObject({ name: z.string(), at: z.string(), size: z.number() })),
});
export const ScheduleLogText = z.looseObject({ name: z.string(), text: z.string(), truncated: z.boolean() });

// ---- MCP servers ----------------------------------------------------------------------------------

/** One configured MCP server of an agent (without `agent`: the built-in agent, i.e. the global config's servers). */
const McpServerTarget = z.strictObject({ agent: AgentName.optional(), name: McpServerName });

// ---- the table ------------------------------------------------------------------------------------

/**
 * Every operation, by method name. `input` is checked where the call arrives (IPC handler, HTTP route);
 * an operation without input takes `z.undefined()`, so a stray argument is refused rather than ignored.
 * `output` is checked by the page's clients, so a server that drifted from this contract is reported
 * as such instead of breaking a view somewhere later.
 */
export const reinOperations = {
  /** GET /status */
  status: { input: z.undefined(), output: ReinStatus },
  /** PUT /active-agent — switchAgent: the agent the UI talks to from now on (persona, tools, memory, sessions follow). */
  switchAgent: { input: z.strictObject({ name: AgentName }), output: ReinStatus },
  /** GET /agents (named agents; `default` is built in and has no files) */
  listAgents: { input: z.undefined(), output: z.looseObject({ agents: z.array(AgentSummary) }) },
  /** GET /agents/{name} */
  getAgent: { input: z.strictObject({ name: AgentName }), output: AgentDetail },
  /** POST /agents */
  createAgent: { input: CreateAgentInput, output: AgentDetail },
  /** PUT /agents/{name}: everything validated before anything is written. */
  saveAgent: { input: SaveAgentInput, output: AgentDetail },
  /** DELETE /agents/{name}: the folder moves to the trash. */
  deleteAgent: { input: z.strictObject({ name: AgentName }), output: DeleteAgentResult },
  /** GET /skills?agent= (without agent: the default agent's, i.e. every global skill) */
  listSkills: { input: z.strictObject({ agent: AgentName.optional() }).optional(), output: SkillList },
  /** GET /sessions?agent&source&limit */
  listSessions: {
    input: z
      .strictObject({ agent: AgentName.optional(), source: Source.optional(), limit: Limit(1_000).optional() })
      .optional(),
    output: z.looseObject({ sessions: z.array(SessionSummary) }),
  },
  /** GET /sessions/{id}?agent= */
  getSession: { input: z.strictObject({ id: SessionId, agent: AgentName.optional() }), output: SessionRecord },
  /** GET /sessions/search?q&agent&source&limit */
  searchSessions: {
    input: z.strictObject({
      q: z.string().refine((q) => q.trim() !== '', 'must not be blank'),
      agent: AgentName.optional(),
      source: Source.optional(),
      limit: Limit(100).optional(),
    }),
    output: z.looseObject({ results: z.array(SearchHit) }),
  },
  /**
   * WebSocket frame `message` (or POST /message): starts a run, or injects the text into the run in
   * flight on the same route. Answers at once; the run's events come through `subscribe`.
   */
  sendMessage: { input: MessageRequest, output: SendMessageResult },
  /** POST /cancel */
  cancel: { input: CancelRequest, output: CancelResult },
  /** GET /approvals: pending approvals of every route. */
  listApprovals: { input: z.undefined(), output: ApprovalList },
  /** POST /approval: the first answer wins; later ones fail with code approval_already_decided. */
  answerApproval: { input: ApprovalAnswerRequest, output: ApprovalAnswerResult },
  /** GET /settings */
  getSettings: { input: z.undefined(), output: ReinSettings },
  /** PUT /settings */
  saveSettings: { input: SaveSettingsInput, output: ReinSettings },
  /** POST /settings/test */
  testConnection: { input: TestConnectionInput, output: TestConnectionResult },
  /** GET /agents/{name}/activity: its heartbeat (settings, last beat, today's spend, next beat) and file watchers. */
  agentActivity: { input: z.strictObject({ name: AgentName }), output: AgentActivity },
  /** GET /schedules */
  listSchedules: {
    input: z.undefined(),
    output: z.looseObject({ schedules: z.array(ScheduleInfo), backend: z.string() }),
  },
  /** GET /schedules/{id} (with its next ten fire times) */
  getSchedule: { input: z.strictObject({ id: ScheduleId }), output: ScheduleInfo },
  /** POST /schedules: the cron expression is checked as classic cron reads it (400 naming `cron`). */
  createSchedule: { input: CreateScheduleInput, output: ScheduleInfo },
  /** PUT /schedules/{id}: cron, prompt, agent, enabled or catch_up. */
  updateSchedule: { input: UpdateScheduleInput, output: ScheduleInfo },
  /** DELETE /schedules/{id} (its launchd job too; the logs stay). */
  removeSchedule: {
    input: z.strictObject({ id: ScheduleId }),
    output: z.looseObject({ removed: z.boolean(), id: z.string() }),
  },
  /** POST /schedules/{id}/run: runs it now, unattended; answers at once, the run's events come on the bus. */
  runSchedule: {
    input: z.strictObject({ id: ScheduleId }),
    output: z.looseObject({ started: z.boolean(), id: z.string() }),
  },
  /** GET /schedules/{id}/logs: the run logs, newest first. */
  scheduleLogs: { input: z.strictObject({ id: ScheduleId }), output: ScheduleLogList },
  /** GET /schedules/{id}/logs/{name} (the newest without a name: GET /schedules/{id}/log). */
  readScheduleLog: {
    input: z.strictObject({ id: ScheduleId, name: z.string().max(40).optional() }),
    output: ScheduleLogText,
  },
  /** Desktop only: opens the System Settings pane of a macOS privacy permission. */
  openPermissionSettings: {
    input: z.strictObject({ permission: MacPermissionName }),
    output: z.looseObject({ opened: z.boolean() }),
  },
  /** GET /changes: permission-raising changes asked for over the API, waiting for a person (confirmed with `rein changes accept` on the daemon's machine, or in the desktop app: reinDesktop.answerChange). */
  listChanges: { input: z.undefined(), output: ChangeList },
  /** GET /mcp/servers?agent=: each agent's MCP servers (state, tools, last error, sign-in); asking starts nothing. */
  mcpServers: { input: z.strictObject({ agent: AgentName.optional() }).optional(), output: McpServersResult },
  /**
   * POST /mcp/servers/{name}/login: starts the OAuth sign-in of an http server and opens its authorization
   * page in the person's browser; answers once the page is open (the status follows the rest).
   */
  mcpLogin: { input: McpServerTarget, output: McpLoginResult },
  /** POST /mcp/servers/{name}/reconnect: connects the server now (also an idle or dormant one) and answers its status. */
  mcpReconnect: { input: McpServerTarget, output: McpReconnectResult },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;

export type ReinOperationName = keyof typeof reinOperations;
export type ReinOperationInput<K extends ReinOperationName> = z.input<(typeof reinOperations)[K]['input']>;
export type ReinOperationOutput<K extends ReinOperationName> = z.output<(typeof reinOperations)[K]['output']>;
export const reinOperationNames = Object.keys(reinOperations) as ReinOperationName[];

/** The IPC channel of an operation: `rein:` + its method name. */
export type ReinChannel<K extends ReinOperationName = ReinOperationName> = `rein:${K}`;
export const reinChannel = <K extends ReinOperationName>(name: K): ReinChannel<K> => `rein:${name}`;
/** Main → page push channel carrying ApiEvent frames. */
export const REIN_EVENT_CHANNEL = 'rein:event';

/**
 * What crosses IPC: Electron keeps only the message of a thrown error, so handlers answer with an
 * envelope instead and the caller decides what to throw. `code` is a ReinErrorCode, a daemon error code
 * or `refused`; `field` names the offending input field when validation failed.
 */
export type ReinEnvelope<T> = { ok: true; value: T } | { ok: false; error: string; code: string; field?: string };

/**
 * How a failed envelope crosses contextBridge, which keeps only an Error's message: the preload throws
 * `new Error(bridgeErrorMessage(reply))` and the page's IPC client reads code and field back with
 * `parseBridgeErrorMessage`. Format: `[code] message` or `[code field] message`.
 */
export function bridgeErrorMessage(e: { error: string; code: string; field?: string }): string {
  return `[${e.code}${e.field ? ` ${e.field}` : ''}] ${e.error}`;
}

export function parseBridgeErrorMessage(message: string): { code?: string; field?: string; message: string } {
  const m = /^\[([a-z_]+)(?: ([^\]]+))?\] ([\s\S]*)$/.exec(message);
  if (!m) return { message };
  return { code: m[1], ...(m[2] ? { field: m[2] } : {}), message: m[3]! };
}

export type { MessageRequest, PendingApproval } from './protocol.js';

/** An event as the page receives it: a run's event or a daemon event, with the route of its run. */
export type ApiEvent = RoutedEvent;

type OperationMethod<K extends ReinOperationName> =
  undefined extends ReinOperationInput<K>
    ? (input?: ReinOperationInput<K>) => Promise<ReinOperationOutput<K>>
    : (input: ReinOperationInput<K>) => Promise<ReinOperationOutput<K>>;

export type ReinOperationMethods = { [K in ReinOperationName]: OperationMethod<K> };

/** The page's whole view of Rein: one method per operation, plus a stream of events. */
export interface ReinApi extends ReinOperationMethods {
  /** Receive every event of every run and the daemon's own events; returns the function that stops listening. */
  subscribe(listener: (event: ApiEvent) => void): () => void;
}
