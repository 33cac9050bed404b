/** Shell lines with `sleep N`: polling a process instead of waiting on it. */
import { STOP_NOW } from './kit.js';
import { LOOP_THRESHOLDS } from './thresholds.js';
import type { Detector } from './types.js';

export const sleepPolling: Detector = (w) => {
  const last = w.at(-1)!;
  if (!last.sleeps) return undefined;
  const sleeps = w.filter((r) => r.sleeps).length;
  const t = LOOP_THRESHOLDS.sleepPolling;
  if (sleeps >= t.forceStop) {
    return {
      detector: 'sleep_polling',
      action: 'force_stop',
      fingerprint: 'sleep_polling:stop',
      message: `You have run ${sleeps} shell commands with \`sleep\` recently, polling for something to change. ${STOP_NOW}`,
    };
  }
  if (sleeps >= t.nudge) {
    return {
      detector: 'sleep_polling',
      action: 'nudge',
      fingerprint: 'sleep_polling',
      message:
        `You are polling with \`sleep\` (${sleeps} times recently). Sleeping and checking again wastes turns. ` +
        `Run the command in the foreground so it finishes before returning, wait on the process itself ` +
        `(e.g. \`wait\`, or a tool's own --wait/timeout option), or tell the user it is still running.`,
    };
  }
  return undefined;
};
