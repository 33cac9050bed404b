/** Searches in a row that all found nothing. */
import { STOP_NOW, trailing } from './kit.js';
import { LOOP_THRESHOLDS } from './thresholds.js';
import type { Detector } from './types.js';

export const searchEscalation: Detector = (w) => {
  const last = w.at(-1)!;
  if (last.family !== 'search' || !last.foundNothing) return undefined;
  const run = trailing(w, (r) => r.family === 'search' && r.foundNothing);
  const t = LOOP_THRESHOLDS.searchEscalation;
  if (run.length >= t.forceStop) {
    return {
      detector: 'search_escalation',
      action: 'force_stop',
      fingerprint: `search_escalation:${run[0]!.seq}:stop`,
      message: `Your last ${run.length} searches in a row found nothing. ${STOP_NOW}`,
    };
  }
  if (run.length >= t.nudge) {
    return {
      detector: 'search_escalation',
      action: 'nudge',
      fingerprint: `search_escalation:${run[0]!.seq}`,
      message:
        `Your last ${run.length} searches in a row found nothing. Broadening the pattern again is unlikely to ` +
        `help. List the folder you are in (glob or directory_list), read a file you know is relevant, or tell ` +
        `the user what you were looking for and could not find.`,
    };
  }
  return undefined;
};
