/**
 * Runs one hook command: `bash -c <command>` in its own process group, the event as JSON on stdin,
 * stdout and stderr captured up to a cap. On timeout or abort the whole group is killed, and so is a group
 * whose children still hold the hook's output after it exited, so a hook that started children (`sleep`, a
 * dev server) cannot outlive it; a job that let go of the output (`cmd >/dev/null &`) is left alone. Never
 * throws: every failure is reported in the result, because a broken hook must not break the run. The kill
 * rules (SIGTERM, grace, SIGKILL) are core/process/subprocess.ts's.
 */
import { runProcess } from '../process/subprocess.js';

/** Enough for a replacement tool input (a file_write with a large body); a runaway hook is cut off. */
const STDOUT_CAP = 1024 * 1024;
/** stderr is only ever shown as a reason or logged. */
const STDERR_CAP = 10 * 1024;
/**
 * SIGTERM → SIGKILL, and how long pipes held by a hook's background job are waited for. Short: the
 * timeout was already the hook's deadline.
 */
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

export async function runHookProcess(command: string, opts: HookProcessOptions): Promise<HookProcessResult> {
  const run = await runProcess({
    file: 'bash',
    args: ['-c', command],
    cwd: opts.cwd,
    env: opts.env,
    stdin: opts.stdin,
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    killGraceMs: KILL_GRACE_MS,
    stdioGraceMs: KILL_GRACE_MS,
    // A job still attached to the hook's output is part of the hook, and must not outlive it.
    lingering: 'kill',
    output: { mode: 'separate', stdoutMaxBytes: STDOUT_CAP, stderrMaxBytes: STDERR_CAP },
  });
  return {
    exitCode: run.exitCode,
    timedOut: run.kind === 'timed_out',
    aborted: run.kind === 'cancelled',
    ...(run.kind === 'spawn_failed' ? { spawnError: run.error.message } : {}),
    stdout: run.stdout,
    stderr: run.stderr,
    durationMs: run.durationMs,
  };
}
