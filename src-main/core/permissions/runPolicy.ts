/**
 * A run's origin decides who may be asked about its tool calls and how long it may go on. This is the
 * one place that turns an origin into approval faces, permission rules and the default iteration cap,
 * for every entry point: `rein run`, the daemon's HTTP and WebSocket, the desktop window, and the
 * schedule, heartbeat and watcher runners and the MCP server that build on them. The table is in
 * docs/permissions.md ("Run origins").
 *
 * - attended: the person at this terminal, window or page — their own faces (terminal prompt; the
 *   window's card, which answers through the desk, and the native dialog).
 * - remote: a person behind a channel or an API client — the approval desk, which pushes the question
 *   to every connected client and denies it when nobody answers within the approval timeout.
 * - unattended: nobody. A call that would ask is denied at once, without a question or a timer, and the
 *   model is told why; only with `unattended_approvals: ask` in the agent's config, and while a desktop
 *   or web client is connected, does the question go to the desk (with a notification) instead.
 *   GUI tools stay denied unless `permissions.gui_unattended` lists them (modes.ts).
 */
import { UNATTENDED_SOURCES, type RunOrigin } from '../api/patterns.js';
import type { ApprovalFace, PermissionDecision, PermissionPolicy } from './types.js';

/** The door a request came in by. */
export type EntryPoint = 'cli' | 'desktop' | 'http' | 'ws' | 'webhook' | 'schedule' | 'heartbeat' | 'watcher' | 'mcp';

/**
 * The origin of a request that came in by `entry` from `source`. A schedule, heartbeat or watcher
 * source is unattended whichever door it used (a heartbeat posted to the daemon's HTTP API has
 * nobody watching either); the terminal and the desktop window have a person present; everything
 * else (HTTP, WebSocket, webhooks, the MCP server) is a person behind a channel or a program.
 */
export function originFor(entry: EntryPoint, source: string): RunOrigin {
  if (entry === 'schedule' || entry === 'heartbeat' || entry === 'watcher' || UNATTENDED_SOURCES.has(source))
    return 'unattended';
  if (entry === 'cli' || entry === 'desktop') return 'attended';
  return 'remote';
}

/**
 * The origin a run from `source` alone would have (`rein permissions check --source S`, the agents'
 * summaries): `cli` and `desktop` came by their own doors, any other source by the daemon's.
 */
export function originOfSource(source: string): RunOrigin {
  return originFor(source === 'cli' || source === 'desktop' ? source : 'http', source);
}

/**
 * Everything that differs by origin outside the approval faces, in one table: adding an origin to
 * RunOrigin is a compile error here until it says how each of these goes.
 */
export interface OriginTraits {
  /** A person is at this terminal or window (their own faces may ask; folder trust may be asked there). */
  personPresent: boolean;
  /** Nobody at all: the model call waits for the network first (a Mac just awake), GUI tools are denied unless listed. */
  nobodyWatching: boolean;
  /** An approval it asks for is worth a system notification (the person is not looking at the run). */
  notifiesApprovals: boolean;
  /** The iteration cap when the agent sets none. A person watches an attended run: the dollar cap and the loop detectors guard it. */
  defaultMaxIterations: number;
}

export const ORIGIN_TRAITS: Readonly<Record<RunOrigin, OriginTraits>> = {
  attended: { personPresent: true, nobodyWatching: false, notifiesApprovals: false, defaultMaxIterations: 200 },
  remote: { personPresent: false, nobodyWatching: false, notifiesApprovals: true, defaultMaxIterations: 25 },
  unattended: { personPresent: false, nobodyWatching: true, notifiesApprovals: true, defaultMaxIterations: 25 },
};

export const originTraits = (origin: RunOrigin): OriginTraits => ORIGIN_TRAITS[origin];

export const DEFAULT_MAX_ITERATIONS: Readonly<Record<RunOrigin, number>> = {
  attended: ORIGIN_TRAITS.attended.defaultMaxIterations,
  remote: ORIGIN_TRAITS.remote.defaultMaxIterations,
  unattended: ORIGIN_TRAITS.unattended.defaultMaxIterations,
};

/** The default caps in words, for summaries ("attended 200, remote and unattended 25"), from the table. */
export function defaultIterationsText(): string {
  const by = new Map<number, RunOrigin[]>();
  for (const [origin, t] of Object.entries(ORIGIN_TRAITS) as Array<[RunOrigin, OriginTraits]>)
    by.set(t.defaultMaxIterations, [...(by.get(t.defaultMaxIterations) ?? []), origin]);
  return [...by].map(([n, origins]) => `${origins.join(' and ')} ${n}`).join(', ');
}

export type UnattendedApprovals = 'deny' | 'ask';

/** What an entry point can offer to ask a person. */
export interface FaceKit {
  /** The person at this terminal or window: the terminal prompt, the native dialog. */
  present?: readonly ApprovalFace[];
  /** The approval desk: every connected client (the app's window card, browsers, remote clients). */
  desk?: ApprovalFace;
  /** Whether a desktop or web client is connected right now (asked at the moment a call would ask). */
  clientConnected?: () => boolean;
}

export interface OriginRules {
  origin: RunOrigin;
  /** The broker's faces; the first answer wins. */
  faces: ApprovalFace[];
  /** Whether a call that needs approval may be asked now; otherwise why it is denied at once. */
  mayAsk(): { ok: true } | { ok: false; reason: string };
  defaultMaxIterations: number;
}

export interface OriginOptions {
  /** The agent's `unattended_approvals` (default deny). */
  unattendedApprovals?: UnattendedApprovals;
  /** Where the run came from, for the model's explanation (`schedule`, `heartbeat`…). */
  source: string;
}

const ASK: { ok: true } = { ok: true };

export function rulesForOrigin(origin: RunOrigin, kit: FaceKit, opts: OriginOptions): OriginRules {
  const desk = kit.desk ? [kit.desk] : [];
  switch (origin) {
    case 'attended': {
      // With no face at all the broker denies at once (`by: none`); the executor tells the model why.
      return {
        origin,
        faces: [...(kit.present ?? []), ...desk],
        mayAsk: () => ASK,
        defaultMaxIterations: DEFAULT_MAX_ITERATIONS.attended,
      };
    }
    case 'remote':
      return { origin, faces: desk, mayAsk: () => ASK, defaultMaxIterations: DEFAULT_MAX_ITERATIONS.remote };
    case 'unattended': {
      const forward = opts.unattendedApprovals === 'ask' && desk.length > 0;
      const nobody =
        `nobody is watching this ${opts.source} run, so a call that needs approval is not run` +
        (opts.unattendedApprovals === 'ask'
          ? ' (unattended_approvals is ask, but no desktop or web client is connected to answer)'
          : '; set unattended_approvals: ask in the agent’s config to send such questions to the desktop app or web UI when one is open');
      return {
        origin,
        faces: forward ? desk : [],
        mayAsk: () => (forward && kit.clientConnected?.() === true ? ASK : { ok: false, reason: nobody }),
        defaultMaxIterations: DEFAULT_MAX_ITERATIONS.unattended,
      };
    }
    default:
      return unknownOrigin(origin);
  }
}

/** A new origin must be given its faces above before anything compiles. */
function unknownOrigin(origin: never): never {
  throw new Error(`no approval rules for the run origin ${String(origin)}`);
}

/**
 * The policy with the origin's rule applied: an `ask` that may not be asked becomes a deny from the
 * `origin` layer, decided before any approval request exists, so it costs no question and no timer.
 */
export function withOriginRules(policy: PermissionPolicy, rules: OriginRules): PermissionPolicy {
  const apply = (d: PermissionDecision): PermissionDecision => {
    if (d.decision !== 'ask') return d;
    const may = rules.mayAsk();
    return may.ok
      ? d
      : { ...d, decision: 'deny', layer: 'origin', reason: `${may.reason} (it would have asked: ${d.reason})` };
  };
  return {
    check(call) {
      const d = policy.check(call);
      return d instanceof Promise ? d.then(apply) : apply(d);
    },
  };
}
