/**
 * Runs one shell command as the leader of its own process group and collects combined stdout+stderr in
 * bounded memory. Ends on exit, on timeout or when the signal fires; in the latter two the whole group is
 * killed before this resolves, so nothing the command started outlives the call.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { StringDecoder } from 'node:string_decoder';
import { HeadTailBuffer } from './outputLimit.js';
import { killProcessGroup } from './processGroup.js';

/** After the shell exits, how long to wait for its pipes to close (a background job may hold them open). */
const STDIO_GRACE_MS = 500;

export interface ShellRunOptions {
  shell: string;
  command: string;
  cwd: string;
  timeoutMs: number;
  signal: AbortSignal;
  outputLimit: number;
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
  const child = spawn(opts.shell, ['-c', opts.command], {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    await once(child, 'spawn');
  } catch (e) {
    return { kind: 'spawn_failed', error: e instanceof Error ? e : new Error(String(e)) };
  }
  const pgid = child.pid!;

  const output = new HeadTailBuffer(opts.outputLimit);
  // One decoder per stream so a multi-byte character split across chunks is not mangled.
  const outDecoder = new StringDecoder('utf8');
  const errDecoder = new StringDecoder('utf8');
  child.stdout.on('data', (b: Buffer) => output.push(outDecoder.write(b)));
  child.stderr.on('data', (b: Buffer) => output.push(errDecoder.write(b)));

  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopRequested = new Promise<'timed_out' | 'cancelled'>((resolve) => {
    timer = setTimeout(() => resolve('timed_out'), opts.timeoutMs);
    onAbort = () => resolve('cancelled');
    if (opts.signal.aborted) resolve('cancelled');
    else opts.signal.addEventListener('abort', onAbort, { once: true });
  });

  const kind: 'exited' | 'timed_out' | 'cancelled' = await Promise.race([exited.then(() => 'exited' as const), stopRequested]);
  clearTimeout(timer);
  if (onAbort) opts.signal.removeEventListener('abort', onAbort);
  if (kind !== 'exited') {
    await killProcessGroup(pgid, opts.killGraceMs);
  }
  const exit = await exited;
  await Promise.race([closed, new Promise((r) => setTimeout(r, STDIO_GRACE_MS))]);
  child.stdout.destroy();
  child.stderr.destroy();
  output.push(outDecoder.end());
  output.push(errDecoder.end());
  return {
    kind,
    exitCode: exit.code,
    exitSignal: exit.signal,
    output: output.toString(),
    truncated: output.truncated,
  };
}
