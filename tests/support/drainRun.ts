/** Runs an event generator to its end: every event it yielded, in order, and what it returned. */
import type { ReinEvent } from '../../src-main/core/api/events.js';
import type { RunOutcome } from '../../src-main/core/harness/loop.js';
import type { LlmEvent, ModelResponse } from '../../src-main/core/llm/client.js';

async function drain<E, R>(gen: AsyncGenerator<E, R>): Promise<{ events: E[]; result: R }> {
  const events: E[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { events, result: step.value };
    events.push(step.value);
  }
}

/** A loop's run: its events and its outcome. */
export async function drainRun(
  events: AsyncGenerator<ReinEvent, RunOutcome>,
): Promise<{ events: ReinEvent[]; outcome: RunOutcome }> {
  const { events: seen, result } = await drain(events);
  return { events: seen, outcome: result };
}

/** One model turn: its events (text deltas, retry notices) and the assembled response. */
export async function drainTurn(
  turn: AsyncGenerator<LlmEvent, ModelResponse>,
): Promise<{ events: LlmEvent[]; response: ModelResponse }> {
  const { events, result } = await drain(turn);
  return { events, response: result };
}
