/**
 * What heartbeats and file watchers need from the service they run on: the same submit, bus and agent
 * configs every other face uses. ReinService is one (the daemon's, the desktop app's, or one a CLI
 * command makes for a single beat); tests may pass a smaller stand-in.
 */
import type { DaemonEvent } from '../api/events.js';
import { listAgents, resolveAgentRuntimeConfig, type AgentRuntimeConfig } from '../agents/index.js';
import type { Disposable } from '../base/lifecycle.js';
import { errorMessage } from '../errors.js';
import type { GlobalConfig } from '../config/schema.js';
import type { SessionCache } from '../sessions/sessionCache.js';
import type { RunRequest } from '../runtime/runRequest.js';
import type { BusListener } from '../service/eventBus.js';
import type { RouteRun, RunListener, SubmitOutcome } from '../service/runs/runRouter.js';

export interface TriggerHost {
  readonly home: string;
  readonly config: GlobalConfig;
  /** The agent as the service's runs see it (its cache, by file stamps). */
  agentConfig?(agent: string): Promise<AgentRuntimeConfig>;
  /** The sessions the service's runs saved, shared with an alert written into one. */
  readonly sessionCache?: SessionCache;
  submit(request: RunRequest, opts?: { listener?: RunListener }): Promise<SubmitOutcome>;
  publish(event: DaemonEvent): void;
  subscribe(listener: BusListener): Disposable;
  /** The runs in flight, so an alert waits for the person's run on the same conversation to end. */
  readonly router?: { readonly running: readonly RouteRun[]; readonly queued: readonly RouteRun[] };
  /** Takes a never-saved session out of the search index (ReinService.forgetUnsavedSession). */
  forgetUnsavedSession?(agent: string, id: string): void;
}

/** The agent as its runs see it, from the host's cache when it has one. */
export function agentConfigOf(host: TriggerHost, agent: string): Promise<AgentRuntimeConfig> {
  return host.agentConfig ? host.agentConfig(agent) : resolveAgentRuntimeConfig(host.home, host.config, agent);
}

/**
 * The agents a refresh looks at: `only`, or every agent there is (undefined when they cannot be listed:
 * `warn` has been told). A full list lets the caller drop what it holds for agents that are gone.
 */
export async function agentsToRefresh(
  host: TriggerHost,
  only: string | undefined,
  warn: (message: string) => void,
): Promise<{ names: string[]; complete: boolean } | undefined> {
  if (only !== undefined) return { names: [only], complete: false };
  try {
    return { names: await listAgents(host.home), complete: true };
  } catch (err) {
    warn(`cannot list agents: ${errorMessage(err)}`);
    return undefined;
  }
}

/** Runs in flight of `agent` that work on `sessionId` or on the agent's own lane (`agent:<name>`). */
export function runsOn(host: TriggerHost, agent: string, sessionId: string): RouteRun[] {
  const all = [...(host.router?.running ?? []), ...(host.router?.queued ?? [])];
  return all.filter(
    (r) => r.agent === agent && r.state !== 'done' && (r.sessionId === sessionId || r.key === `agent:${agent}`),
  );
}
