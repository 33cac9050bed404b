/**
 * The warm relay (warmHelper.ts has the why): a detached Node process that owns one accessibility helper
 * and lets successive `rein ax` commands of the same user use it. It
 *
 * - starts the helper as Rein always does (launchHelper: a private socket, the helper's parent pid is
 *   ours, so the helper ends with us), says hello once to learn its pid and protocol;
 * - listens on `<dir>/<key>.sock`, made under umask 0177 and chmod 0600 in the 0700 folder;
 * - forwards each client's request lines to the helper with ids of its own (clients may overlap; the
 *   helper handles one request at a time anyway) and each answer back to the client that asked;
 * - answers `rein.warm.status` and `rein.warm.stop` itself;
 * - ends after `idleMs` with no call pending and none made, when the helper stops, or on SIGTERM; it
 *   removes its socket and info file, if they are still its own, as it goes.
 *
 * Nothing but the ready line goes to stdout; diagnostics go to stderr, the `<key>.log` file.
 */
import { existsSync, lstatSync, readFileSync, unlinkSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { AxError } from './axError.js';
import { launchHelper, locateHelper, type HelperConnection } from './helperProcess.js';
import { streamTransport, type LineTransport } from './lineTransport.js';
import { AX_PROTOCOL_VERSION } from './protocol.js';
import { WARM_STATUS, WARM_STOP, type WarmInfo } from './warmHelper.js';

export interface WarmServeOptions {
  socket: string;
  info: string;
  idleMs: number;
  env: NodeJS.ProcessEnv;
  /** Where the one ready line goes (the starting command reads it). */
  ready: (line: string) => void;
  log: (line: string) => void;
}

interface Route {
  client: Client;
  id: unknown;
}

interface Client {
  transport: LineTransport;
  closed: boolean;
}

/** Serves until idle or stopped; resolves with the exit code. */
export async function serveWarm(opts: WarmServeOptions): Promise<number> {
  const log = (m: string) => opts.log(`${new Date().toISOString()} ax warm relay ${process.pid}: ${m}`);
  const found = locateHelper({ env: opts.env });
  if (!found.ok) {
    opts.ready(JSON.stringify({ ready: false, reason: found.reason }));
    return 1;
  }
  let helper: HelperConnection;
  let helperPid: number | null;
  try {
    helper = await launchHelper(found.spec);
    helperPid = await hello(helper);
  } catch (e) {
    opts.ready(JSON.stringify({ ready: false, reason: (e as Error).message }));
    return 1;
  }

  const routes = new Map<number, Route>();
  const clients = new Set<Client>();
  let nextId = 1;
  let lastActivity = Date.now();
  let calls = 0;
  let ending: Promise<number> | undefined;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  const startedAt = new Date().toISOString();

  const touch = () => {
    lastActivity = Date.now();
  };

  helper.transport.onLine((line) => {
    touch();
    let msg: { id?: unknown };
    try {
      msg = JSON.parse(line) as { id?: unknown };
    } catch {
      log(`the helper sent a line that is not JSON: ${line.slice(0, 120)}`);
      return;
    }
    if (typeof msg.id !== 'number') return; // a notification, or an error without an id: nobody to give it to
    const route = routes.get(msg.id);
    if (!route) return;
    routes.delete(msg.id);
    if (route.client.closed) return; // the command ended before its answer came
    send(route.client, { ...msg, id: route.id });
  });
  helper.transport.onClose(() => void end(`the helper stopped: ${helper.describeExit()}`, 1));

  const send = (client: Client, obj: unknown) => {
    if (client.closed) return;
    try {
      client.transport.send(JSON.stringify(obj));
    } catch {
      client.closed = true;
    }
  };

  const onClientLine = (client: Client, line: string) => {
    let msg: { id?: unknown; method?: unknown };
    try {
      msg = JSON.parse(line) as { id?: unknown; method?: unknown };
    } catch {
      send(client, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
      return;
    }
    // Asking the relay about itself is not a use of the helper: it does not keep it warm.
    if (msg.method === WARM_STATUS || msg.method === WARM_STOP) {
      const status = {
        pid: process.pid,
        helper_pid: helperPid,
        idle_ms: opts.idleMs,
        idle_for_ms: Date.now() - lastActivity,
        started_at: startedAt,
        clients: clients.size,
        calls,
      };
      send(client, { jsonrpc: '2.0', id: msg.id ?? null, result: status });
      if (msg.method === WARM_STOP) setImmediate(() => void end('asked to stop', 0));
      return;
    }
    touch();
    calls++;
    if (msg.id === undefined || msg.id === null) {
      forward(line);
      return;
    }
    const id = nextId++;
    routes.set(id, { client, id: msg.id });
    forward(JSON.stringify({ ...msg, id }));
  };

  const forward = (line: string) => {
    try {
      helper.transport.send(line);
    } catch {
      void end('the helper connection is closed', 1);
    }
  };

  const server: Server = createServer((socket: Socket) => {
    socket.setNoDelay(true);
    const client: Client = { transport: streamTransport(socket, socket, () => socket.destroy()), closed: false };
    clients.add(client);
    client.transport.onLine((line) => onClientLine(client, line));
    client.transport.onClose(() => {
      client.closed = true;
      clients.delete(client);
    });
  });

  const end = (why: string, code: number): Promise<number> => {
    ending ??= (async () => {
      log(`ending: ${why}`);
      clearInterval(idleTimer);
      server.close();
      for (const c of clients) c.transport.dispose();
      removeIfOurs(opts.socket, socketIno);
      removeInfoIfOurs(opts.info);
      await helper.dispose().catch(() => undefined);
      resolveDone(code);
      return code;
    })();
    return ending;
  };

  // The socket is born private: umask 0177 while it is bound, then 0600 checked once more.
  if (existsSync(opts.socket)) unlinkSync(opts.socket);
  const oldMask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.socket, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    process.umask(oldMask);
    await helper.dispose().catch(() => undefined);
    opts.ready(JSON.stringify({ ready: false, reason: `could not listen on ${opts.socket}: ${(e as Error).message}` }));
    return 1;
  }
  process.umask(oldMask);
  await chmod(opts.socket, 0o600);
  const socketIno = lstatSync(opts.socket).ino;
  server.on('error', (e) => void end(`the socket failed: ${e.message}`, 1));

  const info: WarmInfo = {
    pid: process.pid,
    helper_pid: helperPid,
    socket: opts.socket,
    idle_ms: opts.idleMs,
    started_at: startedAt,
  };
  await atomicWriteFile(opts.info, `${JSON.stringify(info)}\n`, { mode: 0o600 });

  const idleTimer = setInterval(
    () => {
      if (routes.size === 0 && Date.now() - lastActivity >= opts.idleMs)
        void end(`idle for ${Math.round((Date.now() - lastActivity) / 1000)} s`, 0);
    },
    Math.min(1_000, Math.max(50, Math.floor(opts.idleMs / 5))),
  );
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(sig, () => void end(`got ${sig}`, 0));

  log(`serving ${opts.socket} for helper pid ${helperPid ?? '?'} (idle exit after ${opts.idleMs} ms)`);
  opts.ready(
    JSON.stringify({
      ready: true,
      socket: opts.socket,
      pid: process.pid,
      helper_pid: helperPid,
      protocol: AX_PROTOCOL_VERSION,
    }),
  );
  return done;
}

/** One hello of our own: the helper speaks our protocol, and its pid goes into the info file. */
async function hello(helper: HelperConnection): Promise<number | null> {
  const answer = await new Promise<{
    result?: { protocol?: number; helper?: { pid?: number } };
    error?: { message?: string };
  }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new AxError('HELPER_UNAVAILABLE', 'the helper did not answer hello within 10 s')),
      10_000,
    );
    const sub = helper.transport.onLine((line) => {
      try {
        const msg = JSON.parse(line) as { id?: unknown };
        if (msg.id !== 0) return;
        clearTimeout(timer);
        sub.dispose();
        resolve(msg as never);
      } catch {
        // not for us
      }
    });
    helper.transport.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'hello',
        params: { protocol: AX_PROTOCOL_VERSION, client: 'rein-warm-relay' },
      }),
    );
  });
  if (answer.error) throw new AxError('HELPER_UNAVAILABLE', `the helper refused hello: ${answer.error.message ?? ''}`);
  if (answer.result?.protocol !== AX_PROTOCOL_VERSION)
    throw new AxError(
      'PROTOCOL',
      `the helper speaks protocol ${String(answer.result?.protocol)}, this Rein speaks ${AX_PROTOCOL_VERSION}`,
    );
  return answer.result.helper?.pid ?? helper.pid ?? null;
}

/** A new relay may already have replaced our socket (we were judged stale): never remove its file. */
function removeIfOurs(path: string, ino: number): void {
  try {
    if (lstatSync(path).ino === ino) unlinkSync(path);
  } catch {
    // gone already
  }
}

function removeInfoIfOurs(path: string): void {
  try {
    if ((JSON.parse(readFileSync(path, 'utf8')) as WarmInfo).pid === process.pid) unlinkSync(path);
  } catch {
    // gone already, or another's
  }
}
