/**
 * What a long-lived process (the daemon, the desktop app) would otherwise rebuild for every message:
 * the agent's resolved config, its skills, the instruction files of a working folder, the memory text,
 * the facts behind the consolidation decision, and model clients. Each file-backed part is kept while
 * the files it came from are unchanged (see StampCache), so an edit to AGENT.md, a SKILL.md, CLAUDE.md
 * or MEMORY.md is seen by the very next run, and an unchanged agent costs a handful of `stat` calls.
 *
 * Values handed out are shared between runs: callers treat them as read-only. `rein run` (one run per
 * process) does without a cache.
 */
import { dirname, join, resolve } from 'node:path';
import { resolveAgentRuntimeConfig, type AgentRuntimeConfig } from '../agents/index.js';
import { agentLayout, isDefaultAgent } from '../agents/layout.js';
import type { GlobalConfig } from '../config/schema.js';
import { INSTRUCTION_FILE_NAMES, loadInstructions, type LoadedInstructions } from '../instructions/index.js';
import type { LlmClient } from '../llm/client.js';
import { createNodeFetch, type NodeFetch } from '../llm/nodeFetch.js';
import { consolidationFacts, GC_MARKER, loadMemory, memoryFile, type ConsolidationFacts } from '../memory/index.js';
import { bundledSkillsDir, loadSkills, skillPaths, type LoadedSkills } from '../skills/index.js';
import { folderAndEntries, StampCache } from '../util/stampCache.js';
import type { PermissionPolicy } from '../permissions/types.js';
import type { ToolProvider } from '../tools/provider.js';
import type { ToolSet } from '../tools/toolSet.js';
import { protectedMemoryPaths } from '../memory/files.js';
import { SessionCache } from '../sessions/sessionCache.js';
import type { Disposable } from '../base/lifecycle.js';
import { GuiProviderPool } from '../ax/guiProviderPool.js';
import { configuredStatus, McpManager } from '../mcpClient/manager.js';
import type { TokenStore } from '../mcpClient/oauth.js';
import type { McpServerStatus } from '../api/mcpStatus.js';

/** Where an MCP server's OAuth sign-in is kept: the desktop app's key store, or (by default) the 0600 file. */
export type McpTokenStores = (home: string, server: string) => TokenStore;

const notHidden = (n: string) => !n.startsWith('.');

export class RuntimeCache implements Disposable {
  readonly #agents = new StampCache<Promise<AgentRuntimeConfig>>();
  readonly #skills = new StampCache<Promise<LoadedSkills>>();
  readonly #instructions = new StampCache<Promise<LoadedInstructions>>();
  readonly #memory = new StampCache<Promise<string>>();
  readonly #consolidation = new StampCache<Promise<ConsolidationFacts>>();
  readonly #llms = new Map<string, LlmClient>();
  /** One live ToolSet per agent, with what it was built from. */
  readonly #toolSets = new Map<
    string,
    { rc: AgentRuntimeConfig; skills: LoadedSkills; providers: readonly ToolProvider[]; set: ToolSet }
  >();
  readonly #policies = new WeakMap<AgentRuntimeConfig, Map<string, PermissionPolicy>>();
  readonly #protected = new StampCache<Map<string, string>>();
  readonly #pacedFetches = new WeakMap<object, NodeFetch>();
  /** Every connection pool made here, destroyed on dispose (idle keep-alive sockets would hold the process). */
  readonly #pools: NodeFetch[] = [];
  /** One MCP manager per agent (its servers stay connected between runs), with the config it was made from. */
  readonly #mcp = new Map<string, { agent: string; signature: string; manager: McpManager }>();
  /** Set by the desktop app (its key store); unset, managers keep sign-ins in `secrets/mcp-oauth/*.json`. */
  mcpTokenStores: McpTokenStores | undefined;
  /** Told when a kept manager's server changes state (agent, server, state). */
  onMcpState: ((agent: string, server: string, state: string) => void) | undefined;
  /** The GUI tool providers of this cache's runs (their helpers stop when the cache is disposed). */
  readonly guiProviders = new GuiProviderPool();
  /** Sessions the runs of this process saved (see SessionCache). */
  readonly sessions = new SessionCache();
  /** A number per global config object: a saved settings change is a new object, so a new key. */
  readonly #configIds = new WeakMap<GlobalConfig, number>();
  #nextConfigId = 0;
  #bundled: { dir: string | undefined } | undefined;

  /** The bundled skills folder, looked up once (it moves only with the app). */
  bundledSkillsDir(): string | undefined {
    this.#bundled ??= { dir: bundledSkillsDir() };
    return this.#bundled.dir;
  }

  agentConfig(home: string, config: GlobalConfig, agent: string): Promise<AgentRuntimeConfig> {
    let id = this.#configIds.get(config);
    if (id === undefined) this.#configIds.set(config, (id = this.#nextConfigId++));
    // The built-in agent reads nothing from disk: the global config is all of it.
    const deps = () => {
      if (isDefaultAgent(agent)) return [];
      const layout = agentLayout(home, agent);
      return [layout.dir, layout.persona, layout.config, layout.attached, layout.heartbeat, layout.memory];
    };
    return this.#agents.get(`${id}\0${home}\0${agent}`, deps, () => resolveAgentRuntimeConfig(home, config, agent));
  }

  skills(home: string, agent: string, bundledDir: string | undefined): Promise<LoadedSkills> {
    const deps = () => [
      skillPaths.attachedFile(home, agent),
      // Each root, each skill folder in it (a SKILL.md appearing changes the folder), and each SKILL.md.
      ...[skillPaths.agentSkillsDir(home, agent), skillPaths.userSkillsDir(home), ...(bundledDir ? [bundledDir] : [])]
        .map((r) => resolve(r))
        .flatMap((root) =>
          folderAndEntries(root, notHidden).flatMap((p, i) => (i === 0 ? [p] : [p, join(p, 'SKILL.md')])),
        ),
    ];
    return this.#skills.get(`${home}\0${agent}\0${bundledDir ?? ''}`, deps, () =>
      loadSkills({ home, agent, ...(bundledDir ? { bundledDir } : {}) }),
    );
  }

  instructions(home: string, cwd: string): Promise<LoadedInstructions> {
    const deps = () => {
      const out: string[] = [];
      const add = (dir: string, rules: string) => {
        for (const name of INSTRUCTION_FILE_NAMES) out.push(join(dir, name));
        out.push(...folderAndEntries(rules));
      };
      add(resolve(home), join(resolve(home), 'rules'));
      // Every folder up to the root: a `.git` appearing anywhere above moves the repository root.
      for (let dir = resolve(cwd); ; dir = dirname(dir)) {
        out.push(join(dir, '.git'));
        add(dir, join(dir, '.rein', 'rules'));
        if (dirname(dir) === dir) break;
      }
      return out;
    };
    return this.#instructions.get(`${home}\0${cwd}`, deps, () => loadInstructions({ home, cwd }));
  }

  /** The memory text for the prompt ('' when none, or when it cannot be read). */
  memory(dir: string): Promise<string> {
    const deps = () => [memoryFile(dir), ...folderAndEntries(dir, (n) => n.toLowerCase().endsWith('.md'))];
    return this.#memory.get(dir, deps, () => loadMemory(dir).catch(() => ''));
  }

  consolidation(dir: string): Promise<ConsolidationFacts> {
    return this.#consolidation.get(
      dir,
      () => [dir, join(dir, GC_MARKER)],
      () => consolidationFacts(dir),
    );
  }

  /**
   * The agent's ToolSet while its resolved config, its skill set (both objects are replaced when their
   * files change) and the added providers are the same; its registry stays the same object until a
   * provider changes. A set built anew disposes the one it replaces, which stops it listening (runs
   * still going keep the registry they were given).
   */
  toolSet(
    home: string,
    rc: AgentRuntimeConfig,
    skills: LoadedSkills,
    providers: readonly ToolProvider[],
    make: () => ToolSet,
  ): ToolSet {
    const key = `${home}\0${rc.name}`;
    const kept = this.#toolSets.get(key);
    if (
      kept &&
      kept.rc === rc &&
      kept.skills === skills &&
      kept.providers.length === providers.length &&
      kept.providers.every((p, i) => p === providers[i])
    ) {
      return kept.set;
    }
    kept?.set.dispose();
    const set = make();
    this.#toolSets.set(key, { rc, skills, providers: [...providers], set });
    return set;
  }

  /**
   * The agent's MCP manager while its effective `mcp_servers` are the same (an edit to the persona or the
   * skills keeps the servers connected); a changed server list makes a new manager and stops the old one.
   * Each agent has its own: no agent's servers serve another's runs.
   */
  mcp(home: string, rc: AgentRuntimeConfig, make: () => McpManager): McpManager {
    const key = `${home}\0${rc.name}`;
    const signature = JSON.stringify(sortedDeep(rc.effective.mcpServers));
    const kept = this.#mcp.get(key);
    if (kept && kept.signature === signature) return kept.manager;
    if (kept) void kept.manager.dispose();
    const manager = make();
    this.#mcp.set(key, { agent: rc.name, signature, manager });
    // Each server's state changes go to whoever shows them (the service: `mcp_status` on the bus).
    for (const server of manager.servers)
      server.onDidChangeState((state) => this.onMcpState?.(rc.name, server.name, state));
    return manager;
  }

  /**
   * The agent's MCP manager, the one kept here or a new one (runs, and the app's Connect and Sign in):
   * stdio servers start in the agent's folder when it names one, else in `cwd`.
   */
  agentMcp(home: string, rc: AgentRuntimeConfig, env: NodeJS.ProcessEnv, cwd: string): McpManager {
    const stores = this.mcpTokenStores;
    return this.mcp(
      home,
      rc,
      () =>
        new McpManager({
          servers: rc.effective.mcpServers,
          env,
          home,
          cwd: rc.cwd ?? cwd,
          envPassthrough: rc.effective.config.tools.env_passthrough,
          ...(stores ? { tokenStore: (server: string) => stores(home, server) } : {}),
        }),
    );
  }

  /** The agent's manager when one was made and its servers are still the config's; nothing is made. */
  keptMcp(home: string, rc: AgentRuntimeConfig): McpManager | undefined {
    const kept = this.#mcp.get(`${home}\0${rc.name}`);
    return kept && kept.signature === JSON.stringify(sortedDeep(rc.effective.mcpServers)) ? kept.manager : undefined;
  }

  /** Every agent's manager kept here (a sign-in reaches each that has the server). */
  mcpManagers(): { agent: string; manager: McpManager }[] {
    return [...this.#mcp.values()].map(({ agent, manager }) => ({ agent, manager }));
  }

  /**
   * The agent's MCP servers as this process knows them: live from its manager when one of its runs
   * started them (and the config is still the same), else as configured (`idle`, `disabled`).
   */
  mcpStatus(home: string, rc: AgentRuntimeConfig, env: NodeJS.ProcessEnv): McpServerStatus[] {
    const kept = this.keptMcp(home, rc);
    if (kept) return kept.status();
    const stores = this.mcpTokenStores;
    return configuredStatus(
      home,
      rc.effective.mcpServers,
      env,
      ...(stores ? [(server: string) => stores(home, server)] : []),
    );
  }

  /** A permission engine per resolved agent config (which is replaced when the agent's files change). */
  policy(rc: AgentRuntimeConfig, key: string, make: () => PermissionPolicy): PermissionPolicy {
    return memoIn(this.#policies, rc, () => new Map(), key, make);
  }

  /** The memory file's paths the file tools must not write (resolving them costs a realpath walk). */
  protectedPaths(dir: string): Map<string, string> {
    return this.#protected.get(
      dir,
      () => [dir, memoryFile(dir)],
      () => protectedMemoryPaths(dir),
    );
  }

  /** One model client per endpoint and settings: its connection pool is reused across runs. */
  /** One paced transport (connection pool) per pace function: every paced model client shares it. */
  pacedFetch(pace: () => Promise<void> | undefined): NodeFetch {
    let f = this.#pacedFetches.get(pace);
    if (!f) {
      this.#pacedFetches.set(pace, (f = createNodeFetch({ pace })));
      this.#pools.push(f);
    }
    return f;
  }

  /** Closes the connection pools it made, stops the MCP servers and the GUI helpers, and forgets its model clients (the daemon is shutting down). */
  dispose(): Promise<void> {
    for (const pool of this.#pools.splice(0)) pool.dispose();
    this.#llms.clear();
    const managers = [...this.#mcp.values()].map((v) => v.manager);
    this.#mcp.clear();
    return Promise.all([...managers.map((m) => m.dispose()), this.guiProviders.disposeAsync()]).then(() => undefined);
  }

  llm(key: string, make: () => LlmClient): LlmClient {
    let client = this.#llms.get(key);
    if (!client) this.#llms.set(key, (client = make()));
    return client;
  }
}

/** A copy with object keys sorted at every level: the same servers give the same signature. */
function sortedDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedDeep);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortedDeep((v as Record<string, unknown>)[k])]),
    );
  return v;
}

interface Table<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/** `make()`'s value under `outer[a][b]`, made once; the inner table is made on first use. */
function memoIn<A extends object, B, V, Inner extends Table<B, V>>(
  outer: WeakMap<A, Inner>,
  a: A,
  inner: () => Inner,
  b: B,
  make: () => V,
): V {
  let table = outer.get(a);
  if (!table) outer.set(a, (table = inner()));
  let value = table.get(b);
  if (value === undefined) table.set(b, (value = make()));
  return value;
}
