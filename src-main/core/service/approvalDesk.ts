/**
 * The daemon's approval face and the desk behind it. Each run's broker asks the face; the desk keeps
 * the question pending until a client answers (`POST /approval` or a WebSocket frame), the broker
 * withdraws it (timeout, cancellation) or the daemon shuts down. The request itself reaches clients as
 * the run's own `approval_request` event on the bus; a client that connects later gets the pending
 * ones re-sent, so nobody has to be connected at the moment of asking.
 *
 * First answer wins. Later answers to the same id are conflicts (`approval_already_decided`), unknown
 * ids `approval_not_found`: the desk remembers recently settled ids to tell the two apart.
 */
import type { FormValues } from '../api/approvalForm.js';
import type { ApprovalDecisionKind, ApprovalRequest, ReinEvent } from '../api/events.js';
import { ReinError } from '../errors.js';
import type { ApprovalAnswer, ApprovalFace } from '../permissions/types.js';
import type { BusEntry } from './eventBus.js';

/** The bus form of a question, kept so it can be re-sent to clients that connect later. */
export type ApprovalRequestEvent = Extract<ReinEvent, { type: 'approval_request' }> & { route?: string };

const SETTLED_MEMORY = 2_000;

interface Entry {
  request: ApprovalRequest;
  event: ApprovalRequestEvent;
  /** Set once face.ask is waiting. */
  settle?: (answer: ApprovalAnswer) => void;
  /** An answer that came before face.ask started waiting. */
  early?: ApprovalAnswer;
}

export class ApprovalDesk {
  readonly #pending = new Map<string, Entry>();
  /** id → how it was settled; insertion-ordered, trimmed to SETTLED_MEMORY. */
  readonly #settled = new Map<string, { decision: ApprovalDecisionKind; by: string }>();
  /** The face a run's broker asks. */
  face(): ApprovalFace {
    return { name: 'daemon', ask: (req, signal) => this.#wait(req, signal) };
  }

  /** Registers a question as soon as its event is seen (before the broker asks), so no answer can come too early. */
  open(event: ApprovalRequestEvent): void {
    const { type: _type, seq: _seq, at: _at, ...request } = event;
    this.#register(request, event);
  }

  /**
   * The first answer settles the question. A second one is refused with `approval_already_decided`, an
   * unknown id with `approval_not_found` (ReinErrors, the same codes on every transport).
   */
  answer(id: string, decision: ApprovalDecisionKind, by: string, values?: FormValues): ApprovalRequest {
    const entry = this.#pending.get(id);
    if (!entry) {
      const prior = this.#settled.get(id);
      if (prior)
        throw new ReinError(
          'approval_already_decided',
          `approval ${id} was already decided: ${prior.decision} (by ${prior.by})`,
        );
      throw new ReinError('approval_not_found', `no pending approval ${id}`);
    }
    // Filled-in fields travel only with a yes to a form; a plain approval never carries any.
    const answer: ApprovalAnswer =
      values && entry.request.form && decision !== 'deny' ? { decision, by, values } : { decision, by };
    this.#settle(id, answer);
    if (entry.settle) entry.settle(answer);
    else entry.early = answer;
    return entry.request;
  }

  /** The pending questions, oldest first, in the one request shape. */
  list(): ApprovalRequest[] {
    return [...this.#pending.values()].map((e) => e.request);
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

  #register(request: ApprovalRequest, event?: ApprovalRequestEvent): void {
    const id = request.request_id;
    if (this.#pending.has(id) || this.#settled.has(id)) return;
    this.#pending.set(id, { request, event: event ?? toEvent(request) });
  }

  #wait(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    this.#register(req);
    const id = req.request_id;
    const entry = this.#pending.get(id);
    if (!entry) {
      // Settled before the broker even asked (answered early, or denied at shutdown).
      const prior = this.#settled.get(id);
      return Promise.resolve(prior ? { decision: prior.decision, by: prior.by } : { decision: 'deny', by: 'daemon' });
    }
    if (entry.early) return Promise.resolve(entry.early);
    return new Promise<ApprovalAnswer>((resolve) => {
      const onAbort = () => {
        // The broker decided without us (timeout, another face, cancelled run): the question is closed,
        // and a late answer is a conflict rather than a mystery.
        if (this.#pending.has(id)) this.#settle(id, { decision: 'deny', by: 'withdrawn' });
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

function toEvent(req: ApprovalRequest): ApprovalRequestEvent {
  return { type: 'approval_request', seq: 0, at: req.asked_at, ...req };
}

/**
 * Pending approvals a (re)connecting client did not just get in its replay, as `approval_request`
 * JSON. Adapters send them without an event id: a re-send must not move the client's Last-Event-ID.
 */
export function pendingApprovalJson(desk: ApprovalDesk, replayed: readonly BusEntry[]): string[] {
  const seen = new Set<string>();
  for (const e of replayed) if (e.event.type === 'approval_request') seen.add(e.event.request_id);
  return desk
    .pendingEvents()
    .filter((ev) => !seen.has(ev.request_id))
    .map((ev) => JSON.stringify(ev));
}
