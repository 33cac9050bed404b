/**
 * The page's WebSocket to the daemon (`GET /ws`): it receives every bus event and carries the
 * `message` frames. A browser cannot set headers on a WebSocket, so the token rides in the
 * subprotocol list (`rein.v1, token.<token>`), as the daemon expects. When the socket drops it comes
 * back by itself, asking for what it missed with `last_event_id`; when the token is refused it stops
 * and says so, since retrying cannot help: `unauthorized` when the daemon never took it (a wrong token,
 * pasted or typed), `rotated` when it took it before and no longer does (`rein daemon rotate-token`,
 * or the daemon restarted with a new one).
 */
import type { ApiEvent } from '../../../src-main/core/api/index.js';
import { ApiError } from './apiError.js';

export type ConnectionState = 'connecting' | 'open' | 'reconnecting' | 'unauthorized' | 'rotated' | 'closed';

/** The part of the browser's WebSocket this file uses (the `ws` package offers the same, for tests). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(
    type: 'open' | 'close' | 'error' | 'message',
    listener: (ev: { data?: unknown; code?: number }) => void,
  ): void;
}
export type SocketFactory = (url: string, protocols: string[]) => SocketLike;

export interface EventSocketOptions {
  /** `ws://127.0.0.1:7533` */
  wsBase: string;
  token: string;
  open: SocketFactory;
  onEvent(event: ApiEvent): void;
  onState(state: ConnectionState): void;
  /** Asked after a failed connection: is the token still good? (false stops the retries). */
  tokenStillValid(): Promise<boolean>;
  /** Wait before the n-th retry (1-based). */
  retryDelayMs?(attempt: number): number;
}

const OPEN = 1;
const TOKEN_ROTATED = 4001;
const DEFAULT_DELAYS = [250, 500, 1_000, 2_000, 4_000];

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

export class EventSocket {
  #socket: SocketLike | undefined;
  #state: ConnectionState = 'closed';
  #lastEventId: string | undefined;
  #attempt = 0;
  /** The daemon accepted this token once (a connection opened): a refusal later means it changed. */
  #accepted = false;
  #stopped = true;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #nextRef = 1;
  readonly #pending = new Map<string, Pending>();
  readonly #openWaiters = new Set<() => void>();

  constructor(private readonly opts: EventSocketOptions) {}

  get state(): ConnectionState {
    return this.#state;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#connect();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#socket?.close(1000, 'page closed');
    this.#socket = undefined;
    this.#failPending(new ApiError('the connection to Rein was closed', 'offline'));
    this.#setState('closed');
  }

  /**
   * Sends a client frame (`{type, …}`) and resolves with the daemon's reply for it. Waits for the
   * connection when it is (re)connecting; fails with `offline` if it does not come within `waitMs`.
   */
  async request(frame: Record<string, unknown>, waitMs = 10_000): Promise<unknown> {
    await this.#whenOpen(waitMs);
    const ref = `r${this.#nextRef++}`;
    return new Promise((resolve, reject) => {
      this.#pending.set(ref, { resolve, reject });
      this.#socket!.send(JSON.stringify({ ...frame, ref }));
    });
  }

  #connect(): void {
    if (this.#stopped) return;
    this.#setState(this.#attempt === 0 && this.#lastEventId === undefined ? 'connecting' : 'reconnecting');
    const url = `${this.opts.wsBase}/ws${this.#lastEventId ? `?last_event_id=${encodeURIComponent(this.#lastEventId)}` : ''}`;
    let socket: SocketLike;
    try {
      socket = this.opts.open(url, ['rein.v1', `token.${this.opts.token}`]);
    } catch {
      this.#retry();
      return;
    }
    this.#socket = socket;
    socket.addEventListener('open', () => {
      if (this.#socket !== socket) return;
      this.#attempt = 0;
      this.#accepted = true;
      this.#setState('open');
      for (const wake of [...this.#openWaiters]) wake();
    });
    // A failed connection is followed by `close`, which decides what to do; nothing to add here.
    socket.addEventListener('error', () => undefined);
    socket.addEventListener('message', (ev) => {
      if (this.#socket === socket) this.#onFrame(ev.data);
    });
    socket.addEventListener('close', (ev) => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      this.#failPending(new ApiError('the connection to Rein dropped before it answered', 'offline'));
      if (ev.code === TOKEN_ROTATED) {
        this.#setState('rotated');
        this.#stopped = true;
        return;
      }
      this.#retry();
    });
  }

  #retry(): void {
    if (this.#stopped) return;
    this.#attempt++;
    this.#setState('reconnecting');
    const delay =
      this.opts.retryDelayMs?.(this.#attempt) ??
      DEFAULT_DELAYS[Math.min(this.#attempt - 1, DEFAULT_DELAYS.length - 1)]!;
    this.#timer = setTimeout(() => {
      // The browser hides why an upgrade failed; an authenticated plain request tells a bad token
      // (stop: retrying cannot help) from a daemon that is down or restarting (keep trying).
      void this.opts.tokenStillValid().then(
        (valid) => {
          if (!valid) {
            this.#stopped = true;
            this.#setState(this.#accepted ? 'rotated' : 'unauthorized');
          } else this.#connect();
        },
        () => this.#connect(),
      );
    }, delay);
  }

  #onFrame(data: unknown): void {
    let frame: {
      frame?: string;
      id?: string;
      event?: ApiEvent;
      ref?: string;
      ok?: boolean;
      result?: unknown;
      error?: string;
      code?: string;
      status?: number;
    };
    try {
      frame = JSON.parse(typeof data === 'string' ? data : String(data)) as typeof frame;
    } catch {
      return; // not ours to understand; the daemon only sends JSON
    }
    if (frame.frame === 'event' && frame.event) {
      if (frame.id !== undefined) this.#lastEventId = frame.id;
      this.opts.onEvent(frame.event);
      return;
    }
    if (frame.frame === 'reply' && frame.ref !== undefined) {
      const waiter = this.#pending.get(frame.ref);
      if (!waiter) return;
      this.#pending.delete(frame.ref);
      if (frame.ok) waiter.resolve(frame.result);
      else
        waiter.reject(
          new ApiError(frame.error ?? 'the daemon refused the request', frame.code ?? 'internal', frame.status),
        );
    }
    // `result` frames (a run's final answer) are not needed: the events already carried it.
  }

  #whenOpen(waitMs: number): Promise<void> {
    if (this.#socket && this.#socket.readyState === OPEN) return Promise.resolve();
    if (this.#state === 'unauthorized')
      return Promise.reject(
        new ApiError(
          'the daemon did not accept this token: open the address `rein daemon` printed (the token is after #token=)',
          'unauthorized',
        ),
      );
    if (this.#state === 'rotated')
      return Promise.reject(
        new ApiError(
          'the daemon no longer accepts this token (it has a new one): open the address `rein daemon` printed again',
          'unauthorized',
        ),
      );
    this.start();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#openWaiters.delete(wake);
        reject(new ApiError('Rein is not reachable: is `rein daemon` still running?', 'offline'));
      }, waitMs);
      const wake = () => {
        clearTimeout(timer);
        this.#openWaiters.delete(wake);
        resolve();
      };
      this.#openWaiters.add(wake);
    });
  }

  #failPending(err: ApiError): void {
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }

  #setState(state: ConnectionState): void {
    if (this.#state === state) return;
    this.#state = state;
    this.opts.onState(state);
  }
}
