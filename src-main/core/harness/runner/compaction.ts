/**
 * Compaction as a run step: proactive at 85% of the window before a request (write-before-compact,
 * summary, checkpoint), and harder once when the provider says the prompt is too long. The session
 * file keeps the whole transcript; the checkpoint is what later requests start from.
 */
import type { ReinEvent, ReinEventBody } from '../../api/events.js';
import { errorMessage } from '../../errors.js';
import { compactHard, compactIfNeeded, type CompactionResult } from '../../context/index.js';
import { warn, type RunState } from '../runState.js';
import { exposure, houseKeepOptions } from './request.js';
import { save } from './persistence.js';

function compactionInput(state: RunState) {
  const { definitions, system } = exposure(state);
  const options = houseKeepOptions(state, system, definitions);
  return {
    session: state.session,
    contextWindow: state.settings.contextWindow,
    fixedTokens: options.budget!.fixedTokens,
    ...(state.lastUsage ? { lastUsage: state.lastUsage } : {}),
    state: state.ctx.compaction,
    housekeeping: { state: state.ctx.housekeeping, options },
  };
}

function compactionDeps(state: RunState) {
  return {
    llm: state.deps.llm,
    model: state.settings.smallModel ?? state.settings.model,
    ...(state.input.memoryDir ? { memoryDir: state.input.memoryDir } : {}),
    signal: state.signal,
    now: state.now,
    warn: (message: string) => warn(state, message),
  };
}

function compactionEvent(r: CompactionResult): ReinEventBody {
  return {
    type: 'compaction',
    dropped_messages: r.droppedMessages,
    tokens_before: r.tokensBefore,
    tokens_after: r.tokensAfter,
    reason: r.reason,
  };
}

/** Proactive compaction before a request; a failure is a warning and the history is sent as it is. Saves when it compacted. */
export async function* compactBeforeRequest(state: RunState): AsyncGenerator<ReinEvent, void> {
  let result: CompactionResult | undefined;
  try {
    result = await compactIfNeeded(compactionInput(state), compactionDeps(state));
  } catch (err) {
    warn(state, `compaction failed, the history is sent as it is: ${errorMessage(err)}`);
    return;
  }
  if (!result) return;
  state.session.checkpoint = result.checkpoint;
  state.lastUsage = undefined; // the next measurement is an estimate of the compacted history
  state.input.toolContext.readTracker.forgetShownContent?.();
  await save(state);
  yield state.stamp(compactionEvent(result));
}

/** The provider counted more than our estimate: compact harder (the caller saves and tries once more). */
export async function* compactHarder(state: RunState): AsyncGenerator<ReinEvent, void> {
  const hard = await compactHard(compactionInput(state), compactionDeps(state));
  if (!hard.compaction) return;
  state.session.checkpoint = hard.compaction.checkpoint;
  state.input.toolContext.readTracker.forgetShownContent?.();
  yield state.stamp(compactionEvent(hard.compaction));
}
