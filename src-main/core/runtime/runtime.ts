/**
 * The composition root of one run: from config, environment and the chosen agent it builds the
 * model client, tool registry, permission policy, approval broker and session store. Nothing global
 * and mutable is shared between two runtimes, so concurrent runs (daemon routes) cannot interfere.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ReinError } from '../errors.js';
import type { GlobalConfig, PermissionMode } from '../config/schema.js';
import { AGENT_NAME_RE, DEFAULT_AGENT, paths } from '../config/paths.js';
import { AnthropicLlm, type LlmClient } from '../llm/client.js';
import { ApprovalBroker } from '../permissions/approvalBroker.js';
import { basicPolicy } from '../permissions/basicPolicy.js';
import type { ApprovalFace, PermissionPolicy } from '../permissions/types.js';
import { ToolRegistry } from '../tools/registry.js';
import { builtinTools } from '../tools/builtin/index.js';
import { SessionReadTracker } from '../tools/readTracker.js';
import type { EgressCheck, ToolContext } from '../tools/tool.js';
import { SessionStore } from '../sessions/store.js';
import type { SessionFile } from '../sessions/types.js';
import { titleFromPrompt } from '../sessions/title.js';
import { Inbox } from '../harness/inbox.js';
import { runAgent, type RunOutcome, type RunSettings } from '../harness/loop.js';
import type { ReinEvent } from '../api/events.js';
import { AuditLog } from '../audit/auditLog.js';
import { persistAlwaysAllow } from '../permissions/alwaysAllow.js';
import type { Tool } from '../tools/tool.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1', '[::1]', '0.0.0.0']);

export interface ModelAccess {
  apiKey: string;
  baseURL?: string;
}

/** The key comes from ANTHROPIC_API_KEY; a loopback base URL (a local compatible server) needs none. */
export function resolveModelAccess(env: NodeJS.ProcessEnv, config: GlobalConfig, home: string): ModelAccess {
  const baseURL = config.base_url ?? env.ANTHROPIC_BASE_URL?.trim() ?? undefined;
  const apiKey = env.ANTHROPIC_API_KEY?.trim() || env.ANTHROPIC_AUTH_TOKEN?.trim();
  if (apiKey) return { apiKey, ...(baseURL ? { baseURL } : {}) };
  if (baseURL) {
    try {
      if (LOOPBACK_HOSTS.has(new URL(baseURL).hostname)) return { apiKey: 'local', baseURL };
    } catch {
      throw new ReinError('config_invalid', `ANTHROPIC_BASE_URL is not a valid URL: ${baseURL}`);
    }
  }
  throw new ReinError(
    'no_api_key',
    `No API key: set ANTHROPIC_API_KEY (or point ANTHROPIC_BASE_URL / base_url in ${paths.globalConfig(home)} at a local Anthropic-compatible server).`,
  );
}

export interface RuntimeOptions {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: GlobalConfig;
  agent?: string;
  source?: string;
  mode?: PermissionMode;
  /** Approve every ask (hard blocks still hold once the permission engine is in). */
  yes?: boolean;
  faces: ApprovalFace[];
  /** Tests and embedders may bring their own model client or policy. */
  llm?: LlmClient;
  policy?: PermissionPolicy;
}

export interface Runtime {
  agent: string;
  source: string;
  config: GlobalConfig;
  settings: RunSettings;
  llm: LlmClient;
  registry: ToolRegistry;
  policy: PermissionPolicy;
  broker: ApprovalBroker;
  store: SessionStore;
  audit: AuditLog;
  /** Saves an "always allow" answer: the exact command (bash) or the tool name, in the agent's config file. */
  onAlwaysAllow: (tool: Tool, input: unknown) => Promise<void>;
  persona?: string;
}

export async function createRuntime(opts: RuntimeOptions): Promise<Runtime> {
  const agent = opts.agent ?? DEFAULT_AGENT;
  if (!AGENT_NAME_RE.test(agent)) {
    throw new ReinError('invalid_input', `agent name "${agent}" is invalid: use lowercase letters, digits, - and _ (at most 64)`);
  }
  const persona = agent === DEFAULT_AGENT ? undefined : await readPersona(opts.home, agent);
  const config = opts.config;
  const llm =
    opts.llm ??
    new AnthropicLlm({
      ...resolveModelAccess(opts.env, config, opts.home),
      ...(numberEnv(opts.env.REIN_RETRY_BASE_MS) !== undefined ? { baseDelayMs: numberEnv(opts.env.REIN_RETRY_BASE_MS)! } : {}),
      ...(numberEnv(opts.env.REIN_LLM_IDLE_MS) !== undefined ? { idleTimeoutMs: numberEnv(opts.env.REIN_LLM_IDLE_MS)! } : {}),
    });
  const registry = new ToolRegistry(builtinTools()).filter(config.tools.allowed, config.tools.denied);
  const mode = opts.mode ?? config.permissions.mode;
  return {
    agent,
    source: opts.source ?? 'cli',
    config,
    settings: {
      model: config.model,
      maxTokens: config.max_tokens,
      ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
      maxIterations: config.max_iterations,
      maxUsdPerRun: config.budget.max_usd_per_run,
      maxParallel: config.tools.max_parallel,
      resultBudget: config.tools.result_budget,
      mode,
      prices: config.prices,
    },
    llm,
    registry,
    policy: opts.policy ?? basicPolicy({ yes: opts.yes ?? false }),
    broker: new ApprovalBroker(opts.faces, { timeoutMs: config.permissions.approval_timeout_seconds * 1000 }),
    store: new SessionStore(paths.sessionsDir(opts.home, agent)),
    audit: new AuditLog(paths.auditLog(opts.home)),
    onAlwaysAllow: async (tool, input) => {
      const file = agent === DEFAULT_AGENT ? paths.globalConfig(opts.home) : join(paths.agentDir(opts.home, agent), 'config.yaml');
      const command = tool.name === 'bash' && input && typeof input === 'object' ? (input as { command?: unknown }).command : undefined;
      await persistAlwaysAllow(typeof command === 'string' ? { file, command } : { file, tool: tool.name });
    },
    ...(persona ? { persona } : {}),
  };
}

async function readPersona(home: string, agent: string): Promise<string> {
  const file = join(paths.agentDir(home, agent), 'AGENT.md');
  try {
    return await readFile(file, 'utf8');
  } catch {
    throw new ReinError('not_found', `agent "${agent}" not found: ${file} does not exist`);
  }
}

function numberEnv(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

export interface StartRunOptions {
  prompt: string;
  cwd: string;
  home: string;
  /** Continue this session; otherwise a new one is made. */
  sessionId?: string;
  signal: AbortSignal;
  inbox?: Inbox;
  egress?: EgressCheck;
}

/** Loads or creates the session and starts the loop. */
export async function startRun(rt: Runtime, opts: StartRunOptions): Promise<{ session: SessionFile; events: AsyncGenerator<ReinEvent, RunOutcome> }> {
  const session = opts.sessionId
    ? await rt.store.load(opts.sessionId)
    : rt.store.create({ agent: rt.agent, cwd: opts.cwd, source: rt.source, title: titleFromPrompt(opts.prompt) });
  const toolContext: ToolContext = {
    cwd: opts.cwd,
    sessionId: session.id,
    sessionDir: rt.store.sideDir(session.id),
    reinHome: opts.home,
    agent: rt.agent,
    readTracker: new SessionReadTracker(),
    egress: opts.egress ?? (async () => ({ allowed: true })),
  };
  const events = runAgent(
    {
      prompt: opts.prompt,
      session,
      save: (s) => rt.store.save(s),
      source: rt.source,
      agent: rt.agent,
      ...(rt.persona ? { persona: rt.persona } : {}),
      settings: rt.settings,
      toolContext,
      signal: opts.signal,
      ...(opts.inbox ? { inbox: opts.inbox } : {}),
    },
    {
      llm: rt.llm,
      registry: rt.registry,
      policy: rt.policy,
      broker: rt.broker,
      hooks: rt.config.hooks,
      audit: rt.audit,
      onAlwaysAllow: rt.onAlwaysAllow,
    },
  );
  return { session, events };
}
