/**
 * The service's "run one tool call as this agent under its policy", for `rein mcp serve` (a face for MCP
 * clients): the agent's runtime built for its tools and permissions only (origin `remote`, entry and
 * source `mcp`, never a model, none of the agent's MCP servers), and one call through the admission the
 * agent loop uses (the executor: lenient arguments, hard blocks and denials, hooks, result budget, audit).
 *
 * `rein mcp serve` is a process of its own beside the daemon: it runs no runs and keeps no desk, so it
 * is handed this part of the service (`ToolCallService`, built before its first connection) rather than a
 * whole ReinService (whose runs, desk and route table are the daemon's), as `rein run` is handed a
 * OneShotService. A face never reaches into the runtime or the harness itself (eslint.config.js).
 */
import type { GlobalConfig } from '../config/schema.js';
import { executeToolCalls, TurnApprovals, type BatchOutcome, type ExecutorDeps } from '../harness/executor.js';
import type { ApprovalFace } from '../permissions/types.js';
import type { ReinEventBody } from '../api/events.js';
import { originFor } from '../runtime/runRequest.js';
import { createRuntime, type RemoteGrant, type Runtime, type RuntimeOptions } from '../runtime/runtime.js';
import { RuntimeCache } from '../runtime/runtimeCache.js';
import type { Disposable } from '../base/lifecycle.js';
import { loadConfig } from '../config/load.js';
import { paths } from '../config/paths.js';
import { StampCache } from '../util/stampCache.js';

export { TurnApprovals, type BatchOutcome };

/** The entry point and source of every run-like thing `rein mcp serve` does (docs/permissions.md, *Run origins*). */
export const MCP_SOURCE = 'mcp';

/** This runtime never calls a model: it is built for its tools and permissions only. */
export const NO_MODEL: NonNullable<RuntimeOptions['llm']> = {
  // eslint-disable-next-line require-yield
  async *turn() {
    throw new Error('rein mcp serve runs tools only; it never calls the model');
  },
};

export interface ToolRuntimeOptions {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: GlobalConfig;
  agent: string;
  route: string;
  /** Agent configs and protected places by file stamps, so an edit holds from the next call on. */
  cache: RuntimeCache;
  /** Who answers a call's approval question (the client's form, the daemon's desk); none: nobody. */
  face?: ApprovalFace | undefined;
  /** What an "always allow" answered here says, when nobody known to be a person can keep it. */
  remoteGrants: (grant: RemoteGrant) => string;
}

/** The agent's runtime for tool calls from an MCP client: origin remote, its approval face (if any) as the desk. */
export function toolRuntime(o: ToolRuntimeOptions): Promise<Runtime> {
  return createRuntime({
    home: o.home,
    cwd: o.cwd,
    env: o.env,
    config: o.config,
    agent: o.agent,
    source: MCP_SOURCE,
    origin: originFor('mcp', MCP_SOURCE),
    route: o.route,
    llm: NO_MODEL,
    cache: o.cache,
    // Rein serves its own local tools: the agent's MCP servers are not relayed to the client.
    mcp: false,
    ...(o.face ? { desk: o.face } : {}),
    remoteGrants: o.remoteGrants,
  });
}

/** What a face decides about one call; the rest comes from the agent's runtime. */
export interface ToolCallOptions {
  /** The agent's policy unless the face narrows it (nobody to ask: asks refused up front). */
  policy?: ExecutorDeps['policy'];
  ctx: ExecutorDeps['ctx'];
  /** This call's turn: its approvals, with the connection's "always allow" grants carried in. */
  approvals: TurnApprovals;
  onAlwaysAllow: NonNullable<ExecutorDeps['onAlwaysAllow']>;
  /** PostToolUse hooks and audit lines still being written when the answer goes out. */
  background: Promise<unknown>[];
  warn: (message: string) => void;
}

/**
 * One tool call as the agent of `rt`, under its policy, one at a time: yields the call's events
 * (approval request and answer, notices) and returns the batch's outcome.
 */
export function runToolCall(
  rt: Runtime,
  call: { id: string; name: string; input: unknown },
  o: ToolCallOptions,
  signal: AbortSignal,
): AsyncGenerator<ReinEventBody, BatchOutcome> {
  return executeToolCalls(
    [call],
    {
      registry: rt.registry,
      policy: o.policy ?? rt.policy,
      broker: rt.broker,
      ctx: o.ctx,
      mode: rt.settings.mode,
      source: rt.source,
      agent: rt.agent,
      origin: rt.origin,
      route: rt.route,
      approvals: o.approvals,
      maxParallel: 1,
      defaultBudget: rt.settings.resultBudget,
      onAlwaysAllow: o.onAlwaysAllow,
      hooks: { pre: rt.config.hooks.PreToolUse, post: rt.config.hooks.PostToolUse },
      audit: rt.audit,
      background: o.background,
      warn: o.warn,
    },
    signal,
  );
}

export interface ToolCallServiceOptions {
  /** REIN_HOME. */
  home: string;
  /** Working folder: the project overlay's folder, and the tools' folder unless the agent sets `cwd`. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  agent: string;
  /** Where a config problem that concerns nobody's call goes (stderr for the CLI). */
  warn?: (message: string) => void;
}

/**
 * The part of the service a tool-call face is handed (`rein mcp serve`): the agent's config and runtime
 * for one call, kept between calls by file stamps (an edit to config.yaml, the overlay, the trust file
 * or the agent holds from the next call on), and torn down once with `dispose`.
 */
export class ToolCallService implements Disposable {
  readonly #cache = new RuntimeCache();
  readonly #configs = new StampCache<Promise<GlobalConfig>>(4);

  constructor(readonly opts: ToolCallServiceOptions) {}

  /**
   * The global config with the project overlay, re-read when either file (or the trust file) changes.
   * Nobody is asked here: an overlay whose folder `rein trust` did not trust is applied without its
   * raising settings (hooks, MCP servers, base_url, wider permissions), with a warning.
   */
  config(): Promise<GlobalConfig> {
    const { home, cwd, warn } = this.opts;
    return this.#configs.get(
      'config',
      () => [paths.globalConfig(home), paths.projectConfig(cwd), paths.trustedFolders(home)],
      () => loadConfig({ home, cwd, trust: 'stored', ...(warn ? { warn } : {}) }).then((l) => l.config),
    );
  }

  /** The agent's runtime for one call: origin remote, `face` (if any) as its desk. */
  async runtime(
    face: ApprovalFace | undefined,
    route: string,
    remoteGrants: (grant: RemoteGrant) => string,
  ): Promise<Runtime> {
    const { home, cwd, env, agent } = this.opts;
    return toolRuntime({
      home,
      cwd,
      env,
      config: await this.config(),
      agent,
      route,
      cache: this.#cache,
      face,
      remoteGrants,
    });
  }

  /** Rein's run-later state as the permission rules see it, for an agent whose memory is in `memoryDir`. */
  protectedPaths(memoryDir: string): ReturnType<RuntimeCache['protectedPaths']> {
    return this.#cache.protectedPaths(memoryDir);
  }

  dispose(): void {
    this.#cache.dispose();
  }
}
