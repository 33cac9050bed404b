/**
 * Sends one approval request to every face at once; the first answer wins and the others are
 * withdrawn (their signal aborts). No answer within the timeout is a deny.
 */
import { randomBytes } from 'node:crypto';
import type { ApprovalAnswer, ApprovalFace, ApprovalRequest } from './types.js';

export const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000;

export const newApprovalId = (): string => `apr_${randomBytes(8).toString('hex')}`;

export class ApprovalBroker {
  readonly #faces: ApprovalFace[];
  readonly #timeoutMs: number;

  constructor(faces: readonly ApprovalFace[], opts: { timeoutMs?: number } = {}) {
    this.#faces = [...faces];
    this.#timeoutMs = opts.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  }

  get faces(): readonly ApprovalFace[] {
    return this.#faces;
  }

  async request(req: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalAnswer> {
    if (this.#faces.length === 0) return { decision: 'deny', by: 'none' };
    const ac = new AbortController();
    const onAbort = () => ac.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ApprovalAnswer>((resolve) => {
      timer = setTimeout(() => resolve({ decision: 'deny', by: 'timeout' }), this.#timeoutMs);
      timer.unref?.();
    });
    const cancelled = new Promise<ApprovalAnswer>((resolve) => {
      if (signal?.aborted) resolve({ decision: 'deny', by: 'cancelled' });
      signal?.addEventListener('abort', () => resolve({ decision: 'deny', by: 'cancelled' }), { once: true });
    });
    const first = Promise.any(this.#faces.map((f) => f.ask(req, ac.signal))).catch((): ApprovalAnswer => ({
      decision: 'deny',
      by: 'error',
    }));
    try {
      return await Promise.race([first, timeout, cancelled]);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      ac.abort();
    }
  }
}
