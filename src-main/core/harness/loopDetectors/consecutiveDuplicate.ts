/** The same tool with the same input in a row: the result will not change. */
import { STOP_NOW, trailing, describeCall } from './kit.js';
import { LOOP_THRESHOLDS } from './thresholds.js';
import type { Detector } from './types.js';

export const consecutiveDuplicate: Detector = (w) => {
  const last = w.at(-1)!;
  const run = trailing(w, (r) => r.key === last.key);
  const t = LOOP_THRESHOLDS.consecutiveDuplicate;
  if (run.length >= t.forceStop) {
    return {
      detector: 'consecutive_duplicate',
      action: 'force_stop',
      fingerprint: `consecutive_duplicate:${run[0]!.seq}:stop`,
      message: `You called ${describeCall(last)} ${run.length} times in a row with exactly the same input. ${STOP_NOW}`,
    };
  }
  if (run.length >= t.nudge) {
    return {
      detector: 'consecutive_duplicate',
      action: 'nudge',
      fingerprint: `consecutive_duplicate:${run[0]!.seq}`,
      message:
        `You just called ${describeCall(last)} ${run.length} times in a row with exactly the same input. ` +
        `Repeating it will not change the result. Use the result you already have, change the input, or ` +
        `try a different approach.`,
    };
  }
  return undefined;
};
