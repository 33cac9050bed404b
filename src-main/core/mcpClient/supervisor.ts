/**
 * Keeps one server connected, or says why it is not. States:
 *
 * - `idle`: not connected and nothing scheduled: nothing tried yet (the process has not needed the
 *   server), or closed after `idleCloseMs` without a call (`keep_alive: false`); the next call connects.
 * - `connecting`: an attempt is under way.
 * - `healthy`: connected, and the last probe answered.
 * - `degraded`: connected, but the last probe failed or was slow; it is probed again after the first
 *   backoff step, and a second failure in a row counts as lost.
 * - `disconnected`: not connected; the next attempt is scheduled (backoff 5 s, 10 s, 20 s, then every
 *   30 s, each ±20%), or none when the server needs a person (a sign-in).
 * - `dormant`: 6 attempts in a row failed; nothing more is tried in the background.
 *
 * A connected server is probed every 30 s ±20% (ping, or tools/list, 10 s timeout). A call that finds
 * the server disconnected or dormant reconnects on demand first (`ensure`), bounded by the connect
 * timeout; success resets the count. Timers never keep the process alive.
 *
 * The supervisor knows nothing of MCP: it drives a Connector, so its timing is tested with fake
 * timers and a scripted connector.
 */

import type { AuthChallenge } from './challenge.js';

export type ServerState = 'idle' | 'connecting' | 'healthy' | 'degraded' | 'disconnected' | 'dormant';

export interface SupervisorTiming {
  probeIntervalMs: number;
  probeTimeoutMs: number;
  /** ± this fraction on every interval. */
  jitter: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** Failed attempts in a row before the server goes dormant. */
  dormantAfter: number;
  /** Close a connection unused this long (checked at each probe); absent = keep it open. */
  idleCloseMs?: number;
}

export const DEFAULT_TIMING: SupervisorTiming = {
  probeIntervalMs: 30_000,
  probeTimeoutMs: 10_000,
  jitter: 0.2,
  backoffBaseMs: 5_000,
  backoffMaxMs: 30_000,
  dormantAfter: 6,
};

export interface Clock {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
  random(): number;
}

export const systemClock: Clock = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  now: () => Date.now(),
  random: () => Math.random(),
};

/** An attempt that must not be repeated without a person (a sign-in): no background retries. */
export class NeedsPersonError extends Error {
  override readonly name = 'NeedsPersonError';
  /** What the server said when it refused (an OAuth challenge), for whoever signs in. */
  readonly challenge: AuthChallenge | undefined;
  constructor(message: string, challenge?: AuthChallenge) {
    super(message);
    this.challenge = challenge;
  }
}

export interface Connector<C> {
  connect(signal: AbortSignal): Promise<C>;
  probe(conn: C, timeoutMs: number): Promise<void>;
  /** Tears the connection down (idle, lost, or the supervisor is disposed). */
  dispose(conn: C): Promise<void>;
  /** The connection is already known to be gone (its transport closed). */
  isClosed?(conn: C): boolean;
}

export interface SupervisorEvents<C> {
  onConnected?(conn: C): void;
  onState?(state: ServerState): void;
  /** A call is running on the connection now (never closed as idle then). */
  inUse?(): boolean;
}

export interface SupervisorStatus {
  state: ServerState;
  /** When the state was entered (ms since the epoch). */
  since: number;
  /** Failed attempts in a row. */
  failures: number;
  lastError?: string;
  /** The last time the server answered (connect or probe). */
  lastOkAt?: number;
  /** When the next background attempt or probe is due. */
  nextAt?: number;
  /** The last failure needs a person (sign in), so nothing is retried in the background. */
  needsPerson: boolean;
}

export class Supervisor<C> {
  readonly #connector: Connector<C>;
  readonly #timing: SupervisorTiming;
  readonly #clock: Clock;
  readonly #events: SupervisorEvents<C>;
  #state: ServerState = 'idle';
  #since: number;
  #conn: C | undefined;
  #attempt: Promise<C> | undefined;
  #attemptAbort: AbortController | undefined;
  #timer: unknown;
  #nextAt: number | undefined;
  #failures = 0;
  #probeFailures = 0;
  #lastError: string | undefined;
  #lastOkAt: number | undefined;
  #needsPerson = false;
  #disposed = false;
  #first: Promise<void> | undefined;
  /** The last time the connection was used (connected, a call began or ended). */
  #lastUse = 0;

  constructor(
    connector: Connector<C>,
    events: SupervisorEvents<C> = {},
    timing: Partial<SupervisorTiming> = {},
    clock: Clock = systemClock,
  ) {
    this.#connector = connector;
    this.#events = events;
    this.#timing = { ...DEFAULT_TIMING, ...timing };
    this.#clock = clock;
    this.#since = clock.now();
  }

  get state(): ServerState {
    return this.#state;
  }

  get connection(): C | undefined {
    return this.#conn;
  }

  status(): SupervisorStatus {
    return {
      state: this.#state,
      since: this.#since,
      failures: this.#failures,
      ...(this.#lastError !== undefined ? { lastError: this.#lastError } : {}),
      ...(this.#lastOkAt !== undefined ? { lastOkAt: this.#lastOkAt } : {}),
      ...(this.#nextAt !== undefined ? { nextAt: this.#nextAt } : {}),
      needsPerson: this.#needsPerson,
    };
  }

  /** Starts the first attempt (once); resolves when it has settled, whatever its outcome. */
  start(): Promise<void> {
    this.#first ??=
      this.#state === 'idle' && !this.#disposed
        ? this.#connect().then(
            () => undefined,
            () => undefined,
          )
        : Promise.resolve();
    return this.#first;
  }

  /**
   * A live connection, reconnecting now if there is none (also when dormant or waiting for a person:
   * a call is a person's or a run's wish to use the server). Throws the attempt's error.
   */
  async ensure(): Promise<C> {
    if (this.#disposed) throw new Error('the MCP server connection was shut down');
    const conn = this.#conn;
    if (conn !== undefined && !this.#connector.isClosed?.(conn)) return conn;
    if (conn !== undefined) this.#drop(conn, 'the connection closed');
    return this.#attempt ?? this.#connect();
  }

  /** A call begins or ends: the connection is not idle. */
  touch(): void {
    this.#lastUse = this.#clock.now();
  }

  /** The connection reported that it is gone (the server exited, the stream closed). */
  lost(conn: C, reason: string): void {
    if (this.#disposed || conn !== this.#conn) return;
    this.#drop(conn, reason);
    this.#failures = 0;
    this.#schedule('reconnect', this.#backoff(1));
  }

  /** A call failed in a way that says the connection is gone; the next call reconnects. */
  failed(conn: C, reason: string): void {
    this.lost(conn, reason);
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#cancelTimer();
    this.#attemptAbort?.abort(new Error('shutting down'));
    const conn = this.#conn;
    this.#conn = undefined;
    const attempt = this.#attempt;
    if (conn !== undefined) await this.#connector.dispose(conn).catch(() => undefined);
    if (attempt) {
      // A connection that opened while we were shutting down is closed as soon as it exists.
      const late = await attempt.catch(() => undefined);
      if (late !== undefined && late !== conn) await this.#connector.dispose(late).catch(() => undefined);
    }
  }

  #setState(s: ServerState): void {
    if (this.#state === s) return;
    this.#state = s;
    this.#since = this.#clock.now();
    this.#events.onState?.(s);
  }

  #connect(): Promise<C> {
    this.#cancelTimer();
    const ac = new AbortController();
    this.#attemptAbort = ac;
    this.#setState('connecting');
    const attempt = this.#connector.connect(ac.signal).then(
      (conn) => {
        if (this.#attempt === attempt) this.#attempt = undefined;
        if (this.#disposed) {
          void this.#connector.dispose(conn).catch(() => undefined);
          throw new Error('the MCP server connection was shut down');
        }
        this.#conn = conn;
        this.#failures = 0;
        this.#probeFailures = 0;
        this.#needsPerson = false;
        this.#lastError = undefined;
        this.#lastOkAt = this.#clock.now();
        this.#lastUse = this.#lastOkAt;
        this.#setState('healthy');
        this.#events.onConnected?.(conn);
        this.#schedule('probe', this.#jittered(this.#timing.probeIntervalMs));
        return conn;
      },
      (e: unknown) => {
        if (this.#attempt === attempt) this.#attempt = undefined;
        if (this.#disposed) throw e;
        this.#failures++;
        this.#lastError = e instanceof Error ? e.message : String(e);
        this.#needsPerson = e instanceof NeedsPersonError;
        if (this.#needsPerson) this.#setState('disconnected');
        else if (this.#failures >= this.#timing.dormantAfter) this.#setState('dormant');
        else {
          this.#setState('disconnected');
          this.#schedule('reconnect', this.#backoff(this.#failures));
        }
        throw e;
      },
    );
    this.#attempt = attempt;
    // Nobody may be waiting (a background attempt): the failure is recorded above.
    attempt.catch(() => undefined);
    return attempt;
  }

  async #probe(): Promise<void> {
    const conn = this.#conn;
    if (conn === undefined || this.#disposed) return;
    const idle = this.#timing.idleCloseMs;
    if (idle !== undefined && this.#clock.now() - this.#lastUse >= idle && !this.#events.inUse?.()) {
      // Unused for a while (keep_alive: false): the server's process goes; the next call starts it again.
      this.#conn = undefined;
      this.#lastError = undefined;
      this.#setState('idle');
      void this.#connector.dispose(conn).catch(() => undefined);
      return;
    }
    try {
      await this.#connector.probe(conn, this.#timing.probeTimeoutMs);
      if (conn !== this.#conn || this.#disposed) return;
      this.#probeFailures = 0;
      this.#lastOkAt = this.#clock.now();
      this.#setState('healthy');
      this.#schedule('probe', this.#jittered(this.#timing.probeIntervalMs));
    } catch (e) {
      if (conn !== this.#conn || this.#disposed) return;
      this.#probeFailures++;
      this.#lastError = `probe failed: ${e instanceof Error ? e.message : String(e)}`;
      if (this.#probeFailures >= 2 || this.#connector.isClosed?.(conn)) {
        this.lost(conn, this.#lastError);
        return;
      }
      this.#setState('degraded');
      this.#schedule('probe', this.#backoff(1));
    }
  }

  #drop(conn: C, reason: string): void {
    this.#conn = undefined;
    this.#lastError = reason;
    this.#cancelTimer();
    this.#setState('disconnected');
    void this.#connector.dispose(conn).catch(() => undefined);
  }

  #schedule(kind: 'probe' | 'reconnect', ms: number): void {
    this.#cancelTimer();
    if (this.#disposed) return;
    this.#nextAt = this.#clock.now() + ms;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.#nextAt = undefined;
      if (kind === 'probe') void this.#probe();
      else if (this.#conn === undefined && this.#attempt === undefined) this.#connect().catch(() => undefined);
    }, ms);
  }

  #cancelTimer(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#nextAt = undefined;
  }

  /** Attempt n (from 1) waits base·2^(n−1), at most max, jittered. */
  #backoff(n: number): number {
    return this.#jittered(Math.min(this.#timing.backoffBaseMs * 2 ** Math.max(0, n - 1), this.#timing.backoffMaxMs));
  }

  #jittered(ms: number): number {
    const j = this.#timing.jitter;
    return Math.round(ms * (1 - j + 2 * j * this.#clock.random()));
  }
}
