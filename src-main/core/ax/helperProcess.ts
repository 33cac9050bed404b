/**
 * Finding and starting the accessibility helper.
 *
 * Linux: Debian's /usr/bin/python3 runs native/ax_server/linux/ax_server.py (AT-SPI through pyatspi) as
 * our child, in its own process group (core/process startProcess), listening on a Unix socket in a fresh
 * 0700 folder; it prints one ready line, we check the socket and connect. Stdio is the fallback when no
 * socket can be made.
 *
 * macOS: the Swift helper is an app bundle inside Rein (Contents/Helpers/Rein AX.app), started through
 * LaunchServices (`open -n -g -a`) so macOS attributes the Accessibility and Screen Recording grants to the
 * helper itself, not to Rein or node. It is then not our child: it ends when its connection closes or
 * its parent pid is gone. A development build (`swift build` in native/ax_server/macos) runs as a child.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnvironment } from '../process/childEnv.js';
import { runProcess, startProcess, type ProcessHandle } from '../process/subprocess.js';
import { AxError } from './axError.js';
import { connectUnixSocket, streamTransport, type LineTransport } from './lineTransport.js';
import { ReadyLine } from './protocol.js';

export interface HelperSpec {
  kind: 'child' | 'bundle';
  /** Child: the executable and the arguments before ours. Bundle: the .app path. */
  file: string;
  args: string[];
  transport: 'socket' | 'stdio';
  env: NodeJS.ProcessEnv;
}

export type HelperLookup = { ok: true; spec: HelperSpec } | { ok: false; reason: string };

export interface LocateOptions {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  /** Rein's package folder (found from this module when absent). */
  root?: string;
  transport?: 'socket' | 'stdio';
}

const PYATSPI_DIRS = ['/usr/lib/python3/dist-packages/pyatspi', '/usr/lib64/python3/site-packages/pyatspi'];

/** The folder holding Rein's package.json above this module (source, tsx, or the built CLI). */
export function reinRoot(start = dirname(fileURLToPath(import.meta.url))): string | undefined {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'native'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function locateHelper(opts: LocateOptions = {}): HelperLookup {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const root = opts.root ?? reinRoot();
  const resources = (process as { resourcesPath?: string }).resourcesPath;
  const transport = opts.transport ?? (env.REIN_AX_TRANSPORT === 'stdio' ? 'stdio' : 'socket');
  const childEnv = childEnvironment(env);
  if (platform === 'linux') {
    const python = env.REIN_AX_PYTHON || '/usr/bin/python3';
    const candidates = [
      env.REIN_AX_HELPER,
      resources && join(resources, 'ax_server', 'linux', 'ax_server.py'),
      root && join(root, 'native', 'ax_server', 'linux', 'ax_server.py'),
    ];
    const script = candidates.find((c): c is string => !!c && existsSync(c));
    if (!existsSync(python))
      return {
        ok: false,
        reason: `${python} does not exist (the Linux helper needs Debian's python3 with python3-pyatspi)`,
      };
    if (!script) return { ok: false, reason: 'native/ax_server/linux/ax_server.py was not found next to Rein' };
    if (!env.REIN_AX_PYTHON && !PYATSPI_DIRS.some((d) => existsSync(d))) {
      return {
        ok: false,
        reason: 'pyatspi is not installed (apt-get install python3-pyatspi gir1.2-atspi-2.0 python3-gi)',
      };
    }
    return { ok: true, spec: { kind: 'child', file: python, args: [script], transport, env: childEnv } };
  }
  if (platform === 'darwin') {
    const bundles = [env.REIN_AX_HELPER_BUNDLE, resources && join(resources, '..', 'Helpers', 'Rein AX.app')];
    const bundle = bundles.find((b): b is string => !!b && existsSync(b));
    if (bundle)
      return { ok: true, spec: { kind: 'bundle', file: bundle, args: [], transport: 'socket', env: childEnv } };
    const builds = [
      env.REIN_AX_HELPER,
      root && join(root, 'native', 'ax_server', 'macos', '.build', 'release', 'ax_server'),
      root && join(root, 'native', 'ax_server', 'macos', '.build', 'debug', 'ax_server'),
    ];
    const binary = builds.find((b): b is string => !!b && existsSync(b));
    if (binary) return { ok: true, spec: { kind: 'child', file: binary, args: [], transport, env: childEnv } };
    return {
      ok: false,
      reason:
        'the accessibility helper (Rein AX.app) is not installed; in a checkout, run `swift build -c release` in native/ax_server/macos',
    };
  }
  return { ok: false, reason: `the accessibility helper does not run on ${platform}` };
}

/** A running helper and the line transport to it. Disposing closes the connection and ends the helper. */
export interface HelperConnection {
  transport: LineTransport;
  /** The helper's pid (a child's, or the one its ready line or socket reported). */
  pid: number | undefined;
  /** Why it ended, for the errors of calls that were pending (exit status, its last stderr lines). */
  describeExit(): string;
  dispose(): Promise<void>;
  /** Synchronously: signal the helper to end now (a process that is exiting cannot wait). */
  kill(): void;
}

const READY_TIMEOUT_MS = 10_000;
const STDERR_TAIL = 4_000;

export async function launchHelper(spec: HelperSpec): Promise<HelperConnection> {
  if (spec.kind === 'bundle') return launchBundle(spec);
  if (spec.transport === 'stdio') return launchStdio(spec);
  return launchSocketChild(spec);
}

function tailOf(handle: ProcessHandle): { text: () => string } {
  let tail = '';
  handle.stderr?.setEncoding('utf8');
  handle.stderr?.on('data', (d: string) => {
    tail = (tail + d).slice(-STDERR_TAIL);
  });
  return { text: () => tail.trim().split('\n').slice(-5).join(' | ') };
}

function exitText(handle: ProcessHandle, stderr: { text: () => string }): () => string {
  let ended: string | undefined;
  void handle.exited.then((e) => {
    ended =
      e.kind === 'spawn_failed'
        ? `it could not start (${e.error.message})`
        : e.exitSignal
          ? `it was killed by ${e.exitSignal}`
          : `it exited with code ${e.exitCode}`;
  });
  return () => [ended ?? 'the connection closed', stderr.text()].filter(Boolean).join('; ');
}

async function launchStdio(spec: HelperSpec): Promise<HelperConnection> {
  const handle = startProcess({
    file: spec.file,
    args: [...spec.args, '--stdio', '--parent-pid', String(process.pid)],
    env: spec.env,
  });
  const stderr = tailOf(handle);
  const started = await handle.started;
  if (!started.ok)
    throw new AxError('HELPER_UNAVAILABLE', `the accessibility helper could not start: ${started.error.message}`);
  const transport = streamTransport(handle.stdout, handle.stdin, () => void handle.dispose());
  holdNothing(handle);
  return {
    transport,
    pid: started.pid,
    describeExit: exitText(handle, stderr),
    kill: () => void handle.kill('SIGTERM'),
    dispose: async () => {
      transport.dispose();
      // Whoever waits for the helper to be gone keeps the process alive until it is.
      handle.child.ref();
      await handle.dispose();
    },
  };
}

/**
 * An idle helper does not keep Rein's process alive (`rein run` ends when its run is over; the helper
 * follows when its parent is gone). A pending call keeps it alive through its own timer.
 */
function holdNothing(handle: ProcessHandle): void {
  handle.child.unref();
  for (const s of [handle.stdin, handle.stdout, handle.stderr]) (s as { unref?: () => void } | null)?.unref?.();
}

async function launchSocketChild(spec: HelperSpec): Promise<HelperConnection> {
  const dir = await mkdtemp(join(tmpdir(), 'rein-ax-'));
  const socketPath = join(dir, 'ax.sock');
  const handle = startProcess({
    file: spec.file,
    args: [...spec.args, '--socket', socketPath, '--parent-pid', String(process.pid), '--exit-on-disconnect'],
    env: spec.env,
  });
  const stderr = tailOf(handle);
  const cleanup = async () => {
    // Whoever waits for the helper to be gone keeps the process alive until it is.
    handle.child.ref();
    await handle.dispose();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const ready = await readyLine(handle, stderr);
    const transport = await connectUnixSocket(socketPath);
    handle.stdout.resume();
    holdNothing(handle);
    return {
      transport,
      pid: ready.pid,
      describeExit: exitText(handle, stderr),
      kill: () => void handle.kill('SIGTERM'),
      dispose: async () => {
        transport.dispose();
        await cleanup();
      },
    };
  } catch (e) {
    await cleanup();
    throw e instanceof AxError
      ? e
      : new AxError('HELPER_UNAVAILABLE', `the accessibility helper could not be reached: ${(e as Error).message}`);
  }
}

async function readyLine(handle: ProcessHandle, stderr: { text: () => string }): Promise<{ pid: number }> {
  const started = await handle.started;
  if (!started.ok)
    throw new AxError('HELPER_UNAVAILABLE', `the accessibility helper could not start: ${started.error.message}`);
  return new Promise((resolve, reject) => {
    let buf = '';
    const done = (fn: () => void) => {
      clearTimeout(timer);
      handle.stdout.off('data', onData);
      fn();
    };
    const onData = (d: Buffer) => {
      buf += d.toString('utf8');
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(buf.slice(0, nl));
      } catch {
        parsed = undefined;
      }
      const ready = ReadyLine.safeParse(parsed);
      done(() =>
        ready.success
          ? resolve({ pid: ready.data.pid })
          : reject(new AxError('PROTOCOL', `the helper's first line was not its ready line: ${buf.slice(0, 200)}`)),
      );
    };
    const timer = setTimeout(
      () =>
        done(() =>
          reject(
            new AxError(
              'HELPER_UNAVAILABLE',
              `the accessibility helper did not get ready within ${READY_TIMEOUT_MS} ms ${stderr.text()}`,
            ),
          ),
        ),
      READY_TIMEOUT_MS,
    );
    handle.stdout.on('data', onData);
    void handle.exited.then((e) => {
      const why =
        e.kind === 'spawn_failed'
          ? e.error.message
          : `exit code ${e.exitCode}${e.exitSignal ? `, ${e.exitSignal}` : ''}`;
      // Give the stderr pipe a moment to deliver the helper's last words.
      setTimeout(
        () =>
          done(() =>
            reject(
              new AxError(
                'HELPER_UNAVAILABLE',
                `the accessibility helper stopped before it was ready (${why}): ${stderr.text() || 'no message'}`,
              ),
            ),
          ),
        50,
      );
    });
  });
}

/** macOS: through LaunchServices, so the grants belong to the helper app; then wait for its socket. */
async function launchBundle(spec: HelperSpec): Promise<HelperConnection> {
  const dir = await mkdtemp(join(tmpdir(), 'rein-ax-'));
  const socketPath = join(dir, 'ax.sock');
  const cleanup = () => rm(dir, { recursive: true, force: true });
  const opened = await runProcess({
    file: '/usr/bin/open',
    args: [
      '-n',
      '-g',
      '-a',
      spec.file,
      '--args',
      '--socket',
      socketPath,
      '--parent-pid',
      String(process.pid),
      '--exit-on-disconnect',
    ],
    env: spec.env,
    timeoutMs: 15_000,
  });
  if (opened.kind !== 'exited' || opened.exitCode !== 0) {
    await cleanup();
    throw new AxError(
      'HELPER_UNAVAILABLE',
      `could not open ${spec.file}: ${opened.kind === 'spawn_failed' ? opened.error.message : opened.stderr.trim() || opened.kind}`,
    );
  }
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (existsSync(socketPath)) {
      try {
        const transport = await connectUnixSocket(socketPath);
        return {
          transport,
          pid: undefined,
          describeExit: () => 'the helper app closed its connection',
          kill: () => transport.dispose(),
          dispose: async () => {
            transport.dispose();
            await cleanup();
          },
        };
      } catch (e) {
        if (Date.now() > deadline) {
          await cleanup();
          throw new AxError('HELPER_UNAVAILABLE', `could not connect to the helper app: ${(e as Error).message}`);
        }
      }
    }
    if (Date.now() > deadline) {
      await cleanup();
      throw new AxError(
        'HELPER_UNAVAILABLE',
        `the helper app did not open its socket within ${READY_TIMEOUT_MS} ms (is Rein AX allowed to run?)`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
