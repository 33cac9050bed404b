/**
 * The daemon's composition root: one per REIN_HOME. `startDaemon` takes the single-instance lock,
 * loads config and token, builds the bus, approval desk and router, serves HTTP + WebSocket on
 * loopback, then writes daemon.json so clients can find it. `close()` undoes all of it in reverse:
 * runs get a grace period to finish and are then cancelled (their sessions are saved by the loop),
 * servers close, daemon.json and the lock go away.
 *
 * The desktop app embeds the same thing in its main process; `rein daemon` runs it headless.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, networkInterfaces } from 'node:os';
import type { DaemonEvent } from '../api/events.js';
import { loadConfig } from '../config/load.js';
import type { GlobalConfig } from '../config/schema.js';
import { ReinError, errorMessage } from '../errors.js';
import type { ApprovalFace } from '../permissions/types.js';
import type { createRuntime } from '../runtime/runtime.js';
import { SessionIndex } from '../search/sessionIndex.js';
import { ApprovalDesk } from './approvalDesk.js';
import type { DaemonContext } from './context.js';
import { loadOrCreateToken, newToken, removeDaemonInfo, writeDaemonInfo, writeToken, type DaemonInfo } from './daemonFile.js';
import { EventBus } from './eventBus.js';
import { createHttpServer } from './httpServer.js';
import { acquireInstanceLock } from './instanceLock.js';
import { RouteTable } from './routeTable.js';
import { RunRouter } from './runRouter.js';
import { hostNamesFor, LOOPBACK_NAMES } from './security.js';
import { staticFiles } from './staticFiles.js';
import { WebhookConfig } from './webhooks.js';
import { attachWebSocket } from './wsServer.js';

export const DEFAULT_SHUTDOWN_GRACE_MS = 2_500;
export const DEFAULT_SHUTDOWN_CANCEL_MS = 2_500;

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
  /** Default: loaded from `<home>/config.yaml` (and the cwd's project overlay). */
  config?: GlobalConfig;
  /** A folder of web UI files to serve at `/` without a token (the browser build of the renderer). */
  staticDir?: string;
  /** Browser origins allowed besides the daemon's own (the desktop app's, a dev server). */
  extraOrigins?: string[];
  /** How long running runs may take to finish on shutdown before they are cancelled. */
  shutdownGraceMs?: number;
  /** How long cancelled runs get to save and end. */
  shutdownCancelMs?: number;
  warn?: (message: string) => void;
  createRuntime?: typeof createRuntime;
  /** Approval faces every run asks besides the daemon's (the desktop app's own card). */
  extraFaces?: (route: string, agent: string) => ApprovalFace[];
}

export interface DaemonHandle {
  info: DaemonInfo;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** The current token (changes on rotation). */
  token(): string;
  /** For the rest of the app (scheduler, heartbeats): put an event on the bus. */
  publish(event: DaemonEvent): void;
  router: RunRouter;
  bus: EventBus;
  desk: ApprovalDesk;
  /** Resolves once the daemon has fully stopped (after close() or POST /shutdown). */
  closed: Promise<void>;
  /** A shutdown was asked for over HTTP; the embedder decides when to call close(). */
  onShutdownRequested(listener: () => void): void;
  /** Teardown to run on close, after the runs have ended and before the servers close (MCP, watchers). */
  addTeardown(fn: () => void | Promise<void>): void;
  close(): Promise<void>;
}

export async function startDaemon(opts: DaemonOptions): Promise<DaemonHandle> {
  const home = opts.home;
  const env = opts.env ?? process.env;
  const warn = opts.warn ?? ((m: string) => process.stderr.write(`rein daemon: ${m}\n`));
  const lock = await acquireInstanceLock(home);
  let server: Server | undefined;
  try {
    const cwd = opts.cwd ?? homedir();
    const config = opts.config ?? (await loadConfig({ home, cwd })).config;
    const host = opts.host ?? config.daemon.host;
    if (!isLoopbackHost(host)) {
      warn(
        `WARNING: listening on ${host} makes the daemon reachable from other machines. Every request still needs ` +
          'the token, but traffic is plain HTTP: use it only on a network you trust.',
      );
    }
    const requestedPort = opts.port ?? config.daemon.port;
    const token = await loadOrCreateToken(home);
    const routes = new RouteTable(home, warn);
    await routes.load();

    const bus = new EventBus();
    const desk = new ApprovalDesk();
    let index: Promise<SessionIndex> | undefined;
    let indexOpen = false;
    const router = new RunRouter({
      home,
      cwd,
      env,
      config,
      bus,
      desk,
      routes,
      maxConcurrent: config.daemon.max_concurrent_runs,
      warn,
      ...(opts.createRuntime ? { createRuntime: opts.createRuntime } : {}),
      ...(opts.extraFaces ? { extraFaces: opts.extraFaces } : {}),
      afterRun: (session) => {
        // Only once something searched: opening the index builds it from every file, which is the
        // search's job to pay for, not every run's. The router hands `session` back to the store right
        // after this returns, for the route's next run to continue: an open index reads it before any
        // such run can start (the upsert is a microtask), one still opening gets a copy.
        const s = indexOpen || !index ? session : structuredClone(session);
        void index?.then((i) => i.upsert(s)).catch((e: unknown) => warn(`search index: ${errorMessage(e)}`));
      },
    });

    const shutdownListeners = new Set<() => void>();
    const ctx: DaemonContext = {
      home,
      version: opts.version ?? '0.0.0-dev',
      startedAt: new Date(),
      env,
      config,
      bus,
      desk,
      router,
      security: { port: 0, hostNames: [...LOOPBACK_NAMES], extraOrigins: opts.extraOrigins ?? [], token },
      webhooks: new WebhookConfig(home),
      ...(opts.staticDir ? { staticFiles: staticFiles(opts.staticDir) } : {}),
      activeAgent: 'default',
      clients: { events: 0, ws: 0 },
      sessionIndex: () => {
        index ??= SessionIndex.open(home);
        index.then(() => (indexOpen = true), () => (index = undefined));
        return index;
      },
      rotateToken: async () => {
        const next = newToken();
        await writeToken(home, next);
        ctx.security.token = next;
        info.token = next;
        await writeDaemonInfo(home, info);
        return next;
      },
      requestShutdown: () => {
        for (const l of shutdownListeners) l();
      },
      onTokenRotated: new Set(),
      onShutdown: new Set(),
      warn,
    };

    server = createHttpServer(ctx);
    const ws = attachWebSocket(server, ctx);
    await listen(server, requestedPort, host);
    const port = (server.address() as AddressInfo).port;
    ctx.security.port = port;
    ctx.security.hostNames = allowedHostNames(host);

    const info: DaemonInfo = {
      pid: process.pid,
      port,
      host,
      token,
      version: ctx.version,
      started_at: ctx.startedAt.toISOString(),
    };
    await writeDaemonInfo(home, info);

    const teardowns: Array<() => void | Promise<void>> = [];
    let resolveClosed!: () => void;
    const closed = new Promise<void>((ok) => (resolveClosed = ok));
    let closing: Promise<void> | undefined;
    const srv = server;
    const close = () =>
      (closing ??= (async () => {
        await router.close(opts.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS, opts.shutdownCancelMs ?? DEFAULT_SHUTDOWN_CANCEL_MS);
        for (const fn of teardowns.reverse()) {
          try {
            await fn();
          } catch (e) {
            warn(`teardown failed: ${errorMessage(e)}`);
          }
        }
        // Event streams and sockets never end by themselves: end them politely, let answers to
        // requests whose runs just ended flush, then cut whatever is still open.
        for (const end of [...ctx.onShutdown]) end();
        ws.close();
        await new Promise<void>((ok) => {
          srv.close(() => ok());
          srv.closeIdleConnections();
          setTimeout(() => srv.closeAllConnections(), 250).unref();
        });
        await index?.then((i) => i.close()).catch(() => undefined);
        await removeDaemonInfo(home, process.pid).catch((e: unknown) => warn(`could not remove daemon.json: ${errorMessage(e)}`));
        await lock.release();
        resolveClosed();
      })());

    const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
    return {
      info,
      url: `http://${urlHost}:${port}`,
      token: () => ctx.security.token,
      publish: (event) => void bus.publish(event),
      router,
      bus,
      desk,
      closed,
      onShutdownRequested: (l) => void shutdownListeners.add(l),
      addTeardown: (fn) => void teardowns.push(fn),
      close,
    };
  } catch (e) {
    server?.close();
    await lock.release();
    throw e;
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((ok, fail) => {
    const onError = (e: NodeJS.ErrnoException) => {
      fail(
        e.code === 'EADDRINUSE'
          ? new ReinError('invalid_input', `port ${port} on ${host} is already in use; pick another with --port (0 = any free port)`)
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
  if (['0.0.0.0', '::', '[::]'].includes(host)) {
    for (const list of Object.values(networkInterfaces())) {
      for (const a of list ?? []) names.push(a.family === 'IPv6' ? `[${a.address.toLowerCase()}]` : a.address);
    }
  }
  return [...new Set(names)];
}

export function isLoopbackHost(host: string): boolean {
  return ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host.toLowerCase()) || /^127\./.test(host);
}
