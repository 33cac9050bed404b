/** Thinking aloud in circles: empty thoughts, or the same thought, in a row. */
import { STOP_NOW, trailing, sameThought } from './kit.js';
import { LOOP_THRESHOLDS } from './thresholds.js';
import type { Detector } from './types.js';

export const stalledThink: Detector = (w) => {
  const last = w.at(-1)!;
  if (last.thought === undefined) return undefined;
  const empties = trailing(w, (r) => r.thought === '');
  if (empties.length >= LOOP_THRESHOLDS.emptyThink.forceStop) {
    return {
      detector: 'empty_think',
      action: 'force_stop',
      fingerprint: `empty_think:${empties[0]!.seq}`,
      message: `You called think ${empties.length} times in a row with nothing in it. ${STOP_NOW}`,
    };
  }
  // A run of think calls, each the same thought as the one before.
  let run = 1;
  for (let i = w.length - 1; i > 0; i--) {
    const cur = w[i]!;
    const prev = w[i - 1]!;
    if (cur.thought === undefined || prev.thought === undefined || !sameThought(cur.thought, prev.thought)) break;
    run++;
  }
  const t = LOOP_THRESHOLDS.repeatedThink;
  const start = w[w.length - run]!.seq;
  if (run >= t.forceStop) {
    return {
      detector: 'repeated_think',
      action: 'force_stop',
      fingerprint: `repeated_think:${start}:stop`,
      message: `You have thought the same thought ${run} times in a row without acting. ${STOP_NOW}`,
    };
  }
  if (run >= t.nudge) {
    return {
      detector: 'repeated_think',
      action: 'nudge',
      fingerprint: `repeated_think:${start}`,
      message:
        'You just repeated the same thought. Thinking again will not add anything: act on it now (call the ' +
        'tool you decided on) or write your answer.',
    };
  }
  return undefined;
};
