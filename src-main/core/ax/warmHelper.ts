/**
 * The warm helper, client side: `rein ax` commands share one accessibility helper per user and desktop
 * instead of starting one each (a start costs 200–800 ms; the work in a warm helper 30–60 ms).
 *
 * The helper is owned by a small detached Node process, the warm relay (warmServer.ts), which listens on
 * `<REIN_HOME>/ax/warm/<key>.sock` (the CLI names the folder) and forwards each command's JSON-RPC lines to its one helper. `key` is a
 * digest of what decides which helper is right: the desktop (DISPLAY, WAYLAND_DISPLAY, the session bus),
 * the helper overrides (REIN_AX_*) and the CLI build itself, so a command never talks to a helper of
 * another desktop or an older Rein. The relay ends after REIN_AX_WARM_IDLE_MS (60 s) without a call.
 *
 * Who can reach it: only this user. The folder is 0700 and the socket 0600, both checked before every
 * connect (connectUnixSocket), so the kernel refuses other users' connect(). Node cannot read a Unix
 * socket's peer credentials, so the relay cannot check the peer's uid itself (the helper behind it
 * does, but its peer is the relay); docs/ax-protocol.md says so. It adds no power: the same user can run
 * `rein ax` anyway.
 *
 * Start is serialised by an owned lock (`<key>.lock`), so two commands at once start one relay; a dead
 * relay (its pid gone, its socket file left behind) is found by a failed connect and replaced.
 * REIN_AX_WARM=0 bypasses all of this: the command starts and stops its own helper, as before.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, statSync } from 'node:fs';
import { chmod, lstat, mkdir, readFile, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { withOwnedLock } from '../util/ownedLock.js';
import { isProcessAlive } from '../util/processAlive.js';
import { AxError } from './axError.js';
import type { HelperConnection } from './helperProcess.js';
import { JsonRpcPeer } from './jsonRpcPeer.js';
import { connectUnixSocket, type LineTransport } from './lineTransport.js';

/** How long a warm helper lives without a call (REIN_AX_WARM_IDLE_MS overrides). */
export const WARM_IDLE_MS = 60_000;
/** The relay's own methods, answered by it and never forwarded (`rein ax helper`). */
export const WARM_STATUS = 'rein.warm.status';
export const WARM_STOP = 'rein.warm.stop';
/** Unix socket paths are limited (108 bytes on Linux, 104 on macOS); a longer one falls back to a helper per command. */
const MAX_SOCKET_PATH = 100;
const READY_TIMEOUT_MS = 20_000;
/** The variables that pick the helper: a command with other values must not use this one. */
const KEY_VARS = [
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'DBUS_SESSION_BUS_ADDRESS',
  'XDG_RUNTIME_DIR',
  'REIN_AX_PYTHON',
  'REIN_AX_HELPER',
  'REIN_AX_HELPER_BUNDLE',
  'REIN_AX_TRANSPORT',
  'REIN_AX_WARM_IDLE_MS',
];

export interface WarmPaths {
  dir: string;
  key: string;
  socket: string;
  info: string;
  lock: string;
  log: string;
}

export interface WarmInfo {
  pid: number;
  helper_pid: number | null;
  socket: string;
  idle_ms: number;
  started_at: string;
}

/** Whether `rein ax` should use the warm helper (REIN_AX_WARM=0 turns it off). */
export function warmEnabled(env: NodeJS.ProcessEnv): boolean {
  const v = env.REIN_AX_WARM?.trim().toLowerCase();
  return !(v === '0' || v === 'false' || v === 'no' || v === 'off');
}

export function warmIdleMs(env: NodeJS.ProcessEnv): number {
  const v = Number(env.REIN_AX_WARM_IDLE_MS);
  return Number.isFinite(v) && v >= 100 ? Math.round(v) : WARM_IDLE_MS;
}

/** The command that runs the relay: this Node, its flags (tsx in development), the CLI entry. */
export interface RelayCommand {
  file: string;
  args: string[];
  /** The CLI entry file (bin/rein.js), whose build is part of the key. */
  entry: string;
}

export function relayCommand(): RelayCommand {
  const entry = process.argv[1];
  if (!entry)
    throw new AxError('HELPER_UNAVAILABLE', 'cannot tell which file runs the rein command line (no process.argv[1])');
  return { file: process.execPath, args: [...loaderFlags(process.execArgv), entry, 'ax', '__warm-serve'], entry };
}

/**
 * Of this Node's flags, only those that load code (`--import tsx` in development) go to the relay:
 * a `--cpu-prof` or `--inspect` of one command must neither follow it nor change which helper it uses.
 */
function loaderFlags(execArgv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const a = execArgv[i]!;
    if (/^--(import|require|loader|experimental-loader)=/.test(a)) out.push(a);
    else if (/^(--import|--require|--loader|--experimental-loader|-r)$/.test(a) && execArgv[i + 1] !== undefined)
      out.push(a, execArgv[++i]!);
  }
  return out;
}

function buildStamp(entry: string | undefined): string {
  try {
    return entry ? String(statSync(entry).mtimeMs) : '';
  } catch {
    return '';
  }
}

/** `dir` is the warm helpers' folder, `<REIN_HOME>/ax/warm` (the CLI passes it). */
export function warmPaths(dir: string, env: NodeJS.ProcessEnv, cmd: RelayCommand = relayCommand()): WarmPaths {
  // The CLI bundle too (its path and build time): after a rebuild or an upgrade, a new helper.
  // bin/rein.js loads ../out/cli/rein.js: that file's time changes with every build.
  const built = join(dirname(dirname(cmd.entry)), 'out', 'cli', 'rein.js');
  const material = JSON.stringify([
    process.getuid?.() ?? null,
    cmd.file,
    cmd.args,
    buildStamp(cmd.entry),
    buildStamp(built),
    KEY_VARS.map((k) => env[k] ?? null),
  ]);
  return warmPathsFor(dir, createHash('sha256').update(material).digest('hex').slice(0, 12));
}

/** The paths of the relay with this key (the relay itself is told its key). */
export function warmPathsFor(dir: string, key: string): WarmPaths {
  if (!/^[0-9a-f]{12}$/.test(key)) throw new AxError('INVALID', `"${key}" is not a warm helper key`);
  return {
    dir,
    key,
    socket: join(dir, `${key}.sock`),
    info: join(dir, `${key}.json`),
    lock: join(dir, `${key}.lock`),
    log: join(dir, `${key}.log`),
  };
}

/** The folder must be ours and 0700. A folder of ours with looser modes is tightened; another user's is refused. */
async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await lstat(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory()) throw new AxError('HELPER_UNAVAILABLE', `${dir} is not a folder`);
  if (uid !== undefined && st.uid !== uid)
    throw new AxError(
      'HELPER_UNAVAILABLE',
      `${dir} belongs to another user (uid ${st.uid}); the warm helper will not use it`,
      undefined,
      { hint: 'remove it, or set REIN_AX_WARM=0' },
    );
  if ((st.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

export function readWarmInfo(paths: WarmPaths): WarmInfo | undefined {
  try {
    const v = JSON.parse(readFileSync(paths.info, 'utf8')) as WarmInfo;
    return typeof v.pid === 'number' ? v : undefined;
  } catch {
    return undefined;
  }
}

async function tryConnect(paths: WarmPaths): Promise<LineTransport | undefined> {
  try {
    return await connectUnixSocket(paths.socket, 3_000);
  } catch {
    // Missing, refused (its relay died), or not private: the caller starts a new one.
    return undefined;
  }
}

function connectionOf(transport: LineTransport, paths: WarmPaths): HelperConnection {
  const info = readWarmInfo(paths);
  return {
    transport,
    pid: info?.helper_pid ?? undefined,
    describeExit: () => `the warm accessibility helper closed the connection (its log: ${paths.log})`,
    // The helper stays warm for the next command: closing our connection is all.
    dispose: async () => transport.dispose(),
    kill: () => transport.dispose(),
  };
}

export interface WarmConnectOptions {
  /** Tests and the bench: the relay command (default: this CLI). */
  command?: RelayCommand;
}

/**
 * A connection to this user's warm helper, starting it when there is none. A path too long for a Unix
 * socket gives undefined: the caller then starts a helper of its own.
 */
export async function connectWarm(
  dir: string,
  env: NodeJS.ProcessEnv,
  opts: WarmConnectOptions = {},
): Promise<HelperConnection | undefined> {
  const cmd = opts.command ?? relayCommand();
  const paths = warmPaths(dir, env, cmd);
  if (Buffer.byteLength(paths.socket) > MAX_SOCKET_PATH) return undefined;
  // The quick way: a warm helper is there.
  const quick = await tryConnect(paths);
  if (quick) return connectionOf(quick, paths);
  await ensurePrivateDir(paths.dir);
  const transport = await withOwnedLock(
    paths.lock,
    async () => {
      // Another command may have started it while we waited for the lock.
      const again = await tryConnect(paths);
      if (again) return again;
      await clearStale(paths);
      await startRelay(paths, env, cmd);
      const t = await tryConnect(paths);
      if (!t)
        throw new AxError(
          'HELPER_UNAVAILABLE',
          `the warm accessibility helper started but ${paths.socket} cannot be reached (its log: ${paths.log})`,
        );
      return t;
    },
    {
      holder: 'rein ax (starting the warm helper)',
      waitMs: READY_TIMEOUT_MS + 5_000,
      busyError: () =>
        new AxError(
          'HELPER_UNAVAILABLE',
          'another rein ax command is starting the warm helper and has not finished',
          undefined,
          { hint: 'try again, or set REIN_AX_WARM=0' },
        ),
    },
  );
  return connectionOf(transport, paths);
}

/**
 * What a dead relay left: its socket file (nothing listens: connect was refused) and its info file. A relay
 * whose pid still lives but does not answer is asked to go (SIGTERM), when /proc shows it is one.
 */
async function clearStale(paths: WarmPaths): Promise<void> {
  const info = readWarmInfo(paths);
  if (info && info.pid !== process.pid && isProcessAlive(info.pid) && isRelayProcess(info.pid)) {
    try {
      process.kill(info.pid, 'SIGTERM');
    } catch {
      // gone meanwhile
    }
  }
  await unlink(paths.socket).catch(() => undefined);
  await unlink(paths.info).catch(() => undefined);
}

/** Linux: the pid runs our relay (its command line says so); elsewhere we cannot tell cheaply, so no. */
function isRelayProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').includes('__warm-serve');
  } catch {
    return false;
  }
}

/** Starts the relay detached (its own session; it outlives this command) and waits for its ready line. */
async function startRelay(paths: WarmPaths, env: NodeJS.ProcessEnv, cmd: RelayCommand): Promise<void> {
  const logFd = openSync(paths.log, 'w', 0o600);
  let child;
  try {
    // Its own session, so it outlives this command and its terminal; in Rein's folder, never in the
    // caller's (which may be removed), and where `--import tsx` still resolves in development.
    child = spawn(cmd.file, [...cmd.args, paths.key], {
      detached: true,
      cwd: dirname(dirname(cmd.entry)),
      stdio: ['ignore', 'pipe', logFd],
      env,
    });
  } finally {
    closeSync(logFd);
  }
  const ready = await new Promise<{ ok: true } | { ok: false; reason: string }>((resolve) => {
    let buf = '';
    const timer = setTimeout(
      () => finish({ ok: false, reason: `it did not get ready within ${READY_TIMEOUT_MS} ms` }),
      READY_TIMEOUT_MS,
    );
    const finish = (r: { ok: true } | { ok: false; reason: string }) => {
      clearTimeout(timer);
      child.stdout?.removeAllListeners('data');
      child.removeAllListeners('exit');
      resolve(r);
    };
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      try {
        const line = JSON.parse(buf.slice(0, nl)) as { ready?: boolean; reason?: string };
        finish(line.ready === true ? { ok: true } : { ok: false, reason: line.reason ?? 'it gave no reason' });
      } catch {
        finish({ ok: false, reason: `its first line was not its ready line: ${buf.slice(0, 200)}` });
      }
    });
    child.once('exit', (code, signal) =>
      finish({ ok: false, reason: `it exited (${signal ?? `code ${code}`}) before it was ready` }),
    );
    child.once('error', (e) => finish({ ok: false, reason: e.message }));
  });
  child.stdout?.destroy();
  child.unref();
  if (!ready.ok) {
    let log = '';
    try {
      log = (await readFile(paths.log, 'utf8')).trim().split('\n').slice(-3).join(' | ');
    } catch {
      // no log
    }
    throw new AxError(
      'HELPER_UNAVAILABLE',
      `the warm accessibility helper could not start: ${ready.reason}${log ? ` (${log})` : ''}`,
      undefined,
      { hint: 'set REIN_AX_WARM=0 to start a helper for each command' },
    );
  }
}

export interface WarmStatus {
  running: boolean;
  socket: string;
  key: string;
  pid?: number;
  helper_pid?: number | null;
  idle_ms?: number;
  /** How long it had been without a call when asked. */
  idle_for_ms?: number;
  started_at?: string;
  clients?: number;
  calls?: number;
}

/** Asks a running relay one of its own methods; undefined when none runs. */
async function askRelay(
  dir: string,
  env: NodeJS.ProcessEnv,
  method: string,
  cmd?: RelayCommand,
): Promise<{ paths: WarmPaths; result: Record<string, unknown> | undefined }> {
  const paths = warmPaths(dir, env, cmd);
  const transport = await tryConnect(paths);
  if (!transport) return { paths, result: undefined };
  const peer = new JsonRpcPeer(transport);
  try {
    return { paths, result: (await peer.request(method, {}, { timeoutMs: 5_000 })) as Record<string, unknown> };
  } finally {
    peer.dispose();
  }
}

export async function warmStatus(dir: string, env: NodeJS.ProcessEnv, cmd?: RelayCommand): Promise<WarmStatus> {
  const { paths, result } = await askRelay(dir, env, WARM_STATUS, cmd);
  return { running: result !== undefined, socket: paths.socket, key: paths.key, ...(result ?? {}) };
}

/** Ends the warm helper now; true when one was running. */
export async function stopWarm(dir: string, env: NodeJS.ProcessEnv, cmd?: RelayCommand): Promise<boolean> {
  const { paths, result } = await askRelay(dir, env, WARM_STOP, cmd);
  if (result === undefined) return false;
  // It removes its socket as it goes; wait (bounded) so the next command does not find it half gone.
  for (let i = 0; i < 100; i++) {
    try {
      await lstat(paths.socket);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
