/**
 * The daemon's approval face and the desk behind it. Each run's broker asks the face; the desk keeps
 * the question pending until a client answers (`POST /approval` or a WebSocket frame), the broker
 * withdraws it (timeout, cancellation) or the daemon shuts down. The request itself reaches clients as
 * the run's own `approval_request` event on the bus; a client that connects later gets the pending
 * ones re-sent, so nobody has to be connected at the moment of asking.
 *
 * First answer wins. Later answers to the same id are conflicts (409), unknown ids are 404: the desk
 * remembers recently settled ids to tell the two apart.
 */
import type { ApprovalDecisionKind } from '../api/events.js';
import type { ApprovalAnswer, ApprovalFace, ApprovalRequest } from '../permissions/types.js';
import type { BusEntry } from './eventBus.js';
import type { PendingApproval, RoutedEvent } from './protocol.js';

/** The bus form of a question, kept so it can be re-sent to clients that connect later. */
export type ApprovalRequestEvent = Extract<RoutedEvent, { type: 'approval_request' }>;

const SETTLED_MEMORY = 2_000;

interface Entry {
  info: PendingApproval;
  event: ApprovalRequestEvent;
  /** Set once face.ask is waiting. */
  settle?: (answer: ApprovalAnswer) => void;
  /** An answer that came before face.ask started waiting. */
  early?: ApprovalAnswer;
}

export type AnswerOutcome =
  | { ok: true; info: PendingApproval }
  | { ok: false; status: 404 | 409; code: 'approval_not_found' | 'approval_already_decided'; message: string };

export class ApprovalDesk {
  readonly #pending = new Map<string, Entry>();
  /** id → how it was settled; insertion-ordered, trimmed to SETTLED_MEMORY. */
  readonly #settled = new Map<string, { decision: ApprovalDecisionKind; by: string }>();
  readonly #now: () => Date;

  constructor(opts: { now?: () => Date } = {}) {
    this.#now = opts.now ?? (() => new Date());
  }

  /** The face a run's broker asks; `route` says where the run came from. */
  faceFor(route: string): ApprovalFace {
    return { name: 'daemon', ask: (req, signal) => this.#wait(req, route, signal) };
  }

  /** Registers a question as soon as its event is seen (before the broker asks), so no answer can come too early. */
  open(req: ApprovalRequest, route: string, event?: ApprovalRequestEvent): void {
    if (this.#pending.has(req.id) || this.#settled.has(req.id)) return;
    const now = this.#now();
    this.#pending.set(req.id, { info: toInfo(req, route, now), event: event ?? toEvent(req, route, now) });
  }

  answer(id: string, decision: ApprovalDecisionKind, by: string): AnswerOutcome {
    const entry = this.#pending.get(id);
    if (!entry) {
      const prior = this.#settled.get(id);
      if (prior) {
        return { ok: false, status: 409, code: 'approval_already_decided', message: `approval ${id} was already decided: ${prior.decision} (by ${prior.by})` };
      }
      return { ok: false, status: 404, code: 'approval_not_found', message: `no pending approval ${id}` };
    }
    const answer: ApprovalAnswer = { decision, by };
    this.#settle(id, answer);
    if (entry.settle) entry.settle(answer);
    else entry.early = answer;
    return { ok: true, info: entry.info };
  }

  list(): PendingApproval[] {
    return [...this.#pending.values()].map((e) => e.info);
  }

  /** The pending questions as the `approval_request` events clients first saw. */
  pendingEvents(): ApprovalRequestEvent[] {
    return [...this.#pending.values()].map((e) => e.event);
  }

  get size(): number {
    return this.#pending.size;
  }

  /** Shutdown: everything still pending is denied. */
  denyAll(by = 'shutdown'): void {
    for (const [id, entry] of [...this.#pending]) {
      const answer: ApprovalAnswer = { decision: 'deny', by };
      this.#settle(id, answer);
      if (entry.settle) entry.settle(answer);
      else entry.early = answer;
    }
  }

  #wait(req: ApprovalRequest, route: string, signal: AbortSignal): Promise<ApprovalAnswer> {
    this.open(req, route);
    const entry = this.#pending.get(req.id);
    if (!entry) {
      // Settled before the broker even asked (answered early, or denied at shutdown).
      const prior = this.#settled.get(req.id);
      return Promise.resolve(prior ? { decision: prior.decision, by: prior.by } : { decision: 'deny', by: 'daemon' });
    }
    if (entry.early) return Promise.resolve(entry.early);
    return new Promise<ApprovalAnswer>((resolve) => {
      const onAbort = () => {
        // The broker decided without us (timeout, another face, cancelled run): the question is closed,
        // and a late answer is a conflict rather than a mystery.
        if (this.#pending.has(req.id)) this.#settle(req.id, { decision: 'deny', by: 'withdrawn' });
        resolve({ decision: 'deny', by: 'withdrawn' });
      };
      entry.settle = (answer) => {
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  #settle(id: string, answer: ApprovalAnswer): void {
    this.#pending.delete(id);
    this.#settled.set(id, { decision: answer.decision, by: answer.by });
    if (this.#settled.size > SETTLED_MEMORY) {
      const oldest = this.#settled.keys().next().value;
      if (oldest !== undefined) this.#settled.delete(oldest);
    }
  }
}

function toInfo(req: ApprovalRequest, route: string, now: Date): PendingApproval {
  return {
    request_id: req.id,
    session_id: req.sessionId,
    agent: req.agent,
    route,
    source: req.source,
    tool: req.tool,
    summary: req.summary,
    reason: req.reason,
    risk: req.risk,
    risk_explanation: req.riskExplanation,
    asked_at: now.toISOString(),
  };
}

function toEvent(req: ApprovalRequest, route: string, now: Date): ApprovalRequestEvent {
  return {
    type: 'approval_request',
    sessionId: req.sessionId,
    seq: 0,
    at: now.toISOString(),
    requestId: req.id,
    tool: req.tool,
    summary: req.summary,
    reason: req.reason,
    layer: req.layer,
    risk: req.risk,
    riskExplanation: req.riskExplanation,
    route,
    agent: req.agent,
  };
}

/**
 * Pending approvals a (re)connecting client did not just get in its replay, as `approval_request`
 * JSON. Adapters send them without an event id: a re-send must not move the client's Last-Event-ID.
 */
export function pendingApprovalJson(desk: ApprovalDesk, replayed: readonly BusEntry[]): string[] {
  const seen = new Set<string>();
  for (const e of replayed) if (e.event.type === 'approval_request') seen.add(e.event.requestId);
  return desk
    .pendingEvents()
    .filter((ev) => !seen.has(ev.requestId))
    .map((ev) => JSON.stringify(ev));
}
