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
import type { RunOrigin } from '../api/patterns.js';
import type { ApprovalFace, PermissionDecision, PermissionPolicy } from './types.js';

export const DEFAULT_MAX_ITERATIONS: Readonly<Record<RunOrigin, number>> = {
  // A person watches an attended run: the dollar cap and the loop detectors guard it.
  attended: 200,
  remote: 25,
  unattended: 25,
};

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
      return { origin, faces: [...(kit.present ?? []), ...desk], mayAsk: () => ASK, defaultMaxIterations: DEFAULT_MAX_ITERATIONS.attended };
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
  }
}

/**
 * The policy with the origin's rule applied: an `ask` that may not be asked becomes a deny from the
 * `origin` layer, decided before any approval request exists, so it costs no question and no timer.
 */
export function withOriginRules(policy: PermissionPolicy, rules: OriginRules): PermissionPolicy {
  const apply = (d: PermissionDecision): PermissionDecision => {
    if (d.decision !== 'ask') return d;
    const may = rules.mayAsk();
    return may.ok ? d : { ...d, decision: 'deny', layer: 'origin', reason: `${may.reason} (it would have asked: ${d.reason})` };
  };
  return {
    check(call) {
      const d = policy.check(call);
      return d instanceof Promise ? d.then(apply) : apply(d);
    },
  };
}
