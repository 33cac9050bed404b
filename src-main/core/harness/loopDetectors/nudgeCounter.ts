/** Escalation: the third nudge of a run (by default) becomes a force stop. */
import { STOP_NOW } from './kit.js';
import { LOOP_THRESHOLDS } from './thresholds.js';
import type { LoopVerdict } from './types.js';

/** Counts the nudges of a run; the one that reaches the limit becomes a force stop. */
export class NudgeCounter {
  private count = 0;
  constructor(private readonly limit: number = LOOP_THRESHOLDS.nudgesPerRun) {}

  get nudges(): number {
    return this.count;
  }

  /** Passes `none` and `force_stop` through; turns the limit-th nudge into a force stop. */
  observe(verdict: LoopVerdict): LoopVerdict {
    if (verdict.action !== 'nudge') return verdict;
    this.count++;
    if (this.count < this.limit) return verdict;
    return {
      action: 'force_stop',
      detector: 'nudge_limit',
      message:
        `You have been warned ${this.count} times in this run that you are going in circles; the latest: ` +
        `${verdict.message ?? ''}\n${STOP_NOW}`,
    };
  }
}
