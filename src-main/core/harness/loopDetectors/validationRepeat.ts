/** The same validation error from the same tool: input of the wrong shape, sent again. */
import { STOP_NOW } from './kit.js';
import { LOOP_THRESHOLDS } from './thresholds.js';
import { hash } from './callRecord.js';
import type { Detector } from './types.js';

export const validationRepeat: Detector = (w) => {
  const last = w.at(-1)!;
  if (last.validationSig === undefined) return undefined;
  const same = w.filter((r) => r.tool === last.tool && r.validationSig === last.validationSig).length;
  const t = LOOP_THRESHOLDS.validationRepeat;
  const sig = `${last.tool}:${hash(last.validationSig)}`;
  if (same >= t.forceStop) {
    return {
      detector: 'validation_repeat',
      action: 'force_stop',
      fingerprint: `validation_repeat:${sig}:stop`,
      message: `${last.tool} rejected your input ${same} times with the same validation error. ${STOP_NOW}`,
    };
  }
  if (same >= t.nudge) {
    return {
      detector: 'validation_repeat',
      action: 'nudge',
      fingerprint: `validation_repeat:${sig}`,
      message:
        `${last.tool} rejected your input again with the same error: ${last.validationSig}\n` +
        `Read the error and the tool's input schema, and fix the named field before calling it again.`,
    };
  }
  return undefined;
};
