/**
 * What a runtime is made from (RuntimeOptions) and what it is (Runtime): the types every face and the
 * run start share. The making is runtime.ts; the start of a run is startRun.ts.
 */
import type { GlobalConfig, GrantEntry, PermissionMode } from '../config/schema.js';
import type { AgentRuntimeConfig } from '../agents/index.js';
import type { LlmClient } from '../llm/client.js';
import type { ApprovalBroker } from '../permissions/approvalBroker.js';
import type { ApprovalFace, PermissionPolicy } from '../permissions/types.js';
import type { OriginRules } from '../permissions/runPolicy.js';
import type { RunOrigin } from '../api/patterns.js';
import type { IsolatedContext, RunOverrides } from './runRequest.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ToolProvider } from '../tools/provider.js';
import type { Tool } from '../tools/tool.js';
import type { SessionStore } from '../sessions/store.js';
import type { RunSettings } from '../harness/loop.js';
import type { AuditLog } from '../audit/auditLog.js';
import type { Skill } from '../skills/index.js';
import type { McpManager } from '../mcpClient/manager.js';
import type { CloudKeyStore } from '../cloud/index.js';
import type { RuntimeCache } from './runtimeCache.js';

/** The face name of answers given over the daemon's HTTP and WebSocket API (a token holder). */
export const REMOTE_FACE = 'daemon';
/** Answers no person here is known to have given: the daemon's API, an MCP client's form (`rein mcp serve`). */
export const REMOTE_FACES: ReadonlySet<string> = new Set([REMOTE_FACE, 'mcp_client']);

/** An "always allow" to save: what it adds, where, and the write itself. */
export interface RemoteGrant {
  agent: string;
  file: string;
  field: 'permissions.grants';
  /** The grant as it will be saved (config/schema.ts GrantEntry). */
  entry: GrantEntry;
  /** What it covers, in words (grants.ts describeGrant). */
  describe: string;
  save: () => Promise<void>;
}

export interface RuntimeOptions {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The global config (merged with the project overlay); the agent's own config is applied on top. */
  config: GlobalConfig;
  agent?: string;
  source?: string;
  /**
   * Who is behind the run: decides the faces, what may be asked and the iteration cap. Required, so no
   * entry point falls back to the most permissive one by forgetting it (permissions/runPolicy.ts `originFor`).
   */
  origin: RunOrigin;
  /** The run's lane, carried on its approval requests (default: the source). */
  route?: string;
  mode?: PermissionMode;
  /** This run's own model, iteration cap or mode, over the agent's config. */
  overrides?: RunOverrides;
  /** Approve every ask (hard blocks still hold once the permission engine is in). */
  yes?: boolean;
  /** The faces of the person present (attended runs): the terminal prompt, the native dialog. */
  faces?: ApprovalFace[];
  /** The daemon's approval desk (every connected client): remote runs ask there, attended ones too. */
  desk?: ApprovalFace;
  /** Whether a desktop or web client is connected now (unattended runs with unattended_approvals: ask). */
  clientConnected?: () => boolean;
  /** Tests and embedders may bring their own model client or policy. */
  llm?: LlmClient;
  policy?: PermissionPolicy;
  /** Where the bundled skills are; found next to the package by default. */
  bundledSkillsDir?: string;
  /**
   * Tool sources after the built-ins (MCP servers, the cloud, the GUI bridge), in any order: the list
   * the model sees is ordered by source and name. The caller keeps owning them; the runtime only listens.
   */
  toolProviders?: readonly ToolProvider[];
  /** Where the cloud API key is kept when neither config nor environment has it (default `<home>/secrets/cloud-api-key`). */
  cloudKeys?: CloudKeyStore;
  /** Long-lived processes keep file-backed parts and model clients between runs (see RuntimeCache). */
  cache?: RuntimeCache;
  /**
   * An "always allow" answered over the daemon's API, for a person to confirm (the service's change
   * desk): returns the line the run is told; throws when nobody can confirm it (the error says how).
   */
  remoteGrants?: (grant: RemoteGrant) => string;
  /** Opens a page for the person (an MCP server's URL-mode question they allowed); absent: such questions are declined. */
  openUrl?: (url: URL) => Promise<void> | void;
  /**
   * Connect the agent's MCP servers (`mcp_servers`). With a cache they are the cache's, kept connected
   * between runs; without one the runtime starts them for this run and stops them when its events are
   * over (`rein run`). Default: true with a cache, false without.
   */
  mcp?: boolean;
  /**
   * The daemon's Turnstile (used with `cache`): the model client's streamed bytes wait for it before
   * they are parsed (nodeFetch's `pace`), so many streaming runs cannot hold up a new message.
   */
  pace?: () => Promise<void> | undefined;
  /**
   * A stop asked for while the runtime is being made (Ctrl-C while its MCP servers start): the making
   * ends at once instead of after every server's first attempt; the servers it started are stopped.
   */
  signal?: AbortSignal;
}

export interface Runtime {
  agent: string;
  source: string;
  origin: RunOrigin;
  route: string;
  /** The effective config: global, project overlay and the agent's own config merged. */
  config: GlobalConfig;
  agentConfig: AgentRuntimeConfig;
  settings: RunSettings;
  llm: LlmClient;
  registry: ToolRegistry;
  policy: PermissionPolicy;
  broker: ApprovalBroker;
  store: SessionStore;
  audit: AuditLog;
  skills: Skill[];
  /** Problems found while loading skills and instructions; the run shows them as warnings. */
  warnings: string[];
  /**
   * Saves an "always allow" answer: the exact command (bash) or the tool name, in the agent's config
   * file. One answered over the daemon's API (`by: daemon`, a token holder) raises permissions: it goes
   * to `remoteGrants` (a person confirms it: `rein changes accept`, the app), or is not saved; the line returned says which.
   */
  onAlwaysAllow: (tool: Tool, input: unknown, by: string, grant?: GrantEntry) => Promise<string | void>;
  persona?: string;
  cache?: RuntimeCache;
  /** A light, isolated context for this run (RunOverrides.isolated): see loopParts. */
  isolated?: IsolatedContext;
  /** The agent's MCP servers and what they put in the prompt, when the run has them. */
  mcp?: RuntimeMcp;
  /** How a question from an MCP server during a call is handled: `--yes` takes the defaults; may anyone be asked. */
  elicitation?: { yes: boolean; mayAsk: OriginRules['mayAsk']; openUrl?: (url: URL) => Promise<void> | void };
}

export interface RuntimeMcp {
  manager: McpManager;
  /** Made for this run (no cache): stopped when the run's events are over. */
  owned: boolean;
  /** Server → its config's `context`; server → the instructions it sent. As of the runtime's making. */
  context: Record<string, string>;
  instructions: Record<string, string>;
}
