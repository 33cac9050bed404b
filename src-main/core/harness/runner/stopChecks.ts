/**
 * Whether the run goes on: before each iteration (a failed save, a cancel, the iteration cap, the
 * spending cap), after a reply without tools (one nudge when it claims success for something the user
 * refused, the Stop hooks), and after a tool batch (the loop detector: a nudge, or a forced answer).
 */
import type { ReinEvent } from '../../api/events.js';
import { runHooks } from '../../hooks/runHooks.js';
import { GUI_ITERATION_FLOOR } from '../runTypes.js';
import { endWith, overBudget, RUN_AGAIN, type NextStep, type RunEnd, type RunState } from '../runState.js';
import { appendAssistant, nudgeModel, textBlocks } from './transcript.js';
import { save, saveFailureEnd } from './persistence.js';
import type { ModelReply } from './modelTurn.js';

/** The iteration cap: 25 by default, raised to GUI_ITERATION_FLOOR once a GUI tool ran. */
export const iterationCap = (state: RunState): number =>
  state.guiUsed ? Math.max(state.settings.maxIterations, GUI_ITERATION_FLOOR) : state.settings.maxIterations;

/** How the run ends before its next iteration, if it does. */
export function beforeIteration(state: RunState): RunEnd | undefined {
  const cap = iterationCap(state);
  const partial = state.carried + state.lastText;
  const failed = saveFailureEnd(state);
  if (failed) return failed;
  if (state.signal.aborted) return { reason: 'cancelled', text: partial };
  if (state.iterations >= cap) {
    return {
      reason: 'max_iterations',
      text: partial,
      error: {
        code: 'max_iterations',
        message: `Stopped after ${state.iterations} iterations (max_iterations = ${cap}).${partial ? ' The partial answer is kept.' : ''}`,
      },
    };
  }
  if (overBudget(state)) return budgetEnd(state);
  return undefined;
}

/** The spending cap is reached: the run ends with `budget` and the answer so far. */
export function budgetEnd(state: RunState): RunEnd {
  const { usage, settings } = state;
  const message = `Spending cap reached: this run cost $${usage.cost_usd.toFixed(4)} of its $${settings.maxUsdPerRun.toFixed(2)} limit (budget.max_usd_per_run), so it stopped.`;
  return { reason: 'budget', text: state.carried + state.lastText, error: { code: 'budget', message } };
}

export const DENIAL_NUDGE =
  'Note: at least one of your tool calls in this turn was DENIED and did not run. Your reply sounds as if everything succeeded. ' +
  'Correct it: say plainly which actions did not happen because they were denied, and what the user can do instead.';

export function claimsSuccess(text: string): boolean {
  return /\b(done|completed|successfully|i('ve| have) (created|written|deleted|removed|updated|run|executed|installed|changed|saved)|has been (created|written|deleted|removed|updated|saved))\b/i.test(
    text,
  );
}

/** The message of a Stop hook that keeps the model going (the gate allows a few per turn), if one does. */
export async function stopHookBlock(state: RunState, finalText: string): Promise<string | undefined> {
  const stopHooks = state.deps.hooks?.Stop;
  if (!stopHooks || stopHooks.length === 0) return undefined;
  const stop = await runHooks('Stop', stopHooks, { ...state.hookPayload, final_text: finalText }, state.hookOptions);
  return stop.block && state.stopGate.allowBlock() ? stop.block.message : undefined;
}

/** A reply without tools (and not one to continue): the answer, unless a nudge or a Stop hook sends the model back. */
export async function* answerWithoutTools(state: RunState, reply: ModelReply): AsyncGenerator<ReinEvent, NextStep> {
  const { text } = reply;
  if (state.approvals.deniedCount > 0 && !state.denialNudged && claimsSuccess(text)) {
    // One corrective nudge when the model reports success for something the user refused.
    state.denialNudged = true;
    appendAssistant(state, [{ type: 'text', text }]);
    yield nudgeModel(state, 'success_after_denial', 'nudge', DENIAL_NUDGE);
    await save(state);
    state.lastText = '';
    return RUN_AGAIN;
  }
  const block = await stopHookBlock(state, state.carried + text);
  if (block !== undefined) {
    appendAssistant(state, textBlocks(text));
    yield nudgeModel(state, 'stop_hook', 'nudge', block);
    await save(state);
    return RUN_AGAIN;
  }
  appendAssistant(state, textBlocks(text));
  return endWith({ reason: 'final', text: state.carried + text });
}

/** After a tool batch: the loop detector's verdict (a nudge goes with the results), then the save. */
export async function* afterToolBatch(state: RunState): AsyncGenerator<ReinEvent, NextStep> {
  const verdict = state.detector.check();
  if (verdict.action === 'nudge' && verdict.message)
    yield nudgeModel(state, verdict.detector ?? 'loop', 'nudge', verdict.message);
  await save(state);
  const failed = saveFailureEnd(state);
  if (failed) return endWith(failed);
  if (verdict.action === 'force_stop') {
    const message =
      verdict.message ?? 'You are going in circles. Stop calling tools and answer now with what you have.';
    yield nudgeModel(state, verdict.detector ?? 'loop', 'force_stop', message);
    return { type: 'force_answer' };
  }
  return RUN_AGAIN;
}
