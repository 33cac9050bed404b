/**
 * The daemon's composition root: one per REIN_HOME. `startDaemon` takes the single-instance lock,
 * loads config and token, builds the bus, approval desk and router, serves HTTP + WebSocket on
 * loopback, then writes daemon.json so clients can find it. `dispose()` undoes all of it in reverse:
 * runs get a grace period to finish and are then cancelled (their sessions are saved by the loop),
 * servers close, daemon.json and the lock go away.
 *
 * The desktop app embeds the same thing in its main process; `rein daemon` runs it headless.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, networkInterfaces } from 'node:os';
import type { DaemonEvent } from '../api/events.js';
import { DisposableStore, Emitter, toDisposable, type AsyncDisposable } from '../base/lifecycle.js';
import type { GlobalConfig } from '../config/schema.js';
import { ReinError, errorMessage } from '../errors.js';
import { primeLoginPath } from '../process/loginPath.js';
import type { createRuntime } from '../runtime/runtime.js';
import { LiveConfig } from '../service/liveConfig.js';
import { ReinService, type ReinServiceOptions, type RunsInFlight } from '../service/reinService.js';
import { agentActivity, runHeartbeat, startTriggers, type TriggerOptions, type Triggers } from '../triggers/index.js';
import { isLoopbackHost, WILDCARD_HOSTS } from '../util/loopback.js';
import type { DaemonContext } from './context.js';
import { writeConfirmSecret } from './confirmSecret.js';
import {
  loadOrCreateToken,
  newToken,
  removeDaemonInfo,
  writeDaemonInfo,
  writeToken,
  type DaemonInfo,
} from './daemonFile.js';
import { createHttpServer } from './httpServer.js';
import { acquireInstanceLock } from './instanceLock.js';
import { hostNamesFor, LOOPBACK_NAMES } from './security.js';
import { staticFiles } from './staticFiles.js';
import { WebhookConfig } from './webhooks.js';
import { attachWebSocket } from './wsServer.js';
import { isNotifier, systemNotifier, type SystemNotice } from '../notify/systemNotifier.js';
import { watchWindowlessNotices } from '../notify/windowlessNotices.js';

export { DEFAULT_SHUTDOWN_CANCEL_MS, DEFAULT_SHUTDOWN_GRACE_MS } from '../service/reinService.js';
export { isLoopbackHost };

export interface DaemonOptions {
  home: string;
  /** Working folder for runs whose agent sets none (default: the user's home folder). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  version?: string;
  /** Default: config `daemon.port` (7533). 0 picks a free port. */
  port?: number;
  /** Default: config `daemon.host` (127.0.0.1). */
  host?: string;
  /**
   * Default: loaded from `<home>/config.yaml` and the cwd's project overlay (its raising settings only
   * when `rein trust` trusted the folder), and followed: edits apply from the next message. A config
   * given here is used as it is and never re-read (tests, embedders).
   */
  config?: GlobalConfig;
  /** A folder of web UI files to serve at `/` without a token (the browser build of the renderer). */
  staticDir?: string;
  /** Browser origins allowed besides the daemon's own (the desktop app's, a dev server). */
  extraOrigins?: string[];
  /** How long a request's body may take to arrive before the answer is 408 `body_timeout` (default 30 s). */
  bodyTimeoutMs?: number;
  /** How long running runs may take to finish on shutdown before they are cancelled. */
  shutdownGraceMs?: number;
  /** How long cancelled runs get to save and end. */
  shutdownCancelMs?: number;
  warn?: (message: string) => void;
  createRuntime?: typeof createRuntime;
  /** The faces of the person present for attended runs (the desktop app's native dialog). */
  presentFaces?: ReinServiceOptions['presentFaces'];
  /** Shows an MCP server's sign-in page (the desktop app: its browser hand-off; default: the browser opener, $BROWSER first). */
  openUrl?: ReinServiceOptions['openUrl'];
  /** Where MCP servers' OAuth sign-ins are kept (the desktop app's key store; default: 0600 files). */
  mcpTokenStores?: ReinServiceOptions['mcpTokenStores'];
  /** Heartbeat timers and file watchers of every agent (core/triggers); `false` starts none. */
  triggers?: false | TriggerOptions;
  /**
   * System notifications for a daemon without the app's window (notify/windowlessNotices.ts): `system`
   * is osascript / notify-send, a function shows them itself (the headless app: its own notifications).
   * Config `daemon.notifications: false` turns them off. Default: none (the app's window shows its own).
   */
  notifications?: 'system' | ((notice: SystemNotice) => Promise<void>);
  /**
   * Told the service as soon as it is built, before any face starts: the caller (the desktop app) owns
   * it from then on. A face that then fails to start (the port is taken) leaves the service running for
   * the caller, holding the instance lock until it closes; the error still says what went wrong.
   */
  serviceReady?: (service: ReinService) => void;
}

export interface DaemonHandle {
  info: DaemonInfo;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The current token (changes on rotation). */
  token(): string;
  /** Every operation, in process: the desktop app calls this directly, never over HTTP. */
  service: ReinService;
  /** For the rest of the app (scheduler, heartbeats): put an event on the bus. */
  publish(event: DaemonEvent): void;
  /** The service's runs in flight and waiting, and its submit (tests, embedders): the same as `service`'s. */
  router: RunsInFlight & Pick<ReinService, 'submit'>;
  /** Resolves once the daemon has fully stopped (after dispose() or POST /shutdown). */
  closed: Promise<void>;
  /** The agents' heartbeats and file watchers, unless turned off (DaemonOptions.triggers). */
  triggers?: Triggers;
  /** A shutdown was asked for over HTTP; the embedder decides when to call dispose(). */
  onShutdownRequested(listener: () => void): void;
  /** Owned until dispose: torn down after the runs have ended and before the servers close (watchers, runners). */
  own<T extends AsyncDisposable>(d: T): T;
  /** @deprecated use own(); kept for embedders: a teardown function run on dispose. */
  addTeardown(fn: () => void | Promise<void>): void;
  /** Stops the daemon (see startDaemon); calling it again returns the same promise. */
  dispose(): Promise<void>;
}

/**
 * Starts the daemon: lock, config, token, the service, HTTP + WebSocket on the host and port, then
 * daemon.json. Everything it makes goes into one store, torn down in reverse order by dispose(): the
 * service's runs end (grace, then cancel), what was handed to own() goes, event streams and sockets
 * close, the server closes, daemon.json and the lock go away.
 */
export async function startDaemon(opts: DaemonOptions): Promise<DaemonHandle> {
  const home = opts.home;
  const env = opts.env ?? process.env;
  const warn = opts.warn ?? ((m: string) => process.stderr.write(`rein daemon: ${m}\n`));
  // Started without a terminal's PATH (the app opened from the Finder, `rein daemon` or the headless app
  // from launchd): the login shell's is read in the background, so the runs' tools — timed schedules,
  // heartbeats, watchers, messages — find `gh`, `brew` and the rest as in a terminal (childEnv.ts).
  primeLoginPath(process.env);
  // Torn down in reverse order of adding, on dispose or when start fails half-way.
  const store = new DisposableStore();
  const lock = await acquireInstanceLock(home);
  // Handed to the service instead when a face fails to start and the service stays up (serviceReady).
  let lockKept = false;
  store.add({ dispose: () => (lockKept ? undefined : lock.release()) });
  let keepService: (() => void) | undefined;
  let infoWritten = false;
  // daemon.json goes just before the lock, once the server has stopped answering.
  store.add({
    dispose: () =>
      infoWritten
        ? removeDaemonInfo(home, process.pid).catch((e: unknown) =>
            warn(`could not remove daemon.json: ${errorMessage(e)}`),
          )
        : undefined,
  });
  try {
    const cwd = opts.cwd ?? homedir();
    // Followed from here on: an edit to config.yaml, the cwd's overlay or the trust file applies from the
    // next message (service/liveConfig.ts). A config handed in is used as it is.
    const live = opts.config ? undefined : await LiveConfig.start({ home, cwd, warn });
    const config = opts.config ?? live!.last;
    const host = opts.host ?? config.daemon.host;
    if (!isLoopbackHost(host)) {
      warn(
        `WARNING: listening on ${host} makes the daemon reachable from other machines. Every request still needs ` +
          'the token, but traffic is plain HTTP: use it only on a network you trust.',
      );
    }
    const requestedPort = opts.port ?? config.daemon.port;
    const token = await loadOrCreateToken(home);
    // After the lock: a second daemon that could not start never replaces the running one's secret.
    const confirmSecret = await writeConfirmSecret(home);
    const version = opts.version ?? '0.0.0-dev';

    const service = await ReinService.create({
      home,
      cwd,
      env,
      config: live ?? config,
      version,
      warn,
      ...(opts.createRuntime ? { createRuntime: opts.createRuntime } : {}),
      ...(opts.presentFaces ? { presentFaces: opts.presentFaces } : {}),
      ...(opts.openUrl ? { openUrl: opts.openUrl } : {}),
      ...(opts.mcpTokenStores ? { mcpTokenStores: opts.mcpTokenStores } : {}),
      ...(opts.shutdownGraceMs !== undefined ? { shutdownGraceMs: opts.shutdownGraceMs } : {}),
      ...(opts.shutdownCancelMs !== undefined ? { shutdownCancelMs: opts.shutdownCancelMs } : {}),
      // A shell on this machine can confirm raises (`rein changes accept`): it reads the confirm secret.
      confirmInShell: true,
    });
    // Every face is a peer of the service: its owner may use it while the daemon's own faces start.
    if (opts.serviceReady) {
      opts.serviceReady(service);
      // Should a face fail to start, the service stays up for its owner, and keeps this home's lock.
      keepService = () => {
        lockKept = true;
        service.own({ dispose: () => lock.release() });
      };
    } else store.add(service);
    service.setHeartbeatRunner((agent, signal) =>
      runHeartbeat(service, agent, { trigger: 'hand', ...(signal ? { signal } : {}), warn }),
    );

    const shutdownRequested = store.add(new Emitter<void>());
    const ctx: DaemonContext = {
      service,
      security: { port: 0, hostNames: [...LOOPBACK_NAMES], extraOrigins: opts.extraOrigins ?? [], token },
      confirmSecret,
      webhooks: new WebhookConfig(home),
      ...(opts.staticDir ? { staticFiles: staticFiles(opts.staticDir) } : {}),
      ...(opts.bodyTimeoutMs !== undefined ? { bodyTimeoutMs: opts.bodyTimeoutMs } : {}),
      rotateToken: async () => {
        const next = newToken();
        await writeToken(home, next);
        ctx.security.token = next;
        info.token = next;
        await writeDaemonInfo(home, info);
        return next;
      },
      requestShutdown: () => shutdownRequested.fire(),
      tokenRotated: new Emitter<void>(),
      shuttingDown: new Emitter<void>(),
      warn,
    };

    const server = createHttpServer(ctx);
    store.add(serverCloser(server));
    const ws = attachWebSocket(server, ctx);
    // Event streams and sockets never end by themselves: end them politely before the server closes.
    store.add(
      toDisposable(() => {
        ctx.shuttingDown.fire();
        ws.dispose();
      }),
    );
    // What embedders hand over (watchers, runners) goes before the streams close and the server stops.
    const owned = new DisposableStore();
    store.add({
      dispose: () => owned.disposeAsync().catch((e: unknown) => warn(`teardown failed: ${errorMessage(e)}`)),
    });
    await listen(server, requestedPort, host);
    const port = (server.address() as AddressInfo).port;
    ctx.security.port = port;
    ctx.security.hostNames = allowedHostNames(host);

    const info: DaemonInfo = {
      pid: process.pid,
      port,
      host,
      token,
      version,
      started_at: service.startedAt.toISOString(),
    };
    await writeDaemonInfo(home, info);
    infoWritten = true;
    // Schedules on the daemon backend fire from here (launchd jobs hand their runs over instead).
    service.startScheduleClock();
    // The runs end first: dispose() tears the store down from here back to the lock.
    store.add(service);
    // Before them, heartbeats and watchers stop, so none starts a run while the others wind down.
    const triggers =
      opts.triggers === false ? undefined : store.add(startTriggers(service, { warn, ...opts.triggers }));
    if (opts.notifications && config.daemon.notifications)
      store.add(watchWindowlessNotices(service, noticeShower(opts.notifications, env), warn));
    if (triggers)
      service.setActivitySource(
        (agent) => agentActivity(service, triggers, agent) as unknown as Promise<Record<string, unknown>>,
      );

    let resolveClosed!: () => void;
    const closed = new Promise<void>((ok) => (resolveClosed = ok));
    let closing: Promise<void> | undefined;
    const dispose = () =>
      (closing ??= (async () => {
        try {
          await store.disposeAsync();
        } catch (e) {
          warn(`while closing: ${errorMessage(e)}`);
        }
        resolveClosed();
      })());

    const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
    return {
      info,
      url: `http://${urlHost}:${port}`,
      token: () => ctx.security.token,
      service,
      publish: (event) => service.publish(event),
      router: {
        get running() {
          return service.router.running;
        },
        get queued() {
          return service.router.queued;
        },
        submit: (r, o) => service.submit(r, o),
      },
      ...(triggers ? { triggers } : {}),
      closed,
      onShutdownRequested: (l) => void shutdownRequested.event(l),
      own: (d) => owned.add(d),
      addTeardown: (fn) => void owned.add({ dispose: fn }),
      dispose,
    };
  } catch (e) {
    keepService?.();
    await store.disposeAsync().catch(() => undefined);
    throw e;
  }
}

/** Closes the server: idle connections at once, the rest after answers in flight have had 250 ms. */
function serverCloser(server: Server): AsyncDisposable {
  return {
    dispose: () =>
      new Promise<void>((ok) => {
        if (!server.listening) return ok();
        const force = setTimeout(() => server.closeAllConnections(), 250);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          ok();
        });
        server.closeIdleConnections();
      }),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((ok, fail) => {
    const onError = (e: NodeJS.ErrnoException) => {
      fail(
        e.code === 'EADDRINUSE'
          ? new ReinError(
              'invalid_input',
              `port ${port} on ${host} is already in use; pick another with --port (0 = any free port)`,
            )
          : new ReinError('internal', `cannot listen on ${host}:${port}: ${e.message}`),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      ok();
    });
  });
}

/** Loopback names always; a specific bind address too; for a wildcard bind, every local interface address. */
function allowedHostNames(host: string): string[] {
  const names = hostNamesFor(host);
  if (WILDCARD_HOSTS.has(host)) {
    for (const list of Object.values(networkInterfaces())) {
      for (const a of list ?? []) names.push(a.family === 'IPv6' ? `[${a.address.toLowerCase()}]` : a.address);
    }
  }
  return [...new Set(names)];
}

/** The notifier behind `DaemonOptions.notifications`; without one each notice fails with the reason. */
function noticeShower(
  choice: 'system' | ((notice: SystemNotice) => Promise<void>),
  env: NodeJS.ProcessEnv,
): (notice: SystemNotice) => Promise<void> {
  if (choice !== 'system') return choice;
  const notifier = systemNotifier({ env });
  return isNotifier(notifier) ? (n) => notifier.show(n) : () => Promise.reject(new Error(notifier.why));
}
