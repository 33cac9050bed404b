/**
 * What work a tool had done elsewhere cost its run (cloud_delegate: the gateway's reported `cost_usd`).
 * The loop seeds the slot for each run (harness/loop.ts): the cost is added to the run's usage and
 * counts against `budget.max_usd_per_run`. Absent (a tool context built without a loop): nothing is added.
 */
import { slotKey } from './sessionSlots.js';

export interface RunCosts {
  /** US dollars, added to the run's cost (not its tokens, which stay the local model's). */
  addCost(usd: number): void;
  /** The run's `budget.max_usd_per_run` is reached (nothing more may be spent). */
  overBudget(): boolean;
}

export const RUN_COSTS = slotKey<RunCosts>('run_costs');
