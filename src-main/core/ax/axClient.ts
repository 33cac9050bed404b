/**
 * The one client of the accessibility helper. It starts the helper on the first call (or connects through
 * whatever `connect` does), says hello, and then multiplexes calls by request id, each with its method's
 * timeout; mutations wait for their acknowledgement (JsonRpcPeer). When the helper crashes, the calls in
 * flight fail at once with HELPER_EXITED naming why, and the next call starts a new helper — lazily, at
 * most five times a minute. An idle helper is stopped after `idleMs`. The connection is owned here and torn
 * down by `dispose()`; the client itself belongs to the DisposableStore of whoever made it (the GUI tool
 * provider, a CLI command).
 */
import { Emitter, MutableDisposable, toDisposable, type Disposable } from '../base/lifecycle.js';
import { AxError } from './axError.js';
import { launchHelper, locateHelper, type HelperConnection, type LocateOptions } from './helperProcess.js';
import { JsonRpcPeer } from './jsonRpcPeer.js';
import { AX_PROTOCOL_VERSION, METHODS, timeoutFor, type AxMethod, type AxParams, type AxResult } from './protocol.js';

export type HelloResult = AxResult<'hello'>;

export interface AXClientOptions {
  /** Starts (or connects to) a helper; by default the one locateHelper finds. */
  connect?: () => Promise<HelperConnection>;
  /** Names the client in `hello`. */
  clientName?: string;
  /** Stop the helper after this long without calls (default 120 s; 0 keeps it until dispose). */
  idleMs?: number;
  /** Override a method's timeout (tests, slow machines). */
  timeouts?: Partial<Record<AxMethod, number>>;
  /** Restarts allowed within restartWindowMs before the client gives up for that window (default 5 per 60 s). */
  maxRestarts?: number;
  restartWindowMs?: number;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

interface Live {
  peer: JsonRpcPeer;
  connection: HelperConnection;
  hello: HelloResult;
}

export class AXClient implements Disposable {
  readonly #connect: () => Promise<HelperConnection>;
  readonly #opts: AXClientOptions;
  readonly #live = new MutableDisposable<Disposable>();
  readonly #exits = new Emitter<string>();
  #current: Live | undefined;
  #starting: Promise<Live> | undefined;
  #starts: number[] = [];
  #idle: NodeJS.Timeout | undefined;
  #inFlight = 0;
  #disposed = false;
  #startCount = 0;

  /** Fired with the reason when a running helper stops on its own (crash, exit, lost connection). */
  readonly onDidExit = this.#exits.event;

  constructor(opts: AXClientOptions = {}, locate: LocateOptions = {}) {
    this.#opts = opts;
    this.#connect =
      opts.connect ??
      (() => {
        const found = locateHelper(locate);
        if (!found.ok) return Promise.reject(new AxError('HELPER_UNAVAILABLE', found.reason));
        return launchHelper(found.spec);
      });
  }

  /** The helper's hello while it runs (platform, pid, capabilities, screen). */
  get hello(): HelloResult | undefined {
    return this.#current?.hello;
  }

  get running(): boolean {
    return this.#current !== undefined && !this.#current.peer.closed;
  }

  /** How many helpers this client started. */
  get starts(): number {
    return this.#startCount;
  }

  /** Starts the helper now instead of at the first call; resolves with its hello. */
  async start(): Promise<HelloResult> {
    return (await this.#ensure()).hello;
  }

  async call<M extends AxMethod>(method: M, params: AxParams<M>, opts: CallOptions = {}): Promise<AxResult<M>> {
    if (this.#disposed) throw new AxError('CANCELLED', `the accessibility client is closed (${method})`, method);
    const spec = METHODS[method];
    const checked = spec.params.safeParse(params);
    if (!checked.success) {
      throw new AxError(
        'INVALID',
        `${method}: ${checked.error.issues.map((i) => `${i.path.join('.') || 'params'}: ${i.message}`).join('; ')}`,
        method,
      );
    }
    this.#inFlight++;
    this.#stopIdleTimer();
    try {
      const live = await this.#ensure();
      const timeoutMs = opts.timeoutMs ?? this.#opts.timeouts?.[method] ?? timeoutFor(method, params);
      const raw = await live.peer.request(method, checked.data, {
        timeoutMs,
        mutation: spec.mutation,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      const parsed = spec.result.safeParse(raw);
      if (!parsed.success) {
        throw new AxError(
          'PROTOCOL',
          `ax_server answered ${method} with an unexpected shape: ${parsed.error.issues
            .slice(0, 3)
            .map((i) => `${i.path.join('.')}: ${i.message}`)
            .join('; ')}`,
          method,
        );
      }
      return parsed.data as AxResult<M>;
    } finally {
      this.#inFlight--;
      this.#armIdleTimer();
    }
  }

  /** Stops the helper (the next call starts another). */
  // eslint-disable-next-line no-restricted-syntax -- not a teardown: the client stays usable, dispose() ends it
  async stop(): Promise<void> {
    const live = this.#current;
    this.#current = undefined;
    this.#live.value = undefined;
    if (live) {
      live.peer.dispose();
      await live.connection.dispose();
    }
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#stopIdleTimer();
    this.#exits.dispose();
    this.#live.dispose();
    this.#current = undefined;
  }

  /** For a process that is exiting: signal the helper to end, synchronously. */
  killNow(): void {
    this.#current?.connection.kill();
    this.dispose();
  }

  /** Like dispose, waiting until the helper is gone. */
  async disposeAsync(): Promise<void> {
    const live = this.#current;
    const starting = this.#starting;
    this.dispose();
    if (live) await live.connection.dispose();
    if (starting) await starting.then((l) => l.connection.dispose()).catch(() => undefined);
  }

  async #ensure(): Promise<Live> {
    if (this.#current && !this.#current.peer.closed) return this.#current;
    this.#starting ??= this.#startHelper().finally(() => (this.#starting = undefined));
    return this.#starting;
  }

  async #startHelper(): Promise<Live> {
    const now = Date.now();
    const window = this.#opts.restartWindowMs ?? 60_000;
    this.#starts = this.#starts.filter((t) => now - t < window);
    const max = this.#opts.maxRestarts ?? 5;
    if (this.#starts.length >= max) {
      throw new AxError(
        'HELPER_UNAVAILABLE',
        `the accessibility helper stopped ${this.#starts.length} times within ${Math.round(window / 1000)} s; not starting it again yet`,
      );
    }
    this.#starts.push(now);
    const connection = await this.#connect();
    if (this.#disposed) {
      await connection.dispose();
      throw new AxError('CANCELLED', 'the accessibility client was closed while the helper started');
    }
    this.#startCount++;
    const peer = new JsonRpcPeer(connection.transport, () => connection.describeExit());
    let live: Live | undefined;
    const owned = toDisposable(() => {
      peer.dispose();
      void connection.dispose();
    });
    connection.transport.onClose(() => {
      if (this.#current === live && live) {
        this.#current = undefined;
        this.#live.value = undefined;
        this.#exits.fire(connection.describeExit());
      }
    });
    try {
      const raw = await peer.request(
        'hello',
        { protocol: AX_PROTOCOL_VERSION, client: this.#opts.clientName ?? 'rein' },
        { timeoutMs: this.#opts.timeouts?.hello ?? METHODS.hello.timeoutMs },
      );
      const hello = METHODS.hello.result.safeParse(raw);
      if (!hello.success) throw new AxError('PROTOCOL', 'ax_server answered hello with an unexpected shape', 'hello');
      if (hello.data.protocol !== AX_PROTOCOL_VERSION) {
        throw new AxError(
          'PROTOCOL',
          `ax_server speaks protocol ${hello.data.protocol}, this Rein speaks ${AX_PROTOCOL_VERSION}`,
          'hello',
        );
      }
      live = { peer, connection, hello: hello.data };
      this.#current = live;
      this.#live.value = owned;
      return live;
    } catch (e) {
      owned.dispose();
      throw e;
    }
  }

  #armIdleTimer(): void {
    const ms = this.#opts.idleMs ?? 120_000;
    if (ms <= 0 || this.#inFlight > 0 || this.#disposed || !this.#current) return;
    this.#idle = setTimeout(() => {
      if (this.#inFlight === 0) void this.stop();
    }, ms);
    this.#idle.unref();
  }

  #stopIdleTimer(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = undefined;
  }
}
