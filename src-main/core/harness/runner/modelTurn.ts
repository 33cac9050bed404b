/**
 * The model turn: one streamed request (text deltas and the client's retry notices as events), a prompt
 * the provider finds too long compacted harder and sent once more, the usage accounted, the cache-miss
 * warning; a reply cut by `max_tokens` continued (up to MAX_CONTINUATIONS); and the one last call
 * without tools that ends a run the loop detector stopped.
 */
import type { ReinEvent } from '../../api/events.js';
import { errorMessage, isReinError } from '../../errors.js';
import type { AssistantBlock, ModelRequest, ModelResponse } from '../../llm/client.js';
import { isPromptTooLong, requestHistory } from '../../context/index.js';
import { CONTINUE_PROMPT, MAX_CONTINUATIONS } from '../runTypes.js';
import type { RunEnd, RunState } from '../runState.js';
import { appendAssistant, appendUser, textBlocks, textOf } from './transcript.js';
import { buildRequest } from './request.js';
import { compactHarder } from './compaction.js';
import { save, saveFailureEnd } from './persistence.js';
import { accountUsage } from './usage.js';

export type ToolUse = Extract<AssistantBlock, { type: 'tool_use' }>;

export interface ModelReply {
  type: 'reply';
  response: ModelResponse;
  text: string;
  toolUses: ToolUse[];
}

/** One model turn: the reply, or how the run ends (cancelled, failed, a save that failed). */
export async function* modelTurn(
  state: RunState,
): AsyncGenerator<ReinEvent, ModelReply | { type: 'end'; end: RunEnd }> {
  const response = yield* requestWithRetry(state);
  if ('reason' in response) return { type: 'end', end: response };
  state.lastUsage = { ...response.usage, messagesSent: requestHistory(state.session).length };
  const warning = cacheMissWarning(state, response);
  if (warning) yield warning;
  yield accountUsage(state, response);

  const text = textOf(response.content);
  const toolUses = response.content.filter((b): b is ToolUse => b.type === 'tool_use');
  if (text) state.lastText = text;
  return { type: 'reply', response, text, toolUses };
}

/** Sends the request; a prompt that is too long is compacted harder and sent once more. */
async function* requestWithRetry(state: RunState): AsyncGenerator<ReinEvent, ModelResponse | RunEnd> {
  const { signal } = state;
  let retriedTooLong = false;
  for (;;) {
    let streamed = '';
    try {
      return yield* callModel(state, buildRequest(state, 'auto'), (t) => (streamed += t));
    } catch (err) {
      if (signal.aborted || isReinError(err, 'llm_cancelled')) {
        // Keep what the user already saw.
        if (streamed) appendAssistant(state, [{ type: 'text', text: streamed }]);
        return { reason: 'cancelled', text: state.carried + (streamed || state.lastText) };
      }
      if (isPromptTooLong(err) && !retriedTooLong) {
        // The provider counted more than our estimate: compact harder and try once more.
        retriedTooLong = true;
        yield* compactHarder(state);
        await save(state);
        const failed = saveFailureEnd(state);
        if (failed) return failed;
        continue;
      }
      const code = isReinError(err) ? err.code : 'llm_failed';
      const message = isPromptTooLong(err)
        ? `The conversation is too long for the model even after compacting it (${errorMessage(err)}). Start a new session or use a model with a larger context window.`
        : errorMessage(err);
      return { reason: 'error', text: state.carried + state.lastText, error: { code, message } };
    }
  }
}

/** Streams one model turn, yielding text deltas and retry notices; returns the response. */
async function* callModel(
  state: RunState,
  request: ModelRequest,
  onText: (t: string) => void,
): AsyncGenerator<ReinEvent, ModelResponse> {
  const turn = state.deps.llm.turn(request, state.signal);
  for (;;) {
    const step = await turn.next();
    if (step.done) return step.value;
    const ev = step.value;
    if (ev.type === 'text_delta') {
      onText(ev.text);
      yield state.stamp({ type: 'text_delta', text: ev.text });
    } else {
      yield state.stamp({
        type: 'retry',
        attempt: ev.attempt,
        max_attempts: ev.maxAttempts,
        reason: ev.reason,
        delay_ms: ev.delayMs,
      });
    }
  }
}

/** Three requests in a row that read nothing from the prompt cache: told once per run. */
function cacheMissWarning(state: RunState, response: ModelResponse): ReinEvent | undefined {
  if (response.usage.cacheReadTokens === 0 && state.iterations > 1) state.zeroCacheStreak++;
  else state.zeroCacheStreak = 0;
  if (state.zeroCacheStreak < 3 || state.cacheWarned) return undefined;
  state.cacheWarned = true;
  return state.stamp({
    type: 'notice',
    level: 'warning',
    message:
      'three requests in a row read nothing from the prompt cache: something in the request prefix is changing between requests (or the server does not cache)',
  });
}

/** A reply without tools cut by `max_tokens`: keep it, ask the model to go on, and save. False when it is not one to continue. */
export async function continueCutReply(state: RunState, reply: ModelReply): Promise<boolean> {
  const { text } = reply;
  if (reply.response.stopReason !== 'max_tokens' || !text || state.continuations >= MAX_CONTINUATIONS) return false;
  state.continuations++;
  state.carried += text;
  state.lastText = '';
  appendAssistant(state, [{ type: 'text', text }]);
  appendUser(state, [{ type: 'text', text: CONTINUE_PROMPT }], true);
  await save(state);
  return true;
}

/** One last model call that must answer in text: the end of a run the loop detector stopped. */
export async function* forcedAnswer(state: RunState): AsyncGenerator<ReinEvent, RunEnd> {
  state.iterations++;
  let streamed = '';
  try {
    const turn = state.deps.llm.turn(buildRequest(state, 'none'), state.signal);
    for (;;) {
      const step = await turn.next();
      if (step.done) {
        const response = step.value;
        yield accountUsage(state, response);
        const text = textOf(response.content);
        appendAssistant(state, textBlocks(text));
        return { reason: 'final', text: state.carried + (text || state.lastText) };
      }
      if (step.value.type === 'text_delta') {
        streamed += step.value.text;
        yield state.stamp({ type: 'text_delta', text: step.value.text });
      }
    }
  } catch (err) {
    if (streamed) appendAssistant(state, [{ type: 'text', text: streamed }]);
    if (state.signal.aborted || isReinError(err, 'llm_cancelled'))
      return { reason: 'cancelled', text: state.carried + (streamed || state.lastText) };
    return {
      reason: 'error',
      text: state.carried + state.lastText,
      error: { code: isReinError(err) ? err.code : 'llm_failed', message: errorMessage(err) },
    };
  }
}
