/**
 * The service's "run one tool call as this agent under its policy", for `rein mcp serve` (a face for MCP
 * clients): the agent's runtime built for its tools and permissions only (origin `remote`, entry and
 * source `mcp`, never a model, none of the agent's MCP servers), and one call through the admission the
 * agent loop uses (the executor: lenient arguments, hard blocks and denials, hooks, result budget, audit).
 *
 * `rein mcp serve` is a process of its own beside the daemon: it runs no runs and keeps no desk, so it
 * uses this part of the service rather than a whole ReinService (whose runs, desk and route table are
 * the daemon's). A face never reaches into the runtime or the harness itself (eslint.config.js).
 */
import type { GlobalConfig } from '../config/schema.js';
import { executeToolCalls, TurnApprovals, type BatchOutcome, type ExecutorDeps } from '../harness/executor.js';
import type { ApprovalFace } from '../permissions/types.js';
import type { ReinEventBody } from '../api/events.js';
import { originFor } from '../runtime/runRequest.js';
import { createRuntime, type RemoteGrant, type Runtime, type RuntimeOptions } from '../runtime/runtime.js';
import type { RuntimeCache } from '../runtime/runtimeCache.js';

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
