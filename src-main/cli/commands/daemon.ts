/**
 * `rein daemon [--port N] [--host H] [--cwd DIR]` runs the daemon in the foreground until SIGINT /
 * SIGTERM or `rein daemon stop`. `rein daemon status | stop | rotate-token` talk to a running one
 * through daemon.json. Exit codes: 0 ok, 1 failure (or not running, for status), 2 bad usage, 3
 * another daemon already owns this REIN_HOME.
 */
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { reinHome } from '../../core/config/paths.js';
import { visibleText } from '../../core/api/visibleText.js';
import { isReinError } from '../../core/errors.js';
import { daemonInfoFile, newToken, readDaemonInfo, writeToken, type DaemonInfo } from '../../core/daemon/daemonFile.js';
import { startDaemon } from '../../core/daemon/daemon.js';
import { DaemonAlreadyRunning, isAlive, lockOwner } from '../../core/daemon/instanceLock.js';
import { keepServingOnUnhandledRejections } from '../../core/daemon/lastResort.js';
import { findPackageRoot } from '../../core/skills/bundledDir.js';
import { UsageError, type CliIo } from '../io.js';

export const EXIT_ALREADY_RUNNING = 3;

export const DAEMON_HELP = `rein daemon — agents as a local service (HTTP + WebSocket + SSE)

Usage:
  rein daemon [--port N] [--host ADDR] [--cwd DIR]   run in the foreground (Ctrl-C stops it)
  rein daemon status [--json]                       is it running; runs, queue, approvals
  rein daemon stop                                  ask the running daemon to stop
  rein daemon rotate-token                          replace the access token

  --port N     port to listen on (default: config daemon.port, 7533; 0 = any free port)
  --host ADDR  address to bind (default 127.0.0.1). Anything but loopback exposes the daemon to
               your network: every request still needs the token.
  --cwd DIR    working folder for runs whose agent sets none (default: your home folder)

The port and the token are in $REIN_HOME/daemon.json (mode 0600). The daemon also serves the web UI
(out/renderer, built by \`npm run build\`) and prints its address with the token. A change asked over
the API that raises permissions waits for you: the daemon prints it with the command that accepts it
(\`rein changes accept ID\`, see rein changes --help). See docs/daemon-api.md.
`;

export async function daemonCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'status') return await status(rest, io);
  if (sub === 'stop') return await stop(rest, io);
  if (sub === 'rotate-token') return await rotate(rest, io);
  if (sub === 'start') return await run(rest, io);
  if (sub !== undefined && !sub.startsWith('-'))
    throw new UsageError(`unknown daemon command "${sub}" (use status, stop or rotate-token)`);
  return await run(argv, io);
}

async function run(argv: string[], io: CliIo): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        cwd: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) {
    io.stdout.write(DAEMON_HELP);
    return 0;
  }
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65_535)
      throw new UsageError(`--port: "${values.port}" is not a port number (0-65535)`);
  }
  const host = values.host;
  const home = reinHome(io.env);
  const webUi = webUiDir();
  let handle;
  try {
    handle = await startDaemon({
      home,
      env: io.env,
      version: await version(),
      ...(values.cwd ? { cwd: resolve(io.cwd, values.cwd) } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(host !== undefined ? { host } : {}),
      ...(webUi.built ? { staticDir: webUi.dir } : {}),
      warn: (m) => io.stderr.write(`rein daemon: ${m}\n`),
      // No window shows them here: heartbeat alerts, schedules and waiting approvals become system notifications.
      notifications: 'system',
    });
  } catch (e) {
    if (e instanceof DaemonAlreadyRunning) {
      io.stderr.write(`rein daemon: ${e.message}\n`);
      return EXIT_ALREADY_RUNNING;
    }
    if (isReinError(e)) {
      io.stderr.write(`rein daemon: ${e.message}\n`);
      return e.code === 'config_invalid' || e.code === 'invalid_input' ? 2 : 1;
    }
    throw e;
  }
  io.stdout.write(
    `rein daemon ${handle.info.version} listening on ${handle.url} (pid ${process.pid}); port and token in ${daemonInfoFile(home)}\n`,
  );
  if (webUi.built) {
    // The token rides in the fragment, which browsers never send to a server; the page reads it once.
    io.stdout.write(`Web UI: ${handle.url}/#token=${handle.token()}\n`);
  } else {
    io.stderr.write(
      `rein daemon: the web UI is not built (no ${join(webUi.dir, 'index.html')}); run \`npm run build\`${webUi.root ? ` in ${webUi.root}` : ''} to build it. The API works without it.\n`,
    );
  }

  // No window shows a change waiting for a person here: say it, with the command that accepts it.
  const changes = handle.service.subscribe(({ event }) => {
    if (event.type === 'change_request') {
      const c = event.change;
      io.stdout.write(
        `change ${c.change_id} waits: ${visibleText(c.summary)} — accept with: ${c.accept_command ?? `rein changes accept ${c.change_id}`}\n`,
      );
    } else if (event.type === 'change_response') {
      io.stdout.write(
        `change ${event.change_id} ${event.outcome}${event.by === 'timeout' || event.by === 'overflow' ? '' : ` (by ${event.by})`}${event.error ? `: ${visibleText(event.error)}` : ''}\n`,
      );
    }
  });

  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      io.stderr.write(`rein daemon: ${sig} again; exiting without waiting\n`);
      process.exit(130);
    }
    io.stderr.write(`rein daemon: ${sig}: finishing runs (up to 5 s), then stopping\n`);
    void handle.dispose();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A rejection nobody handled (a full disk somewhere no one catches it yet) is said, never fatal.
  const unguard = keepServingOnUnhandledRejections((m) => void io.stderr.write(`rein daemon: ${m}\n`));
  handle.onShutdownRequested(() => {
    io.stderr.write('rein daemon: stop requested; finishing runs (up to 5 s), then stopping\n');
    void handle.dispose();
  });
  try {
    await handle.closed;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    unguard();
    changes.dispose();
  }
  io.stderr.write('rein daemon: stopped\n');
  return 0;
}

async function status(argv: string[], io: CliIo): Promise<number> {
  const { values } = parse(argv, { json: { type: 'boolean' } });
  const home = reinHome(io.env);
  const info = await readDaemonInfo(home);
  const owner = await lockOwner(home);
  if (!info || !isAlive(info.pid)) {
    if (owner !== undefined) {
      io.stdout.write(`running (pid ${owner}) but not answering yet (no daemon.json)\n`);
      return 1;
    }
    io.stdout.write(values.json ? `${JSON.stringify({ running: false })}\n` : 'not running\n');
    return 1;
  }
  let body: Record<string, unknown>;
  try {
    body = (await call(info, 'GET', '/status')) as Record<string, unknown>;
  } catch (e) {
    io.stdout.write(`running (pid ${info.pid}) but not answering on port ${info.port}: ${(e as Error).message}\n`);
    return 1;
  }
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ running: true, port: info.port, ...body })}\n`);
    return 0;
  }
  const runs = (body.runs as { route: string; agent: string }[] | undefined) ?? [];
  const queued = (body.queued as unknown[] | undefined) ?? [];
  io.stdout.write(
    [
      `running: pid ${info.pid}, http://127.0.0.1:${info.port}, version ${String(body.version)}, up ${String(body.uptime_seconds)} s`,
      `runs: ${runs.length} active${runs.length ? ` (${runs.map((r) => r.route).join(', ')})` : ''}, ${queued.length} queued`,
      `pending approvals: ${String(body.pending_approvals)}`,
      `agents: ${((body.agents as string[] | undefined) ?? []).join(', ')}`,
    ].join('\n') + '\n',
  );
  return 0;
}

async function stop(argv: string[], io: CliIo): Promise<number> {
  parse(argv, {});
  const home = reinHome(io.env);
  const info = await readDaemonInfo(home);
  const pid = info?.pid ?? (await lockOwner(home));
  if (pid === undefined || !isAlive(pid)) {
    io.stdout.write('not running\n');
    return 0;
  }
  let asked = false;
  if (info) {
    try {
      await call(info, 'POST', '/shutdown');
      asked = true;
    } catch {
      // Not answering: fall back to a signal below.
    }
  }
  if (!asked) process.kill(pid, 'SIGTERM');
  if (await waitGone(pid, 10_000)) {
    io.stdout.write(`stopped (pid ${pid})\n`);
    return 0;
  }
  if (asked) {
    process.kill(pid, 'SIGTERM');
    if (await waitGone(pid, 5_000)) {
      io.stdout.write(`stopped (pid ${pid})\n`);
      return 0;
    }
  }
  io.stderr.write(`rein daemon: pid ${pid} did not stop; kill it with \`kill ${pid}\`\n`);
  return 1;
}

async function rotate(argv: string[], io: CliIo): Promise<number> {
  parse(argv, {});
  const home = reinHome(io.env);
  const info = await readDaemonInfo(home);
  if (info && isAlive(info.pid)) {
    await call(info, 'POST', '/token/rotate');
    io.stdout.write(`token rotated; clients must use the new one from ${daemonInfoFile(home)}\n`);
    return 0;
  }
  await writeToken(home, newToken());
  io.stdout.write('token replaced; the daemon will use it when it starts\n');
  return 0;
}

/** One request to the local daemon; `agent: false` so no idle keep-alive socket holds the CLI open afterwards. */
function call(info: DaemonInfo, method: string, path: string): Promise<unknown> {
  const body = method === 'POST' ? '{}' : undefined;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: info.port,
        method,
        path,
        agent: false,
        timeout: 5_000,
        headers: {
          authorization: `Bearer ${info.token}`,
          ...(body ? { 'content-type': 'application/json', 'content-length': body.length } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {
            // Not JSON: reported by status below.
          }
          const status = res.statusCode ?? 0;
          if (status >= 400) reject(new Error(`${status} ${String(json.error ?? text)}`));
          else resolve(json);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end(body);
  });
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!isAlive(pid)) return true;
    await new Promise((ok) => setTimeout(ok, 100));
  }
  return !isAlive(pid);
}

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];
function parse(argv: string[], options: Options) {
  try {
    return parseArgs({ args: argv, options: options ?? {}, allowPositionals: false });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * The browser build of the renderer: `out/renderer/` beside this command's package.json, found the way
 * the bundled skills are (from the source tree or from `out/cli/rein.js` alike).
 */
function webUiDir(): { dir: string; root?: string; built: boolean } {
  const root = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
  const dir = join(root ?? process.cwd(), 'out', 'renderer');
  return { dir, ...(root ? { root } : {}), built: existsSync(join(dir, 'index.html')) };
}

async function version(): Promise<string> {
  const { VERSION } = await import('../index.js');
  return VERSION;
}
