/**
 * The tool turn: the reply's tool calls run through the executor (admission, approvals, batches), their
 * results become the next user message, and a result marked `final` (a cloud deliverable) of the
 * reply's only call is the answer as it is. The loop detector's verdict follows (stopChecks.ts).
 */
import type { ReinEvent, ReinEventBody } from '../../api/events.js';
import { resultCapForWindow } from '../../context/index.js';
import { executeToolCalls, type ExecutorDeps, type ToolCallRequest } from '../executor.js';
import { endWith, overBudget, RUN_AGAIN, warn, type NextStep, type RunState } from '../runState.js';
import { appendAssistant, appendUser, nudgeModel, textBlocks, toParam } from './transcript.js';
import { afterToolBatch, budgetEnd, stopHookBlock } from './stopChecks.js';
import { save } from './persistence.js';
import type { ModelReply } from './modelTurn.js';

export async function* toolTurn(state: RunState, reply: ModelReply): AsyncGenerator<ReinEvent, NextStep> {
  const { signal } = state;
  if (overBudget(state)) {
    // Do not start tools the run can no longer pay to follow up on; keep the history valid (no dangling tool_use).
    appendAssistant(state, textBlocks(reply.text));
    return endWith(budgetEnd(state));
  }

  appendAssistant(state, reply.response.content.map(toParam));
  const calls: ToolCallRequest[] = reply.toolUses.map((t) => ({ id: t.id, name: t.name, input: t.input }));
  const outcome = yield* stamped(state, executeToolCalls(calls, executorDeps(state), signal));
  if (outcome.guiUsed) state.guiUsed = true;
  appendUser(state, outcome.results);

  // A result marked `final` (a cloud deliverable) of the response's only call is the answer as it is:
  // no model turn to summarise (and shorten) it. Stop hooks still have their say.
  const only = outcome.executed.length === 1 ? outcome.executed[0] : undefined;
  const deliverable = only?.ran && only.result.ok && !signal.aborted && only.answer?.trim() ? only.answer : undefined;
  if (deliverable !== undefined) {
    yield state.stamp({ type: 'text_delta', text: deliverable });
    appendAssistant(state, [{ type: 'text', text: deliverable }]);
    state.lastText = deliverable;
    const block = await stopHookBlock(state, state.carried + deliverable);
    if (block !== undefined) {
      yield nudgeModel(state, 'stop_hook', 'nudge', block);
      await save(state);
      return RUN_AGAIN;
    }
    return endWith({ reason: 'final', text: state.carried + deliverable });
  }
  return yield* afterToolBatch(state);
}

/** What the executor needs of the run. */
function executorDeps(state: RunState): ExecutorDeps {
  const { deps, settings, input } = state;
  return {
    registry: deps.registry,
    policy: deps.policy,
    broker: deps.broker,
    ctx: input.toolContext,
    mode: settings.mode,
    source: input.source,
    agent: input.agent,
    origin: input.origin,
    route: input.route,
    approvals: state.approvals,
    maxParallel: settings.maxParallel,
    defaultBudget: settings.resultBudget,
    sessionGrants: state.ctx.approvals,
    budgetCap: resultCapForWindow(settings.contextWindow, settings.resultWindowShare),
    ...(deps.onAlwaysAllow ? { onAlwaysAllow: deps.onAlwaysAllow } : {}),
    ...(deps.hooks ? { hooks: { pre: deps.hooks.PreToolUse, post: deps.hooks.PostToolUse } } : {}),
    ...(deps.audit ? { audit: deps.audit } : {}),
    detector: state.detector,
    background: state.background,
    warn: (message) => warn(state, message),
  };
}

/** The executor's events, stamped as the run's. */
async function* stamped<T>(state: RunState, gen: AsyncGenerator<ReinEventBody, T>): AsyncGenerator<ReinEvent, T> {
  for (;;) {
    const step = await gen.next();
    if (step.done) return step.value;
    yield state.stamp(step.value);
  }
}
