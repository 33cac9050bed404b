/** Runs a loop's event generator to its end: every event it yielded, in order, and its outcome. */
import type { ReinEvent } from '../../src-main/core/api/events.js';
import type { RunOutcome } from '../../src-main/core/harness/loop.js';

export async function drainRun(events: AsyncGenerator<ReinEvent, RunOutcome>): Promise<{ events: ReinEvent[]; outcome: RunOutcome }> {
  const seen: ReinEvent[] = [];
  for (;;) {
    const step = await events.next();
    if (step.done) return { events: seen, outcome: step.value };
    seen.push(step.value);
  }
}
