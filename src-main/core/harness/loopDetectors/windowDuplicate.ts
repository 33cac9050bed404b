/** The same call with the same result anywhere in the window (A B A B A), not back to back. */
import { STOP_NOW, trailing, describeCall } from './kit.js';
import { LOOP_THRESHOLDS } from './thresholds.js';
import type { Detector } from './types.js';

export const windowDuplicate: Detector = (w) => {
  const last = w.at(-1)!;
  const same = w.filter((r) => r.outcomeKey === last.outcomeKey);
  // Back-to-back repeats are consecutiveDuplicate's business; this one is for repeats with other calls between.
  if (same.length === trailing(w, (r) => r.outcomeKey === last.outcomeKey).length) return undefined;
  const t = LOOP_THRESHOLDS.windowDuplicate;
  if (same.length >= t.forceStop) {
    return {
      detector: 'window_duplicate',
      action: 'force_stop',
      fingerprint: `window_duplicate:${last.outcomeKey}:stop`,
      message:
        `You have made the call ${describeCall(last)} ${same.length} times recently and got the same result ` +
        `every time. ${STOP_NOW}`,
    };
  }
  if (same.length >= t.nudge) {
    return {
      detector: 'window_duplicate',
      action: 'nudge',
      fingerprint: `window_duplicate:${last.outcomeKey}`,
      message:
        `You have made the call ${describeCall(last)} ${same.length} times recently and got the same result ` +
        `each time. The answer is already in the conversation above: use it instead of asking again, and ` +
        `move on to the next step.`,
    };
  }
  return undefined;
};
