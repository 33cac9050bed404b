/**
 * Saving the session and ending the run. A save that fails is a value on the run state (issue 26): the
 * run stops at its next step with that error, never with a rejection out of the generator (which a
 * daemon would not survive). `finish` writes the last save and the one `session_end`.
 */
import { sumUsage, emptyUsage, type ReinEvent, type StopReason } from '../../api/events.js';
import { errorMessage, isReinError } from '../../errors.js';
import type { RunOutcome } from '../runTypes.js';
import { flushWarnings, type RunEnd, type RunError, type RunState } from '../runState.js';

/** Writes the session as it stands (with its context state); a failure is kept in `state.saveFailure`. */
export async function save(state: RunState): Promise<void> {
  state.session.context = state.ctx;
  try {
    await state.input.save(state.session);
    state.saveFailure = undefined;
  } catch (err) {
    state.saveFailure = saveFailureOf(state.session.id, err);
  }
}

/** The end of a run whose last save failed: the answer so far, with the save's error. */
export function saveFailureEnd(state: RunState): RunEnd | undefined {
  return state.saveFailure
    ? { reason: 'error', text: state.carried + state.lastText, error: state.saveFailure }
    : undefined;
}

/**
 * A failed save as the run's error: a ReinError as the store words it (a full disk: `disk_full`, "cannot
 * save session S to FILE: no space left on device"), anything else as `session_save_failed`.
 */
export function saveFailureOf(sessionId: string, err: unknown): RunError {
  if (isReinError(err)) return { code: err.code, message: err.message };
  return { code: 'session_save_failed', message: `could not save session ${sessionId}: ${errorMessage(err)}` };
}

/** Waits for background work, saves once more, and says `session_end` (after the errors to tell). */
export async function* finish(state: RunState, end: RunEnd): AsyncGenerator<ReinEvent, RunOutcome> {
  const { stamp } = state;
  const { text, error } = end;
  await Promise.allSettled(state.background);
  yield* flushWarnings(state);
  state.session.usage = sumUsage(state.session.usage ?? emptyUsage(), state.usage);
  await save(state);
  // A run stopped by a failed save tried once more here; failing the same way, it is that one error.
  const unsaved = state.saveFailure;
  if (unsaved && unsaved.message !== error?.message) yield stamp({ type: 'error', ...unsaved });
  if (error) yield stamp({ type: 'error', code: error.code, message: error.message });
  // An answer that could not be kept is no `final`: the caller (a CLI exit code, a client) must know.
  const reason: StopReason = unsaved ? 'error' : end.reason;
  const failure = error ?? unsaved;
  yield stamp({ type: 'session_end', stop_reason: reason, text, usage: state.usage, iterations: state.iterations });
  return {
    stopReason: reason,
    text,
    usage: state.usage,
    iterations: state.iterations,
    ...(failure ? { error: failure } : {}),
    started: true,
  };
}
