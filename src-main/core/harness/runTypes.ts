/**
 * The types a run is made of: what a caller hands the loop (RunStart, RunInput, RunSetup, RunDeps), what it
 * gets back (RunOutcome), and the knobs of one run (RunSettings). loop.ts re-exports them.
 */
import type { StopReason, UsageTotals } from '../api/events.js';
import type { LlmClient } from '../llm/client.js';
import type { CacheTtl } from '../llm/cacheBreakpoints.js';
import type { Price, RequestUsage } from '../llm/pricing.js';
import type { ApprovalBroker } from '../permissions/approvalBroker.js';
import type { PermissionPolicy } from '../permissions/types.js';
import type { PermissionMode, RunOrigin } from '../api/patterns.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { Tool, ToolContext } from '../tools/tool.js';
import { slotKey } from '../tools/sessionSlots.js';
import type { RunCosts } from '../tools/runCosts.js';
import type { SessionFile } from '../sessions/types.js';
import type { Inbox } from './inbox.js';
import type { AuditLog } from '../audit/auditLog.js';
import type { GlobalConfig, GrantEntry } from '../config/schema.js';
import type { SourceFacts } from '../context/index.js';

export const GUI_ITERATION_FLOOR = 75;
export const MAX_CONTINUATIONS = 3;

export const CONTINUE_PROMPT =
  'Your previous reply was cut off by the output limit. Continue exactly where you stopped, without repeating anything.';

/** Spending a tool causes outside the loop's own model turns (an MCP server's sampling request; cloud_delegate's reported cost, RunCosts). */
export interface RunSpending extends RunCosts {
  add(model: string, usage: RequestUsage): void;
}
export const RUN_SPENDING = slotKey<RunSpending>('run_spending');

export interface RunSettings {
  model: string;
  maxTokens: number;
  temperature?: number;
  maxIterations: number;
  /** 0 = no cap. */
  maxUsdPerRun: number;
  maxParallel: number;
  resultBudget: number;
  mode: PermissionMode;
  prices?: Record<string, Price>;
  /** The model server is on this machine or the local network: a model `prices` does not name costs $0 (pricing.ts). */
  localModel?: boolean;
  /** Tokens the model can read; compaction keeps requests under 85% of it. */
  contextWindow: number;
  /** Share of the window one tool result may take before it is saved to a file (default 0.1; 0 = no cap). */
  resultWindowShare?: number;
  /** The small model for summaries and write-before-compact (defaults to the run's model). */
  smallModel?: string;
  /** Off: old tool results and images are sent as they are (for measuring what housekeeping saves). */
  housekeeping?: boolean;
  /**
   * TTL of the cache marks on the tools and system prompt (cacheBreakpoints.ts): `1h` for runs that come
   * back to the same prefix within the hour but after five minutes (heartbeats every ≤ 1 h); default 5m.
   */
  prefixCacheTtl?: CacheTtl;
}

/**
 * What `session_start` says, known before the rest of the run is built: a caller that must answer fast
 * (the daemon) starts the loop with these and a `setup` that builds the rest (runAgentWhenReady).
 */
export interface RunStart {
  session: SessionFile;
  source: string;
  agent: string;
  origin: RunOrigin;
  /** The run's lane, carried on its approval requests (`cli`, `desktop`, a daemon route key). */
  route: string;
  model: string;
  cwd: string;
  signal: AbortSignal;
  now?: () => Date;
}

export interface RunInput extends RunStart {
  prompt: string;
  /** Called after every iteration with the session as it stands; must write atomically. */
  save: (session: SessionFile) => Promise<void>;
  /** The agent's AGENT.md. */
  persona?: string;
  /** Instruction files (AGENTS.md, CLAUDE.md, …), already capped. */
  instructions?: string;
  /** The skill catalogue (names and descriptions; `use_skill` loads a body). */
  skills?: readonly { name: string; description: string }[];
  /** Where the message came from (Slack channel, sender…): sticky for the session. */
  sourceFacts?: SourceFacts;
  /** MCP server name → the `context` its config gives (stable prompt part). */
  mcpContext?: Readonly<Record<string, string>>;
  /** MCP server name → the instructions the server sent at `initialize` (stable prompt part). */
  mcpInstructions?: Readonly<Record<string, string>>;
  /** The agent's memory as loaded for the prompt. */
  memory?: string;
  /** Memory folder for write-before-compact; absent = nothing is written. */
  memoryDir?: string;
  /** Problems found while preparing the run (skills, instructions), shown as warnings at its start. */
  warnings?: readonly string[];
  /**
   * Loads the prompt parts that can take a while (instruction files; memory, consolidated first when
   * that is due, which calls the model) once `session_start` is out, so whoever sent the message
   * learns at once that it was taken. What it returns is laid over `instructions`, `memory` and
   * `warnings`; it reports its own problems as warnings rather than throwing.
   */
  prepare?: () => Promise<PreparedParts>;
  settings: RunSettings;
  toolContext: ToolContext;
  inbox?: Inbox;
}

/** The part of a run that takes time to build (its runtime: tools, permissions, model client). */
export type RunSetup = () => Promise<{ input: Omit<RunInput, keyof RunStart>; deps: RunDeps }>;

export interface PreparedParts {
  instructions?: string;
  memory?: string;
  warnings?: readonly string[];
}

export interface RunDeps {
  llm: LlmClient;
  registry: ToolRegistry;
  policy: PermissionPolicy;
  broker: ApprovalBroker;
  onAlwaysAllow?: (tool: Tool, input: unknown, by: string, grant: GrantEntry) => Promise<string | void>;
  hooks?: GlobalConfig['hooks'];
  audit?: AuditLog;
}

export interface RunOutcome {
  stopReason: StopReason;
  text: string;
  usage: UsageTotals;
  iterations: number;
  error?: { code: string; message: string };
  /** False when the run ended before its loop began (its setup failed): nothing was saved. */
  started: boolean;
}
