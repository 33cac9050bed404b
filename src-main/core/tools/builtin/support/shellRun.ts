/**
 * Runs one shell command as the leader of its own process group and collects combined stdout+stderr in
 * bounded memory (head and tail). Ends on exit, on timeout or when the signal fires; in the latter two the
 * whole group is killed before this resolves, so nothing the command started outlives the call. The kill
 * rules are core/process/subprocess.ts's; this only shapes the bash tool's view of them.
 */
import { childEnvironment } from '../../../process/childEnv.js';
import { runProcess } from '../../../process/subprocess.js';
import { HeadTailBuffer } from './outputLimit.js';

/** After the shell exits, how long to wait for its pipes to close (a background job may hold them open). */
const STDIO_GRACE_MS = 500;

export interface ShellRunOptions {
  shell: string;
  command: string;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  outputLimit: number;
  /** The command's whole environment; when absent, Rein's without its credentials (process/childEnv.ts). */
  env?: NodeJS.ProcessEnv;
  killGraceMs?: number;
}

export type ShellRun =
  | { kind: 'spawn_failed'; error: Error }
  | {
      kind: 'exited' | 'timed_out' | 'cancelled';
      exitCode: number | null;
      exitSignal: NodeJS.Signals | null;
      output: string;
      truncated: boolean;
    };

export async function runShell(opts: ShellRunOptions): Promise<ShellRun> {
  const run = await runProcess({
    file: opts.shell,
    args: ['-c', opts.command],
    cwd: opts.cwd,
    env: opts.env ?? childEnvironment(process.env),
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
    killGraceMs: opts.killGraceMs,
    stdioGraceMs: STDIO_GRACE_MS,
    output: { mode: 'combined', into: new HeadTailBuffer(opts.outputLimit) },
  });
  if (run.kind === 'spawn_failed') return { kind: 'spawn_failed', error: run.error };
  return {
    kind: run.kind,
    exitCode: run.exitCode,
    exitSignal: run.exitSignal,
    output: run.output,
    truncated: run.truncated,
  };
}
