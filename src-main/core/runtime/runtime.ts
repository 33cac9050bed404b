/**
 * The composition root of one run: from config, environment and the chosen agent it builds the
 * model client, tool registry, permission policy, approval broker and session store. Switching agents
 * means building another runtime: persona, model, limits, tools, skills, memory and sessions all come
 * from the agent. Nothing global and mutable is shared between two runtimes, so concurrent runs
 * (daemon routes) cannot interfere.
 */
import { ReinError, errorMessage } from '../errors.js';
import type { GlobalConfig, GrantEntry, PermissionMode } from '../config/schema.js';
import { describeGrant, exactGrant } from '../permissions/grants.js';
import { AGENT_NAME_RE, DEFAULT_AGENT, paths } from '../config/paths.js';
import { resolveAgentRuntimeConfig, type AgentRuntimeConfig } from '../agents/index.js';
import { AnthropicLlm, type LlmClient } from '../llm/client.js';
import { ApprovalBroker } from '../permissions/approvalBroker.js';
import { createPermissionEngine, type EngineOptions } from '../permissions/engine.js';
import { egressCheck } from '../permissions/egress.js';
import { reinPorts } from '../permissions/reinGuards.js';
import { homedir } from 'node:os';
import type { ApprovalFace, PermissionPolicy } from '../permissions/types.js';
import { originTraits, rulesForOrigin, withOriginRules } from '../permissions/runPolicy.js';
import type { RunOrigin } from '../api/patterns.js';
import type { IsolatedContext, RunOverrides } from './runRequest.js';
import { persistAlwaysAllow } from '../permissions/alwaysAllow.js';
import type { ToolRegistry } from '../tools/registry.js';
import { borrowedProvider, StaticToolProvider, type ToolProvider } from '../tools/provider.js';
import { ToolSet } from '../tools/toolSet.js';
import { TOOL_SEARCH_NAME } from '../tools/deferredTools.js';
import { builtinTools } from '../tools/builtin/index.js';
import { createUseSkillTool } from '../tools/builtin/useSkill.js';
import { createMemoryAppendTool, NO_APPROVAL_TOOLS } from '../tools/builtin/memoryAppend.js';
import { SessionReadTracker } from '../tools/readTracker.js';
import type { EgressCheck, Tool, ToolContext } from '../tools/tool.js';
import { SessionStore } from '../sessions/store.js';
import type { SessionFile } from '../sessions/types.js';
import type { HeldLock } from '../util/ownedLock.js';
import { noteSavedSession } from '../sessions/indexNotes.js';
import { titleFromPrompt } from '../sessions/title.js';
import { Inbox } from '../harness/inbox.js';
import { RUN_SPENDING, runAgentWhenReady, type PreparedParts, type RunOutcome, type RunSettings, type RunSetup, type RunSpending, type RunStart } from '../harness/loop.js';
import type { ReinEvent } from '../api/events.js';
import { AuditLog } from '../audit/auditLog.js';
import { bundledSkillsDir, loadSkills, type Skill } from '../skills/index.js';
import { createToolSearchTool } from '../tools/builtin/toolSearch.js';
import { sessionSearchTool } from '../tools/builtin/sessionSearch.js';
import { createScheduleTools } from '../tools/builtin/schedule.js';
import type { SourceFacts } from '../context/index.js';
import { loadInstructions } from '../instructions/index.js';
import { consolidateMemory, consolidationDue, loadMemory, shouldConsolidate } from '../memory/index.js';
import type { RuntimeCache } from './runtimeCache.js';
import { protectedMemoryPaths } from '../memory/files.js';
import { join } from 'node:path';
import { isLocalOrWildcard } from '../util/loopback.js';
import type { McpManager } from '../mcp/manager.js';
import { acceptDefaults, acceptValues, ELICITATION_SLOT, type ElicitationAnswer, type ElicitationRequest, type Elicitor } from '../mcp/elicitation.js';
import { MAX_SAMPLING_PER_RUN, SAMPLING_SLOT, SamplingRefused, type Sampler } from '../mcp/sampling.js';
import { sessionSlots } from '../tools/sessionSlots.js';
import { TOOL_EVENT_SINK } from '../harness/executor.js';
import { maskSecretsIn } from '../audit/maskSecrets.js';
import { newApprovalId } from '../permissions/approvalBroker.js';
import type { ApprovalRequest } from '../api/events.js';
import type { OriginRules } from '../permissions/runPolicy.js';
import type { CloudKeyStore } from '../cloud/index.js';
import { loadGuiProvider } from '../ax/guiProviderLoader.js';
import { networkWaitMs, waitForNetwork } from '../llm/networkWait.js';
import { isLocalModelServer } from '../llm/pricing.js';
import { resolveApiKey, type KeySource } from '../secrets/apiKey.js';


export interface ModelAccess {
  apiKey: string;
  baseURL?: string;
  /** Where the key came from: the environment, a key store (secrets/apiKey.ts), or none (a local server). */
  keySource: KeySource | 'none';
}

/**
 * The key is ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), else the stored one (`rein auth set-key`, the
 * app's Settings: secrets/apiKey.ts), sent to the configured base URL wherever it is; without either, a
 * loopback base URL (a local compatible server) needs none. The stored key is read only here, when a
 * model client is about to be made, and never put into `env`.
 */
export async function resolveModelAccess(
  env: NodeJS.ProcessEnv,
  config: GlobalConfig,
  home: string,
  o: { storedKey?: boolean } = {},
): Promise<ModelAccess> {
  const baseURL = config.base_url ?? (env.ANTHROPIC_BASE_URL?.trim() || undefined);
  const found = await resolveApiKey(env, home, { storedKey: o.storedKey ?? true });
  if (found.key && found.source) return { apiKey: found.key, ...(baseURL ? { baseURL } : {}), keySource: found.source };
  if (baseURL) {
    try {
      if (isLocalOrWildcard(new URL(baseURL).hostname)) return { apiKey: 'local', baseURL, keySource: 'none' };
    } catch {
      throw new ReinError('config_invalid', `ANTHROPIC_BASE_URL is not a valid URL: ${baseURL}`);
    }
  }
  throw new ReinError(
    'no_api_key',
    `No API key: run \`rein auth set-key\` (or set ANTHROPIC_API_KEY, or point ANTHROPIC_BASE_URL / base_url in ${paths.globalConfig(home)} at a local Anthropic-compatible server).` +
      (found.problem ? ` The stored key could not be read: ${found.problem}.` : ''),
  );
}

/** The face name of answers given over the daemon's HTTP and WebSocket API (a token holder). */
export const REMOTE_FACE = 'daemon';
/** Answers no person here is known to have given: the daemon's API, an MCP client's form (`rein mcp serve`). */
const REMOTE_FACES: ReadonlySet<string> = new Set([REMOTE_FACE, 'mcp_client']);

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

export async function createRuntime(opts: RuntimeOptions): Promise<Runtime> {
  // A manager made for this run must not outlive a runtime that could not be built.
  const owned: McpManager[] = [];
  try {
    return await buildRuntime(opts, owned);
  } catch (err) {
    await Promise.all(owned.map((m) => m.dispose()));
    throw err;
  }
}

async function buildRuntime(opts: RuntimeOptions, owned: McpManager[]): Promise<Runtime> {
  const agent = opts.agent ?? DEFAULT_AGENT;
  if (!AGENT_NAME_RE.test(agent)) {
    throw new ReinError('invalid_input', `agent name "${agent}" is invalid: use lowercase letters, digits, - and _ (at most 64)`);
  }
  const cache = opts.cache;
  const rc = cache ? await cache.agentConfig(opts.home, opts.config, agent) : await resolveAgentRuntimeConfig(opts.home, opts.config, agent);
  const config = rc.effective.config;
  const warnings: string[] = [];

  const bundledDir = opts.bundledSkillsDir ?? (cache ? cache.bundledSkillsDir() : bundledSkillsDir());
  const loaded = cache
    ? await cache.skills(opts.home, agent, bundledDir)
    : await loadSkills({ home: opts.home, agent, ...(bundledDir ? { bundledDir } : {}) });
  for (const p of loaded.problems) warnings.push(`skill ${p.file}${p.field ? ` (${p.field})` : ''}: ${p.message}`);
  const skills = loaded.skills;

  const client = opts.llm ?? (await modelClient(opts.env, config, opts.home, cache, opts.pace));
  // A run nobody watches waits for the network before it fails (a Mac just awake: llm/networkWait.ts).
  const waitMs = originTraits(opts.origin).nobodyWatching ? networkWaitMs(opts.env) : 0;
  const llm = waitMs > 0 ? waitForNetwork(client, { totalMs: waitMs }) : client;

  // cloud.enabled: cloud_delegate, from one provider per configuration (so a RuntimeCache keeps its registry).
  // Its code is loaded only when it is enabled (docs/architecture.md, *Startup*).
  const cloud = config.cloud.enabled
    ? (await import('../cloud/provider.js')).cloudToolProvider({ cloud: config.cloud, env: opts.env, home: opts.home, ...(opts.cloudKeys ? { keys: opts.cloudKeys } : {}) })
    : undefined;
  const providers = cloud ? [...(opts.toolProviders ?? []), cloud] : (opts.toolProviders ?? []);
  // gui.enabled (auto: macOS, or Linux with a display and the AT-SPI helper): the GUI tools, one provider per process.
  const gui = await loadGuiProvider(config.gui.enabled, opts.env, providers);
  const withGui = gui ? [...providers, gui] : providers;
  // The agent's MCP servers: the cache's manager for the agent (kept connected between runs), or one for
  // this run. The first run waits for each server's first attempt (its connect timeout at most).
  const mcp = await mcpFor(opts, rc, owned);
  if (mcp) {
    await untilStopped(mcp.manager.ready(), opts.signal);
    warnings.push(...mcp.manager.problems());
    mcp.context = mcp.manager.context();
    mcp.instructions = mcp.manager.instructions();
  }
  const withMcp = mcp ? [...withGui, ...mcp.manager.providers] : withGui;
  const toolSet = cache ? cache.toolSet(opts.home, rc, loaded, withMcp, () => buildToolSet(rc, skills, withMcp, opts.env)) : buildToolSet(rc, skills, withMcp, opts.env);
  await toolSet.registry();
  for (const p of toolSet.problems) warnings.push(p.message);
  // Without a cache and without MCP servers nothing changes the tools during the run. With MCP servers the
  // set stays live: a tool a server adds during the run (tools/list_changed) is in `registry` for its next
  // step (the set's listeners go with the servers' manager).
  if (!cache && !mcp) toolSet.dispose();
  const mode = opts.overrides?.mode ?? opts.mode ?? rc.effective.mode;
  const origin = opts.origin;
  const source = opts.source ?? 'cli';
  const rules = rulesForOrigin(
    origin,
    { ...(opts.faces ? { present: opts.faces } : {}), ...(opts.desk ? { desk: opts.desk } : {}), ...(opts.clientConnected ? { clientConnected: opts.clientConnected } : {}) },
    { unattendedApprovals: rc.effective.unattendedApprovals, source },
  );
  const base =
    opts.policy ??
    permissionEngine(rc, { permissions: config.permissions, home: opts.env.HOME ?? homedir(), reinHome: opts.home, autoApprove: rc.effective.autoApprove, yes: opts.yes ?? false, reinPorts: [config.daemon.port], mcpAlwaysAllow: mcpAlwaysAllow(config) }, cache);
  // Tools that only touch Rein's own state (memory) never need a person's approval.
  const ownState: PermissionPolicy = {
    check: (call) =>
      NO_APPROVAL_TOOLS.has(call.tool.name)
        ? { decision: 'allow', layer: 'tool', reason: `${call.tool.name} only changes the agent's memory`, risk: 'low', riskExplanation: 'writes to Rein’s own memory file' }
        : base.check(call),
  };
  // What may not be asked (an unattended run with nobody to ask) is denied here, before any question.
  const policy = withOriginRules(ownState, rules);

  return {
    agent,
    source,
    origin,
    route: opts.route ?? source,
    config,
    agentConfig: rc,
    settings: {
      model: opts.overrides?.model ?? rc.effective.model,
      maxTokens: rc.effective.maxTokens,
      ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
      maxIterations: opts.overrides?.max_iterations ?? rc.effective.maxIterations ?? rules.defaultMaxIterations,
      maxUsdPerRun: lowerCap(rc.effective.maxUsdPerRun, opts.overrides?.isolated?.max_usd),
      maxParallel: config.tools.max_parallel,
      resultBudget: config.tools.result_budget,
      mode,
      prices: config.prices,
      // The address runs send to (resolveModelAccess's): a local server's tokens cost $0 unless `prices` says.
      ...(isLocalModelServer(config.base_url ?? (opts.env.ANTHROPIC_BASE_URL?.trim() || undefined)) ? { localModel: true } : {}),
      contextWindow: rc.effective.contextWindow,
      smallModel: rc.effective.smallModel,
      ...(opts.overrides?.isolated?.cache_ttl ? { prefixCacheTtl: opts.overrides.isolated.cache_ttl } : {}),
    },
    llm,
    // The set's latest registry: the same object while nothing changed (the request prefix stays).
    get registry() {
      return toolSet.current;
    },
    policy,
    broker: new ApprovalBroker(rules.faces, { timeoutMs: config.permissions.approval_timeout_seconds * 1000 }),
    store: new SessionStore(rc.sessionsDir, cache ? { cache: cache.sessions } : {}),
    audit: new AuditLog(paths.auditLog(opts.home)),
    skills,
    warnings,
    onAlwaysAllow: async (tool, input, by, given) => {
      const file = rc.isDefault || !rc.dir ? paths.globalConfig(opts.home) : join(rc.dir, 'config.yaml');
      // The grant the person saw (grants.ts); a caller without one gets what the engine gives this call.
      const entry = given !== undefined ? given : (await policy.check({ tool, input, cwd: opts.cwd, mode, source, origin, agent })).grant;
      if (entry === null) throw new ReinError('invalid_input', `${tool.name} here cannot be allowed beyond one call (it changes a protected or persistence place)`);
      const grantEntry = entry ?? exactGrant(tool.name, input);
      const describe = describeGrant(grantEntry, opts.env.HOME ?? homedir());
      const grant: RemoteGrant = {
        agent: rc.name,
        file,
        field: 'permissions.grants',
        entry: grantEntry,
        describe,
        save: async () => {
          await persistAlwaysAllow({ file, grant: grantEntry });
        },
      };
      if (!REMOTE_FACES.has(by)) return void (await grant.save());
      // Allowed for this run; for later runs it waits for a person (docs/permissions.md, Threat model).
      if (!opts.remoteGrants) return `"always allow" for ${describe} was answered over Rein's API, so it holds for this run only; to keep it, add ${JSON.stringify(grantEntry)} to ${grant.field} in ${file}`;
      return opts.remoteGrants(grant);
    },
    ...(rc.persona ? { persona: rc.persona } : {}),
    ...(cache ? { cache } : {}),
    ...(opts.overrides?.isolated ? { isolated: opts.overrides.isolated } : {}),
    ...(mcp ? { mcp } : {}),
    elicitation: { yes: opts.yes ?? false, mayAsk: rules.mayAsk, ...(opts.openUrl ? { openUrl: opts.openUrl } : {}) },
  };
}

/** `work`, or a `llm_cancelled` error as soon as `signal` aborts (the work itself goes on: its owner stops it). */
async function untilStopped<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  const stopped = () => new ReinError('llm_cancelled', 'the run was stopped before it started');
  if (signal.aborted) throw stopped();
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => signal.addEventListener('abort', (onAbort = () => reject(stopped())), { once: true }))]);
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
async function mcpFor(opts: RuntimeOptions, rc: AgentRuntimeConfig, owned: McpManager[]): Promise<RuntimeMcp | undefined> {
  const servers = rc.effective.mcpServers;
  if (Object.keys(servers).length === 0) return undefined;
  // The cache's is made the same way, with the cache's token store (the desktop app's key store).
  if (opts.cache && opts.mcp !== false) return { manager: opts.cache.agentMcp(opts.home, rc, opts.env, opts.cwd), owned: false, context: {}, instructions: {} };
  if (opts.cache || opts.mcp !== true) return undefined;
  // Loaded only for an agent with MCP servers (docs/architecture.md, *Startup*).
  const { McpManager } = await import('../mcp/manager.js');
  // Stdio servers start in the agent's folder when it names one, else in the run's (`rein run`) or the process's.
  const manager = new McpManager({ servers, env: opts.env, home: opts.home, cwd: rc.cwd ?? opts.cwd, envPassthrough: rc.effective.config.tools.env_passthrough });
  owned.push(manager);
  return { manager, owned: true, context: {}, instructions: {} };
}

/** Each MCP server's `always_allow` list, from the effective config (the engine is kept per config). */
function mcpAlwaysAllow(config: GlobalConfig): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, server] of Object.entries(config.mcp_servers)) if (server.always_allow && server.always_allow.length > 0) out[name] = [...server.always_allow];
  return out;
}

/**
 * The run's answer to an MCP server that asks for input during a call: with `--yes` the form's
 * defaults (when they fill it), else the run's approval faces show the form — the same broker, the
 * same `approval_request` / `approval_response` events as an approval — and a run nobody may be asked
 * in (unattended) declines. A yes brings the filled-in values; a no declines; no answer cancels.
 */
function runElicitor(rt: Runtime, ctx: ToolContext): Elicitor {
  return async (req, signal) => {
    if (rt.elicitation?.yes) {
      const defaults = acceptDefaults(req);
      if (defaults) return defaults;
    }
    if (!(rt.elicitation?.mayAsk() ?? { ok: true }).ok) return { action: 'decline' };
    if (req.url !== undefined) return askToOpen(rt, ctx, req, signal);
    const request = serverQuestion(rt, ctx, req, {
      summary: `${req.server} asks: ${oneLine(req.message)}`,
      reason: `the MCP server ${req.server} asks for input while ${req.tool} runs`,
      risk_explanation: `what you fill in is sent to the MCP server ${req.server}`,
      form: { message: req.message, schema: req.schema },
    });
    const answer = await askPerson(rt, ctx, request, signal);
    if (answer.decision === 'deny') return refusal(answer.by);
    return acceptValues(req, answer.values).answer;
  };
}

/** The approval request of an MCP server's question during one of its calls (layer elicitation, medium risk). */
function serverQuestion(
  rt: Runtime,
  ctx: ToolContext,
  req: Pick<ElicitationRequest, 'tool' | 'input'>,
  words: Pick<ApprovalRequest, 'summary' | 'reason' | 'risk_explanation'> & Partial<Pick<ApprovalRequest, 'form'>>,
): ApprovalRequest {
  return {
    request_id: newApprovalId(),
    session_id: ctx.sessionId,
    agent: rt.agent,
    route: rt.route,
    source: rt.source,
    origin: rt.origin,
    tool: req.tool,
    input: maskSecretsIn(req.input),
    layer: 'elicitation',
    risk: 'medium',
    asked_at: new Date().toISOString(),
    ...words,
  };
}

/** A server's message on one line, at most 300 characters. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}

/**
 * An MCP server asking the run's model (sampling.ts): unattended runs refuse; `--yes` answers without
 * asking; otherwise a person allows it, seeing what is asked and how many tokens it may take. One turn,
 * no tools; the small model when the server prefers speed or cost; the tokens are told to the run.
 */
function runSampler(rt: Runtime, ctx: ToolContext): Sampler {
  let used = 0;
  return async (req, signal) => {
    // A server that keeps asking cannot go on without end; what it spends counts in the run's cap.
    if (++used > MAX_SAMPLING_PER_RUN) throw new SamplingRefused(`this run has answered ${MAX_SAMPLING_PER_RUN} sampling requests already`);
    const spending = sessionSlots(ctx).slot(RUN_SPENDING, () => undefined as RunSpending | undefined);
    if (spending?.overBudget()) throw new SamplingRefused("the run's spending cap (budget.max_usd_per_run) is reached");
    const model = req.preferSmall ? (rt.settings.smallModel ?? rt.settings.model) : rt.settings.model;
    if (!rt.elicitation?.yes) {
      const may = rt.elicitation?.mayAsk() ?? { ok: true };
      if (!may.ok) throw new SamplingRefused(`nobody is watching this ${rt.source} run to allow it`);
      const last = [...req.messages].reverse().find((m) => m.role === 'user')!;
      const request = serverQuestion(rt, ctx, req, {
        summary: `${req.server} asks ${model} (up to ${req.maxTokens} tokens): ${oneLine(last.text)}`,
        reason: `the MCP server ${req.server} wants an answer from the model while ${req.tool} runs; the answer goes to the server`,
        risk_explanation: `what the server wrote goes to the model and costs tokens; the answer goes to the MCP server ${req.server}`,
      });
      const answer = await askPerson(rt, ctx, request, signal);
      if (answer.decision === 'deny') throw new SamplingRefused(answer.by === 'timeout' ? 'nobody answered in time' : 'the person declined');
    }
    const turn = rt.llm.turn(
      {
        model,
        maxTokens: req.maxTokens,
        ...(req.temperature !== undefined ? { temperature: Math.max(0, Math.min(1, req.temperature)) } : {}),
        system: req.systemPrompt ? [{ type: 'text', text: req.systemPrompt }] : [],
        messages: req.messages.map((m) => ({ role: m.role, content: m.text })),
        tools: [],
      },
      signal,
    );
    let step = await turn.next();
    while (!step.done) step = await turn.next();
    const response = step.value;
    spending?.add(response.model, response.usage);
    const emit = sessionSlots(ctx).slot(TOOL_EVENT_SINK, () => () => undefined);
    emit({ type: 'notice', level: 'info', message: `MCP server ${req.server} used ${response.model}: ${response.usage.inputTokens} input and ${response.usage.outputTokens} output tokens` });
    const text = response.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    return { text, model: response.model, stopReason: response.stopReason === 'max_tokens' ? 'maxTokens' : response.stopReason === 'stop_sequence' ? 'stopSequence' : 'endTurn' };
  };
}

/** An MCP server's question through the run's broker, announced on the run's events like a tool's. */
async function askPerson(rt: Runtime, ctx: ToolContext, request: ApprovalRequest, signal: AbortSignal) {
  const emit = sessionSlots(ctx).slot(TOOL_EVENT_SINK, () => () => undefined);
  const { session_id: _session, ...asked } = request;
  emit({ type: 'approval_request', ...asked });
  const answer = await rt.broker.request(request, signal);
  emit({ type: 'approval_response', request_id: request.request_id, decision: answer.decision, by: answer.by });
  return answer;
}

/** A deny by nobody (timed out, cancelled) cancels the server's question; a person's declines it. */
const refusal = (by: string): ElicitationAnswer => (['timeout', 'cancelled', 'withdrawn', 'error'].includes(by) ? { action: 'cancel' } : { action: 'decline' });

/**
 * An MCP server asks the person to open a page (URL-mode elicitation): only an http(s) address, only with
 * somewhere to open it, and only when a person allows it (its whole address is in the question).
 */
async function askToOpen(rt: Runtime, ctx: ToolContext, req: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> {
  const open = rt.elicitation?.openUrl;
  let url: URL;
  try {
    url = new URL(req.url!);
  } catch {
    return { action: 'decline' };
  }
  if (!open || (url.protocol !== 'https:' && url.protocol !== 'http:')) return { action: 'decline' };
  const said = oneLine(req.message);
  const request = serverQuestion(rt, ctx, req, {
    summary: `${req.server} asks you to open ${url.href}`,
    reason: `the MCP server ${req.server} wants a page opened in your browser while ${req.tool} runs${said ? `: ${said}` : ''}`,
    risk_explanation: `the page is the MCP server's choice (${url.host}): check its address before you allow it`,
  });
  const answer = await askPerson(rt, ctx, request, signal);
  if (answer.decision === 'deny') return refusal(answer.by);
  try {
    await open(url);
  } catch {
    return { action: 'cancel' };
  }
  return { action: 'accept', content: {} };
}

/** The agent's spending cap (0: none) lowered to the run's own, when it has a positive one. */
function lowerCap(cap: number, lower: number | undefined): number {
  if (lower === undefined || !(lower > 0)) return cap;
  return cap > 0 ? Math.min(cap, lower) : lower;
}

/**
 * The agent's tools: first the local provider (built-ins, its memory tool, use_skill when it has
 * skills, tool_search), then the providers given, filtered by the agent's allowed/denied lists.
 */
function buildToolSet(rc: AgentRuntimeConfig, skills: Skill[], providers: readonly ToolProvider[], env: NodeJS.ProcessEnv): ToolSet {
  // tool_search is not a capability the lists grant: it only loads the deferred tools they already let through.
  const set = new ToolSet([], { allowed: rc.effective.tools.allowed, denied: rc.effective.tools.denied, unfiltered: [TOOL_SEARCH_NAME] });
  const tools: Tool[] = [...builtinTools(), createMemoryAppendTool(rc.memoryDir), sessionSearchTool, ...createScheduleTools({ env, config: rc.effective.config })];
  if (skills.length > 0) tools.push(createUseSkillTool(skills));
  // Sent only while MCP/cloud tools are deferred (more than 30 tools); it searches what the set assembled last.
  tools.push(createToolSearchTool({ tools: () => set.current.list(), definition: (t) => set.current.definition(t) }));
  set.add(new StaticToolProvider('local', 'local', tools));
  for (const p of providers) set.add(borrowedProvider(p));
  return set;
}

function permissionEngine(rc: AgentRuntimeConfig, o: EngineOptions, cache: RuntimeCache | undefined): PermissionPolicy {
  return cache ? cache.policy(rc, JSON.stringify([o.home, o.reinHome, o.yes, o.reinPorts]), () => createPermissionEngine(o)) : createPermissionEngine(o);
}

async function modelClient(env: NodeJS.ProcessEnv, config: GlobalConfig, home: string, cache: RuntimeCache | undefined, pace: RuntimeOptions['pace']): Promise<LlmClient> {
  const options = await modelClientOptions(env, config, home);
  if (!cache) return new AnthropicLlm(options);
  // A paced client shares one transport per pace function: its streamed bytes wait for the daemon's Turnstile.
  const make = () => new AnthropicLlm({ ...options, ...(pace ? { fetch: cache.pacedFetch(pace) } : {}) });
  // Keyed by what the options are made of, so a cached client costs no parsing; a changed key or URL makes a new one.
  const key = [options.baseURL, options.apiKey, env.REIN_RETRY_BASE_MS, env.REIN_LLM_IDLE_MS, home, pace ? 'paced' : ''].join('\0');
  return cache.llm(key, make);
}

async function modelClientOptions(env: NodeJS.ProcessEnv, config: GlobalConfig, home: string) {
  const { keySource: _source, ...access } = await resolveModelAccess(env, config, home);
  return {
    ...access,
    ...(numberEnv(env.REIN_RETRY_BASE_MS) !== undefined ? { baseDelayMs: numberEnv(env.REIN_RETRY_BASE_MS)! } : {}),
    ...(numberEnv(env.REIN_LLM_IDLE_MS) !== undefined ? { idleTimeoutMs: numberEnv(env.REIN_LLM_IDLE_MS)! } : {}),
  };
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
  /** A session already loaded or made by the caller (the daemon opens it before building the runtime). */
  session?: SessionFile;
  signal: AbortSignal;
  inbox?: Inbox;
  egress?: EgressCheck;
  /** Sticky facts about where the message came from (daemon routes: Slack channel, sender…). */
  sourceFacts?: SourceFacts;
  /**
   * Called after each save, where the run may give way to other work; a returned promise makes it
   * wait (the model's streamed bytes are paced by the transport, RuntimeOptions.pace). The daemon passes its Turnstile, so many runs cannot delay a new
   * message.
   */
  pace?: () => Promise<void> | undefined;
  /**
   * How long to wait for another process that writes the session (sessions/sessionLock.ts; default
   * 30 s), and where to say that it waits ("session S is in use by the Rein daemon (pid N); waiting…").
   */
  sessionWaitMs?: number;
  onSessionWait?: (message: string) => void;
}

/**
 * Loads or creates the session and starts the loop. The per-session prompt parts that take time
 * (instructions, memory — consolidated first when due) are gathered by the loop right after it has
 * announced the session (`prepare`), so session_start never waits for them.
 */
/** A started run: its session, its events, and `release` for a consumer done with the session early. */
export interface StartedRun {
  session: SessionFile;
  events: AsyncGenerator<ReinEvent, RunOutcome>;
  /**
   * The consumer has done all it does with the session after the end (the daemon: index it): hand it
   * back to the store now instead of on the next turn of the event loop, so a message that follows at
   * once continues this very object. Does nothing before the events are over, or a second time.
   */
  release: () => void;
}

export async function startRun(rt: Runtime, opts: StartRunOptions): Promise<StartedRun> {
  let session: SessionFile;
  // One writer per session across processes, from the load (or the first save) to the last save; an
  // isolated run saves nothing and takes none. A session handed in is its caller's to lock.
  let lock: HeldLock | undefined;
  const lockOpts = {
    ...(opts.sessionWaitMs !== undefined ? { waitMs: opts.sessionWaitMs } : {}),
    ...(opts.onSessionWait ? { onWait: opts.onSessionWait } : {}),
    signal: opts.signal,
  };
  try {
    if (opts.session) session = opts.session;
    else if (opts.sessionId) {
      if (!rt.isolated) lock = await rt.store.lock(opts.sessionId, lockOpts);
      session = await rt.store.load(opts.sessionId);
    } else {
      session = rt.store.create({ agent: rt.agent, cwd: opts.cwd, source: rt.source, title: titleFromPrompt(opts.prompt) });
      if (!rt.isolated) lock = await rt.store.lock(session.id, { ...lockOpts, newSession: true });
    }
  } catch (err) {
    await lock?.release();
    // No events will run to stop them: a session that cannot be loaded stops the run's own MCP servers here.
    await closeRuntime(rt);
    throw err;
  }
  const unlock = () => void lock?.release();
  const start: RunStart = { session, source: rt.source, agent: rt.agent, origin: rt.origin, route: rt.route, model: rt.settings.model, cwd: opts.cwd, signal: opts.signal };
  const events = runAgentWhenReady(start, async () => loopParts(rt, opts, session));
  // Long-lived processes: once the run is over its session goes back to the store, so the route's next
  // message continues this very object instead of parsing the file again (SessionStore.release).
  // A run's own MCP servers stop when its events are over.
  // The session's lock goes once the events are over (the last save is done by then).
  if (!rt.cache) {
    return {
      session,
      ...releasedWhenOver(events, () => {
        unlock();
        if (rt.mcp?.owned) void rt.mcp.manager.dispose();
      }),
    };
  }
  return {
    session,
    ...releasedWhenOver(events, () => {
      rt.store.release(session);
      unlock();
    }),
  };
}

/** What the daemon knows before a run's runtime is built: enough for its `session_start`. */
export interface EarlyRunStart extends Omit<StartRunOptions, 'session' | 'sessionId'> {
  session: SessionFile;
  agent: string;
  source: string;
  origin: RunOrigin;
  route: string;
  model: string;
}

/**
 * Starts the loop before the runtime exists: its `session_start` goes out at the first step, and the
 * runtime (`build`: tools, permissions, model client, prompt parts) is made right after. A runtime that
 * cannot be built ends the run with `error` and `session_end`. `release` hands the session back to its
 * store once the run is over (see StartedRun.release).
 */
export function startRunWhenReady(opts: EarlyRunStart, build: () => Promise<Runtime>, release: () => void): StartedRun {
  const { session } = opts;
  const start: RunStart = { session, source: opts.source, agent: opts.agent, origin: opts.origin, route: opts.route, model: opts.model, cwd: opts.cwd, signal: opts.signal };
  const events = runAgentWhenReady(start, async () => loopParts(await build(), opts, session));
  return { session, ...releasedWhenOver(events, release) };
}

/**
 * Saves the run's session and notes it for the search index (search/pendingIndex.ts: an append at its
 * first save, else a stat), so a run killed at any moment after that is found by the next search. A note
 * that cannot be written only costs time: the index checks the session folders when it opens.
 */
async function saveAndNote(rt: Runtime, home: string, s: SessionFile): Promise<void> {
  await rt.store.save(s);
  await noteSavedSession(home, { agent: rt.agent, id: s.id }).catch(() => undefined);
}

/** The run's loop input and dependencies from its runtime. */
function loopParts(rt: Runtime, opts: Omit<StartRunOptions, 'session' | 'sessionId'>, session: SessionFile): Awaited<ReturnType<RunSetup>> {
  const warnings = [...rt.warnings];

  const memoryDir = rt.agentConfig.memoryDir;
  const cache = rt.cache;
  const pace = opts.pace;
  const isolated = rt.isolated;
  // Run by the loop once session_start is out: consolidation may call the model and take seconds.
  const prepare = async (): Promise<PreparedParts> => {
    // An isolated run reads no instruction files and no memory: its prompt is what the caller made it.
    if (isolated) return { instructions: isolated.instructions, warnings: [] };
    const problems: string[] = [];
    try {
      if (cache ? consolidationDue(await cache.consolidation(memoryDir), new Date()) : await shouldConsolidate(memoryDir)) {
        await consolidateMemory(memoryDir, { llm: rt.llm, model: rt.agentConfig.effective.smallModel, signal: opts.signal });
      }
    } catch (err) {
      problems.push(`memory consolidation failed (memory left as it was): ${errorMessage(err)}`);
    }
    const [instructions, memory] = await Promise.all([
      (cache ? cache.instructions(opts.home, opts.cwd) : loadInstructions({ home: opts.home, cwd: opts.cwd })).catch((err: unknown) => {
        problems.push(`instructions could not be read: ${errorMessage(err)}`);
        return undefined;
      }),
      (cache ? cache.memory(memoryDir) : loadMemory(memoryDir)).catch(() => ''),
    ]);
    for (const p of instructions?.problems ?? []) problems.push(`instructions ${p.file}: ${p.message}`);
    return { ...(instructions?.text ? { instructions: instructions.text } : {}), ...(memory ? { memory } : {}), warnings: problems };
  };

  const toolContext: ToolContext = {
    cwd: opts.cwd,
    sessionId: session.id,
    sessionDir: rt.store.sideDir(session.id),
    reinHome: opts.home,
    agent: rt.agent,
    readTracker: new SessionReadTracker(),
    // The policy has already decided about the URL (loopback and network_allowlist run, other hosts ask a
    // person); here only the scheme is checked again, e.g. for a URL a hook rewrote.
    // Rein's own daemon is refused here too (a PreToolUse hook may have rewritten the URL).
    egress: opts.egress ?? egressCheck(rt.config.permissions, { unlisted: 'allow', reinPorts: () => reinPorts(opts.home, [rt.config.daemon.port]) }),
    // Secret-looking variables the person lets commands see (the rest of them, and Rein's credentials, never).
    envPassthrough: rt.config.tools.env_passthrough,
    protectedPaths: cache ? cache.protectedPaths(memoryDir) : protectedMemoryPaths(memoryDir),
  };
  // An MCP server's question during a call goes to this run's faces (runElicitor).
  if (rt.mcp) {
    sessionSlots(toolContext).seed(ELICITATION_SLOT, runElicitor(rt, toolContext));
    sessionSlots(toolContext).seed(SAMPLING_SLOT, runSampler(rt, toolContext));
  }
  return {
    input: {
      prompt: opts.prompt,
      save: pace
        ? async (s) => {
            if (!isolated) await saveAndNote(rt, opts.home, s);
            await pace();
          }
        : (s) => (isolated ? Promise.resolve() : saveAndNote(rt, opts.home, s)),
      ...(rt.persona ? { persona: rt.persona } : {}),
      // The same array while the skills on disk are unchanged (RuntimeCache), so the catalogue text is rendered once.
      skills: isolated ? [] : rt.skills,
      prepare,
      memoryDir,
      ...(opts.sourceFacts ? { sourceFacts: opts.sourceFacts } : {}),
      ...(rt.mcp && !isolated ? { mcpContext: rt.mcp.context, mcpInstructions: rt.mcp.instructions } : {}),
      warnings,
      settings: rt.settings,
      toolContext,
      ...(opts.inbox ? { inbox: opts.inbox } : {}),
    },
    deps: {
      llm: rt.llm,
      // Read at every step, so tools an MCP server added during the run can be called in it.
      get registry() {
        return rt.registry;
      },
      policy: rt.policy,
      broker: rt.broker,
      hooks: rt.config.hooks,
      audit: rt.audit,
      onAlwaysAllow: rt.onAlwaysAllow,
    },
  };
}

/**
 * `events` as they are (same events, same return value, same errors), calling `release` once it is
 * over: run to its end, thrown, or closed by the consumer (`return()`, even before the first step).
 * Called on the next turn of the event loop, not at once: what the consumer does on seeing the end —
 * the daemon hands the session to its search index — still reads the session as this run left it,
 * before another run can take it from the store. A consumer that knows when it is done calls the
 * returned `release` itself: a busy daemon may read the route's next message before that next turn.
 */
function releasedWhenOver<T, R>(events: AsyncGenerator<T, R>, release: () => void): { events: AsyncGenerator<T, R>; release: () => void } {
  let over = false;
  let released = false;
  const releaseOnce = () => {
    if (released) return;
    released = true;
    release();
  };
  const end = () => {
    if (over) return;
    over = true;
    setImmediate(releaseOnce);
  };
  const settle = async (step: Promise<IteratorResult<T, R>>): Promise<IteratorResult<T, R>> => {
    let result: IteratorResult<T, R>;
    try {
      result = await step;
    } catch (err) {
      end();
      throw err;
    }
    if (result.done) end();
    return result;
  };
  const wrapped: AsyncGenerator<T, R> = {
    next: (...args) => settle(events.next(...args)),
    return: (value) => settle(events.return(value)),
    throw: (err) => settle(events.throw(err)),
    [Symbol.asyncIterator]: () => wrapped,
  };
  return { events: wrapped, release: () => over && releaseOnce() };
}
