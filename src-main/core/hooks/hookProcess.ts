/**
 * Runs one hook command: `bash -c <command>` in its own process group, the event as JSON on stdin,
 * stdout and stderr captured up to a cap. On timeout or abort the whole group is killed, so a hook that
 * started children (`sleep`, a dev server) cannot outlive it. Never throws: every failure is reported in
 * the result, because a broken hook must not break the run.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** Enough for a replacement tool input (a file_write with a large body); a runaway hook is cut off. */
const STDOUT_CAP = 1024 * 1024;
/** stderr is only ever shown as a reason or logged. */
const STDERR_CAP = 10 * 1024;
/** After SIGKILL, how long to wait for the pipes to close before giving up on them. */
const KILL_GRACE_MS = 1_000;

export interface HookProcessResult {
  /** Exit code, or null when killed by a signal or never started. */
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  /** Could not start (missing cwd, no bash). */
  spawnError?: string;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface HookProcessOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export function runHookProcess(command: string, opts: HookProcessOptions): Promise<HookProcessResult> {
  const started = performance.now();
  const out = new Capped(STDOUT_CAP);
  const err = new Capped(STDERR_CAP);
  const result = (exitCode: number | null, extra: Partial<HookProcessResult> = {}): HookProcessResult => ({
    exitCode,
    timedOut: false,
    aborted: false,
    stdout: out.text(),
    stderr: err.text(),
    durationMs: Math.round(performance.now() - started),
    ...extra,
  });

  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn('bash', ['-c', command], {
      cwd: opts.cwd,
      env: opts.env,
      // A new process group (setsid), so the kill below reaches everything the hook started.
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch (e) {
    return Promise.resolve(result(null, { spawnError: e instanceof Error ? e.message : String(e) }));
  }

  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    let aborted = false;
    let killTimer: NodeJS.Timeout | undefined;

    const killGroup = () => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // The group is already gone.
        }
      }
      // Something that escaped the group may still hold our pipes; do not wait on it forever.
      killTimer ??= setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(null);
      }, KILL_GRACE_MS);
    };
    const onTimeout = () => {
      timedOut = true;
      killGroup();
    };
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    const timer = setTimeout(onTimeout, opts.timeoutMs);

    function finish(exitCode: number | null, spawnError?: string) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve(result(exitCode, { timedOut, aborted, ...(spawnError !== undefined ? { spawnError } : {}) }));
    }

    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (e) => finish(null, e.message));
    child.on('close', (code) => finish(code));
    // A hook that never reads stdin and exits early closes the pipe under us; that is not an error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.stdin);
  });
}

class Capped {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer): void {
    if (this.size >= this.cap) return;
    const part = chunk.length > this.cap - this.size ? chunk.subarray(0, this.cap - this.size) : chunk;
    this.chunks.push(part);
    this.size += part.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}
