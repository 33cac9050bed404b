/**
 * The composition root of one run: from config, environment and the chosen agent it builds the
 * model client, tool registry, permission policy, approval broker and session store. Switching agents
 * means building another runtime: persona, model, limits, tools, skills, memory and sessions all come
 * from the agent. Nothing global and mutable is shared between two runtimes, so concurrent runs
 * (daemon routes) cannot interfere.
 */
import { ReinError } from '../errors.js';
import { describeGrant, exactGrant } from '../permissions/grants.js';
import { AGENT_NAME_RE, DEFAULT_AGENT, paths } from '../config/paths.js';
import { resolveAgentRuntimeConfig, type AgentRuntimeConfig } from '../agents/index.js';
import { ApprovalBroker } from '../permissions/approvalBroker.js';
import { createPermissionEngine, type EngineOptions } from '../permissions/engine.js';
import { homedir } from 'node:os';
import type { PermissionPolicy } from '../permissions/types.js';
import { originTraits, rulesForOrigin, withOriginRules } from '../permissions/runPolicy.js';
import { persistAlwaysAllow } from '../permissions/alwaysAllow.js';
import { borrowedProvider, StaticToolProvider, type ToolProvider } from '../tools/provider.js';
import { ToolSet } from '../tools/toolSet.js';
import { TOOL_SEARCH_NAME } from '../tools/deferredTools.js';
import { builtinTools } from '../tools/builtin/index.js';
import { createUseSkillTool } from '../tools/builtin/useSkill.js';
import { createMemoryAppendTool } from '../tools/builtin/memoryAppend.js';
import type { Tool } from '../tools/tool.js';
import { SessionStore } from '../sessions/store.js';
import { AuditLog } from '../audit/auditLog.js';
import { bundledSkillsDir, loadSkills, type Skill } from '../skills/index.js';
import { createToolSearchTool } from '../tools/builtin/toolSearch.js';
import { sessionSearchTool } from '../tools/builtin/sessionSearch.js';
import { createScheduleTools } from '../tools/builtin/schedule.js';
import type { RuntimeCache } from './runtimeCache.js';
import { join } from 'node:path';
import type { McpManager } from '../mcpClient/manager.js';
import { loadGuiProvider } from '../ax/guiProviderLoader.js';
import { networkWaitMs, waitForNetwork } from '../llm/networkWait.js';
import { isLocalModelServer } from '../llm/pricing.js';
import { modelClient } from './modelAccess.js';
import { mcpAlwaysAllow, mcpFor, untilStopped } from './runtimeMcp.js';
import { REMOTE_FACES, type RemoteGrant, type Runtime, type RuntimeOptions } from './types.js';

// What the faces import from here: the making (createRuntime), the start (startRun.ts), the types (types.ts).
export { resolveModelAccess, type ModelAccess } from './modelAccess.js';
export { REMOTE_FACE, type RemoteGrant, type Runtime, type RuntimeMcp, type RuntimeOptions } from './types.js';
export { closeRuntime } from './runtimeMcp.js';
export { startRun, startRunWhenReady, type EarlyRunStart, type StartedRun, type StartRunOptions } from './startRun.js';

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
    throw new ReinError(
      'invalid_input',
      `agent name "${agent}" is invalid: use lowercase letters, digits, - and _ (at most 64)`,
    );
  }
  const cache = opts.cache;
  const rc = cache
    ? await cache.agentConfig(opts.home, opts.config, agent)
    : await resolveAgentRuntimeConfig(opts.home, opts.config, agent);
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
    ? (await import('../cloud/provider.js')).cloudToolProvider({
        cloud: config.cloud,
        env: opts.env,
        home: opts.home,
        ...(opts.cloudKeys ? { keys: opts.cloudKeys } : {}),
      })
    : undefined;
  const providers = cloud ? [...(opts.toolProviders ?? []), cloud] : (opts.toolProviders ?? []);
  // gui.enabled (auto: macOS, or Linux with a display and the AT-SPI helper): the GUI tools, from the cache's pool.
  const gui = await loadGuiProvider(config.gui.enabled, opts.env, providers, process.platform, cache?.guiProviders);
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
  const toolSet = cache
    ? cache.toolSet(opts.home, rc, loaded, withMcp, () => buildToolSet(rc, skills, withMcp, opts.env))
    : buildToolSet(rc, skills, withMcp, opts.env);
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
    {
      ...(opts.faces ? { present: opts.faces } : {}),
      ...(opts.desk ? { desk: opts.desk } : {}),
      ...(opts.clientConnected ? { clientConnected: opts.clientConnected } : {}),
    },
    { unattendedApprovals: rc.effective.unattendedApprovals, source },
  );
  const base =
    opts.policy ??
    permissionEngine(
      rc,
      {
        permissions: config.permissions,
        home: opts.env.HOME ?? homedir(),
        reinHome: opts.home,
        autoApprove: rc.effective.autoApprove,
        yes: opts.yes ?? false,
        reinPorts: [config.daemon.port],
        mcpAlwaysAllow: mcpAlwaysAllow(config),
      },
      cache,
    );
  // Tools that only touch Rein's own state (memory) never need a person's approval.
  const ownState: PermissionPolicy = {
    check: (call) =>
      call.tool.traits?.approval === 'never' && call.tool.source !== 'mcp'
        ? {
            decision: 'allow',
            layer: 'tool',
            reason: `${call.tool.name} only changes the agent's memory`,
            risk: 'low',
            riskExplanation: 'writes to Rein’s own memory file',
          }
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
      ...(isLocalModelServer(config.base_url ?? (opts.env.ANTHROPIC_BASE_URL?.trim() || undefined))
        ? { localModel: true }
        : {}),
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
      const entry =
        given !== undefined
          ? given
          : (await policy.check({ tool, input, cwd: opts.cwd, mode, source, origin, agent })).grant;
      if (entry === null)
        throw new ReinError(
          'invalid_input',
          `${tool.name} here cannot be allowed beyond one call (it changes a protected or persistence place)`,
        );
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
      if (!opts.remoteGrants)
        return `"always allow" for ${describe} was answered over Rein's API, so it holds for this run only; to keep it, add ${JSON.stringify(grantEntry)} to ${grant.field} in ${file}`;
      return opts.remoteGrants(grant);
    },
    ...(rc.persona ? { persona: rc.persona } : {}),
    ...(cache ? { cache } : {}),
    ...(opts.overrides?.isolated ? { isolated: opts.overrides.isolated } : {}),
    ...(mcp ? { mcp } : {}),
    elicitation: { yes: opts.yes ?? false, mayAsk: rules.mayAsk, ...(opts.openUrl ? { openUrl: opts.openUrl } : {}) },
  };
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
function buildToolSet(
  rc: AgentRuntimeConfig,
  skills: Skill[],
  providers: readonly ToolProvider[],
  env: NodeJS.ProcessEnv,
): ToolSet {
  // tool_search is not a capability the lists grant: it only loads the deferred tools they already let through.
  const set = new ToolSet([], {
    allowed: rc.effective.tools.allowed,
    denied: rc.effective.tools.denied,
    unfiltered: [TOOL_SEARCH_NAME],
  });
  const tools: Tool[] = [
    ...builtinTools(),
    createMemoryAppendTool(rc.memoryDir),
    sessionSearchTool,
    ...createScheduleTools({ env, config: rc.effective.config }),
  ];
  if (skills.length > 0) tools.push(createUseSkillTool(skills));
  // Sent only while MCP/cloud tools are deferred (more than 30 tools); it searches what the set assembled last.
  tools.push(createToolSearchTool({ tools: () => set.current.list(), definition: (t) => set.current.definition(t) }));
  set.add(new StaticToolProvider('local', 'local', tools));
  for (const p of providers) set.add(borrowedProvider(p));
  return set;
}

function permissionEngine(rc: AgentRuntimeConfig, o: EngineOptions, cache: RuntimeCache | undefined): PermissionPolicy {
  return cache
    ? cache.policy(rc, JSON.stringify([o.home, o.reinHome, o.yes, o.reinPorts]), () => createPermissionEngine(o))
    : createPermissionEngine(o);
}
