/**
 * JSON-RPC 2.0 over a line transport: request ids, a pending map, a timeout per call, and one rule for
 * mutations — once a mutation was written, a caller that cancels still waits (bounded) for its
 * acknowledgement, so nobody is told "cancelled" about a click that happened; no answer in time is
 * COMMIT_UNKNOWN, never silently dropped. When the transport closes every pending call fails at once.
 */
import { DisposableStore, type Disposable } from '../base/lifecycle.js';
import { AxError } from './axError.js';
import type { LineTransport } from './lineTransport.js';
import { errorCodeOf, RpcReply, type RpcErrorBody } from './protocol.js';

export interface RequestOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** A call that changes something: a cancel after sending waits for the answer (up to the timeout). */
  mutation?: boolean;
}

interface Pending {
  method: string;
  mutation: boolean;
  resolve: (value: unknown) => void;
  reject: (err: AxError) => void;
  timer: NodeJS.Timeout;
  cancelled: boolean;
  dispose: () => void;
}

export class JsonRpcPeer implements Disposable {
  readonly #store = new DisposableStore();
  readonly #pending = new Map<number, Pending>();
  readonly #transport: LineTransport;
  #nextId = 1;
  #closed = false;
  #closeReason: (() => string) | undefined;

  /** `describeClose` says why the connection closed (the helper's exit status and last words). */
  constructor(transport: LineTransport, describeClose?: () => string) {
    this.#transport = transport;
    this.#closeReason = describeClose;
    this.#store.add(transport);
    this.#store.add(transport.onLine((line) => this.#onLine(line)));
    this.#store.add(
      transport.onClose((cause) => {
        this.#closed = true;
        const why = this.#closeReason?.() || cause?.message || 'the connection closed';
        this.#failAll(
          (p) =>
            new AxError('HELPER_EXITED', `ax_server stopped while ${p.method} was pending: ${why}`, p.method, {
              hint: 'the next call starts it again',
            }),
        );
      }),
    );
  }

  get closed(): boolean {
    return this.#closed || this.#transport.closed;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }

  request(method: string, params: unknown, opts: RequestOptions): Promise<unknown> {
    if (this.closed)
      return Promise.reject(new AxError('HELPER_EXITED', `ax_server is not connected (${method})`, method));
    if (opts.signal?.aborted)
      return Promise.reject(new AxError('CANCELLED', `${method} was cancelled before it was sent`, method));
    const id = this.#nextId++;
    return new Promise<unknown>((resolve, reject) => {
      const mutation = opts.mutation === true;
      const onAbort = () => {
        const p = this.#pending.get(id);
        if (!p) return;
        p.cancelled = true;
        // A read is simply abandoned (a late answer is ignored); a mutation keeps waiting for its ack.
        if (!mutation) this.#settle(id, () => reject(new AxError('CANCELLED', `${method} was cancelled`, method)));
      };
      const timer = setTimeout(() => {
        this.#settle(id, () =>
          reject(
            mutation
              ? new AxError(
                  'COMMIT_UNKNOWN',
                  `ax_server did not acknowledge ${method} within ${opts.timeoutMs} ms: it may or may not have happened`,
                  method,
                  {
                    hint: 'take a new snapshot to see the state before trying again',
                  },
                )
              : new AxError('TIMEOUT', `ax_server did not answer ${method} within ${opts.timeoutMs} ms`, method),
          ),
        );
      }, opts.timeoutMs);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(id, {
        method,
        mutation,
        resolve,
        reject,
        timer,
        cancelled: false,
        dispose: () => opts.signal?.removeEventListener('abort', onAbort),
      });
      try {
        this.#transport.send(JSON.stringify({ jsonrpc: '2.0', id, method, params: params ?? {} }));
      } catch (e) {
        this.#settle(id, () =>
          reject(new AxError('HELPER_EXITED', `could not send ${method}: ${(e as Error).message}`, method)),
        );
      }
    });
  }

  dispose(): void {
    this.#failAll(
      (p) => new AxError('CANCELLED', `the accessibility client was closed while ${p.method} was pending`, p.method),
    );
    this.#closed = true;
    this.#store.dispose();
  }

  #settle(id: number, fn: () => void): void {
    const p = this.#pending.get(id);
    if (!p) return;
    this.#pending.delete(id);
    clearTimeout(p.timer);
    p.dispose();
    fn();
  }

  #failAll(make: (p: Pending) => AxError): void {
    for (const [id, p] of [...this.#pending]) this.#settle(id, () => p.reject(make(p)));
  }

  #onLine(line: string): void {
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      return; // Not a protocol line (a stray print); nothing to settle.
    }
    const reply = RpcReply.safeParse(raw);
    if (!reply.success) return;
    const r = reply.data;
    if (r.id === null) return;
    const p = this.#pending.get(r.id);
    if (!p) return; // Answered after its caller gave up.
    if ('error' in r) this.#settle(r.id, () => p.reject(toAxError(p.method, r.error)));
    else this.#settle(r.id, () => p.resolve(r.result));
  }
}

export function toAxError(method: string, error: RpcErrorBody): AxError {
  const data = (error.data && typeof error.data === 'object' ? error.data : {}) as Record<string, unknown>;
  const hint = typeof data.hint === 'string' ? data.hint : undefined;
  return new AxError(errorCodeOf(error), error.message, method, {
    rpcCode: error.code,
    ...(hint ? { hint } : {}),
    data,
  });
}
