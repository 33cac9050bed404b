/** One tool failing again and again in the window. */
import { STOP_NOW } from './kit.js';
import { LOOP_THRESHOLDS } from './thresholds.js';
import type { Detector } from './types.js';

export const toolErrors: Detector = (w) => {
  const last = w.at(-1)!;
  const failures = w.filter((r) => r.tool === last.tool && !r.ok);
  if (last.ok || failures.length === 0) return undefined;
  const t = LOOP_THRESHOLDS.toolErrors;
  const lastError = last.errorSig ?? '';
  if (failures.length >= t.forceStop) {
    return {
      detector: 'tool_errors',
      action: 'force_stop',
      fingerprint: `tool_errors:${last.tool}:stop`,
      message: `${last.tool} has failed ${failures.length} times recently (last error: ${lastError}). ${STOP_NOW}`,
    };
  }
  if (failures.length >= t.nudge) {
    return {
      detector: 'tool_errors',
      action: 'nudge',
      fingerprint: `tool_errors:${last.tool}`,
      message:
        `${last.tool} has failed ${failures.length} times recently. The last error was: ${lastError}\n` +
        `Do not retry ${last.tool} the same way. Read the error, then fix the cause, use a different tool, ` +
        `or explain to the user what is blocking you.`,
    };
  }
  return undefined;
};
