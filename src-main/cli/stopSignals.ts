/**
 * How a `rein` command with a run in flight stops when it is told to: SIGTERM (logout, shutdown,
 * `launchctl bootout`, `kill`), SIGINT (Ctrl-C), SIGHUP (its terminal closed) and, in the headless app,
 * a quit (`requestStop`).
 *
 * The first of them aborts the switch's AbortSignal: the run is cancelled, the loop saves its session,
 * the command records how it went, cleans up (a schedule's `run.pid`) and returns. Further signals never
 * end the process sooner — except a second Ctrl-C from a person at an attended command, who asks to quit
 * at once (`forceOnSecondInterrupt`).
 *
 * Why the listeners are `process.on` (never `once`), and stay until the process exits once a stop began:
 * proper-lockfile (the schedule store's lock) and write-file-atomic load signal-exit, whose own listener
 * re-raises the signal — ending the process on the spot — whenever it finds no other listener for it.
 *
 * A deadline backs it all: a command still there `deadlineMs` after the first signal (a tool that ignores
 * its abort, an MCP server slow to stop) runs the cleanups registered for that case, synchronously, and
 * exits with 128 + the signal's number. launchd waits ExitTimeOut (10 s) before its SIGKILL.
 */
import { constants } from 'node:os';
import type { Disposable } from '../core/base/lifecycle.js';

export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Well inside the 5 s a run has to stop, and launchd's ExitTimeOut. */
export const DEFAULT_STOP_DEADLINE_MS = 4_000;

export interface StopSwitch extends Disposable {
  /** Aborts at the first stop; its reason says which (`stopped by SIGTERM`). */
  readonly signal: AbortSignal;
  /** The signal that stopped it (`quit` for the app's quit), while it has. */
  readonly stoppedBy: StopSignal | 'quit' | undefined;
  /** The exit code for a command that was stopped: 128 + the signal's number. */
  readonly exitCode: number | undefined;
  /** `fn` runs (synchronously) at the deadline, before the forced exit; the returned function takes it back. */
  onDeadline(fn: () => void): () => void;
}

export interface StopOptions {
  deadlineMs?: number;
  /** A second SIGINT exits at once (130): a person at the terminal pressed Ctrl-C twice. */
  forceOnSecondInterrupt?: boolean;
  /** Where the one line "stopping…" goes (a launchd job's stderr is its launchd.err.log). */
  stderr?: { write(s: string): unknown };
  /** For tests: the process to listen on and the exit to call. */
  process?: Pick<NodeJS.Process, 'on' | 'off'>;
  exit?: (code: number) => void;
}

const active = new Set<(why: StopSignal | 'quit') => void>();

/**
 * The headless app was asked to quit (Electron turns a signal it handles into a quit): the command
 * running there stops as it would on SIGTERM. False when no command is listening (the quit may go ahead).
 */
export function requestStop(): boolean {
  if (active.size === 0) return false;
  for (const stop of [...active]) stop('quit');
  return true;
}

export function stopOnSignals(opts: StopOptions = {}): StopSwitch {
  const proc = opts.process ?? process;
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const deadlineMs = opts.deadlineMs ?? DEFAULT_STOP_DEADLINE_MS;
  const controller = new AbortController();
  const cleanups = new Set<() => void>();
  let stoppedBy: StopSignal | 'quit' | undefined;
  let disposed = false;

  const codeOf = (why: StopSignal | 'quit') =>
    128 + (why === 'quit' ? constants.signals.SIGTERM : constants.signals[why]);
  const stop = (why: StopSignal | 'quit') => {
    if (stoppedBy !== undefined) {
      if (why === 'SIGINT' && opts.forceOnSecondInterrupt) exit(130);
      return;
    }
    stoppedBy = why;
    opts.stderr?.write(`rein: ${why === 'quit' ? 'asked to quit' : why}: stopping the run (its session is saved)…\n`);
    controller.abort(new Error(why === 'quit' ? 'stopped: the app was asked to quit' : `stopped by ${why}`));
    // Unref'd: it never keeps a finished command alive, only ends one that will not finish.
    const timer = setTimeout(() => {
      for (const fn of [...cleanups]) {
        try {
          fn();
        } catch {
          // The exit matters more than any one cleanup.
        }
      }
      opts.stderr?.write(`rein: the run did not stop within ${Math.round(deadlineMs / 1000)} s; exiting\n`);
      exit(codeOf(why));
    }, deadlineMs);
    timer.unref?.();
  };
  const listeners = new Map<StopSignal, () => void>(STOP_SIGNALS.map((sig) => [sig, () => stop(sig)]));
  for (const [sig, fn] of listeners) proc.on(sig, fn);
  active.add(stop);

  return {
    signal: controller.signal,
    get stoppedBy() {
      return stoppedBy;
    },
    get exitCode() {
      return stoppedBy === undefined ? undefined : codeOf(stoppedBy);
    },
    onDeadline(fn) {
      cleanups.add(fn);
      return () => cleanups.delete(fn);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      active.delete(stop);
      cleanups.clear();
      // Once a stop began the listeners stay (signal-exit would otherwise end the process at the next
      // signal, before the command's last writes); they only ignore what comes.
      if (stoppedBy === undefined) for (const [sig, fn] of listeners) proc.off(sig, fn);
    },
  };
}
