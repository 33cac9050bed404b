/**
 * The one way core runs a child process, so there is one set of kill rules: every child leads its own
 * process group (`detached: true`, no shell unless the caller asks for `bash -c`), and stopping it means
 * SIGTERM to the whole group, a grace period, then SIGKILL — a command's own children (`sleep &`, a dev
 * server, npx → node) go with it.
 *
 * `runProcess` is one-shot (hooks, the bash tool): it captures output under caps, ends on exit, timeout or
 * abort, and resolves with how it ended; it never throws for a process that failed. `startProcess` is
 * long-lived (stdio servers, helpers): a handle that is a Disposable, so an owner's DisposableStore takes
 * the whole group down with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { AsyncDisposable } from '../base/lifecycle.js';
import { childEnvironment } from './childEnv.js';
import { killProcessGroup, processGroupAlive, signalGroup } from './processGroup.js';

/** SIGTERM → SIGKILL, unless the caller says otherwise. */
export const DEFAULT_KILL_GRACE_MS = 2_000;
/** After the leader exits, how long a background job may keep our pipes open before we stop reading. */
export const DEFAULT_STDIO_GRACE_MS = 500;
/** startProcess: after stdin is closed, how long the child gets to exit on its own. */
export const DEFAULT_CLOSE_GRACE_MS = 2_000;

/** Where decoded output goes. HeadTailBuffer (tools/builtin/support/outputLimit.ts) is one. */
export interface TextBuffer {
  push(text: string): void;
  toString(): string;
  readonly truncated: boolean;
}

export interface SeparateCapture {
  mode: 'separate';
  stdoutMaxBytes: number;
  stderrMaxBytes: number;
}

/** stdout and stderr interleaved as they arrive, into one buffer that sets its own limit. */
export interface CombinedCapture {
  mode: 'combined';
  into: TextBuffer;
}

export type OutputCapture = SeparateCapture | CombinedCapture;

export interface SeparateOutput {
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
}

export interface CombinedOutput {
  output: string;
  truncated: boolean;
}

export type CapturedOutput<C extends OutputCapture> = C extends CombinedCapture ? CombinedOutput : SeparateOutput;

export interface RunProcessOptions<C extends OutputCapture = SeparateCapture> {
  file: string;
  args?: readonly string[];
  cwd?: string;
  /** The child's whole environment; when absent, process.env without Rein's credentials and secret-looking names (childEnv.ts). */
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed. Without it stdin is not connected at all. */
  stdin?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** SIGTERM → SIGKILL on timeout or abort. */
  killGraceMs?: number;
  /** How long to wait for the pipes after the leader is gone (see DEFAULT_STDIO_GRACE_MS). */
  stdioGraceMs?: number;
  /**
   * The leader exited but members of its group still hold our pipes after stdioGraceMs: leave them running
   * (the default: a shell command may start a server on purpose) or kill the group.
   */
  lingering?: 'leave' | 'kill';
  /** Separate 1 MiB caps when absent. */
  output?: C;
}

/** How the run ended. exitCode/exitSignal are the leader's; both null when it never ran or could not be waited for. */
export type ProcessEnd =
  | { kind: 'exited' | 'timed_out' | 'cancelled'; exitCode: number | null; exitSignal: NodeJS.Signals | null }
  | { kind: 'spawn_failed'; error: Error; exitCode: null; exitSignal: null };

export type ProcessResult<C extends OutputCapture = SeparateCapture> = ProcessEnd &
  CapturedOutput<C> & { durationMs: number };

const DEFAULT_CAPTURE: SeparateCapture = { mode: 'separate', stdoutMaxBytes: 1024 * 1024, stderrMaxBytes: 1024 * 1024 };

type Exit = { code: number | null; signal: NodeJS.Signals | null };

export async function runProcess<C extends OutputCapture = SeparateCapture>(
  opts: RunProcessOptions<C>,
): Promise<ProcessResult<C>> {
  const startedAt = performance.now();
  const capture = makeCapture(opts.output ?? DEFAULT_CAPTURE);
  const finish = (end: ProcessEnd): ProcessResult<C> =>
    ({ ...end, ...capture.collect(), durationMs: Math.round(performance.now() - startedAt) }) as ProcessResult<C>;

  // Nothing is started for a run that was cancelled before it began.
  if (opts.signal?.aborted) return finish({ kind: 'cancelled', exitCode: null, exitSignal: null });

  let child: ChildProcess;
  try {
    child = spawn(opts.file, opts.args ?? [], {
      cwd: opts.cwd,
      env: opts.env ?? childEnvironment(process.env),
      detached: true,
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
  } catch (e) {
    return finish(spawnFailed(e));
  }
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.stdout?.on('data', (b: Buffer) => capture.stdout(b));
  child.stderr?.on('data', (b: Buffer) => capture.stderr(b));
  try {
    await once(child, 'spawn');
  } catch (e) {
    return finish(spawnFailed(e));
  }
  // Later errors (a failed kill) must not crash the process; the outcome comes from 'exit'.
  child.on('error', () => undefined);
  const pgid = child.pid!;
  if (child.stdin) {
    // A child that exits without reading closes the pipe under us; that is not an error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.stdin);
  }

  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopRequested = new Promise<'timed_out' | 'cancelled'>((resolve) => {
    if (opts.timeoutMs !== undefined && Number.isFinite(opts.timeoutMs)) {
      timer = setTimeout(() => resolve('timed_out'), Math.max(0, opts.timeoutMs));
    }
    onAbort = () => resolve('cancelled');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) resolve('cancelled'); // aborted while it was starting
  });
  const kind = await Promise.race([exited.then(() => 'exited' as const), stopRequested]);
  clearTimeout(timer);
  if (onAbort) opts.signal?.removeEventListener('abort', onAbort);

  const stdioGraceMs = opts.stdioGraceMs ?? DEFAULT_STDIO_GRACE_MS;
  let exit: Exit;
  if (kind === 'exited') {
    exit = await exited;
  } else {
    await killProcessGroup(pgid, opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
    // Once the group is gone the exit event is due at once; after giving up on it, do not wait for ever.
    exit = (await within(exited, stdioGraceMs, false)) ?? { code: child.exitCode, signal: child.signalCode };
  }
  const pipesClosed =
    (await within(
      closed.then(() => true),
      stdioGraceMs,
      false,
    )) ?? false;
  if (!pipesClosed && kind === 'exited' && opts.lingering === 'kill') {
    await killProcessGroup(pgid, opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
  }
  // Whatever still holds a pipe (a job that left the group) gets no more of our attention or handles.
  child.stdin?.destroy();
  child.stdout?.destroy();
  child.stderr?.destroy();
  capture.end();
  return finish({ kind, exitCode: exit.code, exitSignal: exit.signal });
}

export interface StartProcessOptions {
  file: string;
  args?: readonly string[];
  cwd?: string;
  /** The child's whole environment; when absent, process.env without Rein's credentials and secret-looking names (childEnv.ts). */
  env?: NodeJS.ProcessEnv;
  /** Piped by default so the owner can log it. */
  stderr?: 'pipe' | 'ignore' | 'inherit';
  /** After stdin is closed, how long the child may take to exit on its own before SIGTERM. */
  closeGraceMs?: number;
  /** SIGTERM → SIGKILL. */
  killGraceMs?: number;
}

export type ProcessExit =
  | { kind: 'exited'; exitCode: number | null; exitSignal: NodeJS.Signals | null }
  | { kind: 'spawn_failed'; error: Error };

export type ProcessStart = { ok: true; pid: number } | { ok: false; error: Error };

export interface ProcessHandle extends AsyncDisposable {
  readonly child: ChildProcess;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** null when `stderr` was not 'pipe'. */
  readonly stderr: Readable | null;
  /** The child started (its pid is the group id), or could not. */
  readonly started: Promise<ProcessStart>;
  /** Settles when the leader exits or could not start; never rejects. */
  readonly exited: Promise<ProcessExit>;
  readonly alive: boolean;
  /** Signals the whole group; false when there was nothing left to signal. */
  kill(signal?: NodeJS.Signals): boolean;
  /**
   * Ends stdin, waits, SIGTERMs the group, waits, SIGKILLs; resolves once the group is gone or given up on.
   * A DisposableStore's dispose() starts it, disposeAsync() waits for it.
   */
  dispose(): Promise<void>;
}

/**
 * Starts a long-lived child in its own process group with piped stdin/stdout. Spawn failures (missing
 * executable, missing cwd) arrive through `started` and `exited`; only invalid arguments throw, as spawn does.
 */
export function startProcess(opts: StartProcessOptions): ProcessHandle {
  const child = spawn(opts.file, opts.args ?? [], {
    cwd: opts.cwd,
    env: opts.env ?? childEnvironment(process.env),
    detached: true,
    stdio: ['pipe', 'pipe', opts.stderr ?? 'pipe'],
  });
  // The owner learns of failures from `started` and `exited`; unheard 'error' events would crash the process.
  child.on('error', () => undefined);
  child.stdin!.on('error', () => undefined);

  let spawned = false;
  const started = new Promise<ProcessStart>((resolve) => {
    child.once('spawn', () => {
      spawned = true;
      resolve({ ok: true, pid: child.pid! });
    });
    child.once('error', (error) => resolve({ ok: false, error }));
  });
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (exitCode, exitSignal) => resolve({ kind: 'exited', exitCode, exitSignal }));
    void started.then((s) => {
      if (!s.ok) resolve({ kind: 'spawn_failed', error: s.error });
    });
  });
  const isAlive = () => spawned && child.exitCode === null && child.signalCode === null;

  let closing: Promise<void> | undefined;
  const dispose = (): Promise<void> =>
    (closing ??= (async () => {
      const s = await started;
      if (!s.ok) return;
      if (isAlive()) {
        // Polite first: a stdio server ends at EOF. The child's own handle keeps the loop alive while it
        // runs, so this timer need not.
        child.stdin!.end();
        await within(exited, opts.closeGraceMs ?? DEFAULT_CLOSE_GRACE_MS, true);
      }
      // Also when the leader left on its own: what it started may still be in the group.
      if (isAlive() || processGroupAlive(s.pid))
        await killProcessGroup(s.pid, opts.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
      await within(exited, 1_000, true);
      child.stdin!.destroy();
      child.stdout!.destroy();
      child.stderr?.destroy();
    })());

  return {
    child,
    stdin: child.stdin!,
    stdout: child.stdout!,
    stderr: child.stderr,
    started,
    exited,
    get alive() {
      return isAlive();
    },
    kill(signal: NodeJS.Signals = 'SIGTERM') {
      if (!spawned || child.pid === undefined) return false;
      if (!isAlive() && !processGroupAlive(child.pid)) return false;
      return signalGroup(child.pid, signal);
    },
    dispose,
  };
}

function spawnFailed(e: unknown): ProcessEnd {
  return {
    kind: 'spawn_failed',
    error: e instanceof Error ? e : new Error(String(e)),
    exitCode: null,
    exitSignal: null,
  };
}

/** The promise's value, or undefined when `ms` passed first. */
async function within<T>(p: Promise<T>, ms: number, unref: boolean): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    if (unref) timer.unref();
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

interface Capture {
  stdout(b: Buffer): void;
  stderr(b: Buffer): void;
  /** Flushes a character left incomplete at the end of a stream. */
  end(): void;
  collect(): SeparateOutput | CombinedOutput;
}

function makeCapture(spec: OutputCapture): Capture {
  // One decoder per stream, so a multi-byte character split across chunks is decoded whole.
  const outDecoder = new StringDecoder('utf8');
  const errDecoder = new StringDecoder('utf8');
  if (spec.mode === 'combined') {
    const into = spec.into;
    return {
      stdout: (b) => into.push(outDecoder.write(b)),
      stderr: (b) => into.push(errDecoder.write(b)),
      end: () => {
        into.push(outDecoder.end());
        into.push(errDecoder.end());
      },
      collect: () => ({ output: into.toString(), truncated: into.truncated }),
    };
  }
  const out = new ByteCappedText(spec.stdoutMaxBytes);
  const err = new ByteCappedText(spec.stderrMaxBytes);
  return {
    stdout: (b) => out.push(outDecoder.write(b)),
    stderr: (b) => err.push(errDecoder.write(b)),
    end: () => {
      out.push(outDecoder.end());
      err.push(errDecoder.end());
    },
    collect: () => ({
      stdout: out.toString(),
      stderr: err.toString(),
      stdoutTruncated: out.truncated,
      stderrTruncated: err.truncated,
    }),
  };
}

/** Keeps the first `cap` bytes of UTF-8 text, cut before a character rather than through it. */
export class ByteCappedText implements TextBuffer {
  readonly #parts: string[] = [];
  #bytes = 0;
  #truncated = false;

  constructor(readonly cap: number) {}

  get truncated(): boolean {
    return this.#truncated;
  }

  push(text: string): void {
    if (text.length === 0) return;
    const room = this.cap - this.#bytes;
    const size = Buffer.byteLength(text);
    if (size <= room) {
      this.#parts.push(text);
      this.#bytes += size;
      return;
    }
    this.#truncated = true;
    if (room <= 0) return;
    const bytes = Buffer.from(text);
    let end = room;
    // Back off over continuation bytes (10xxxxxx) to the start of the character that does not fit.
    while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
    this.#parts.push(bytes.subarray(0, end).toString('utf8'));
    this.#bytes = this.cap;
  }

  toString(): string {
    return this.#parts.join('');
  }
}
