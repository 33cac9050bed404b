/** A look at the screen after a retry of a failed step succeeded. */
import { lastNonVisualBefore } from './kit.js';
import type { Detector } from './types.js';

export const successAfterError: Detector = (w) => {
  const last = w.at(-1)!;
  if (!last.looksAtScreen) return undefined;
  const prior = lastNonVisualBefore(w);
  if (!prior || !prior.ok) return undefined;
  const failedBefore = w.some((r) => r.seq < prior.seq && r.tool === prior.tool && !r.ok && r.key !== prior.key);
  if (!failedBefore) return undefined;
  return {
    detector: 'success_after_error',
    action: 'nudge',
    fingerprint: `success_after_error:${prior.seq}`,
    message:
      `Your retry of ${prior.tool} succeeded after the earlier attempt failed. There is no need to verify it on ` +
      `screen with ${last.tool}: move on to the next step, or finish if that was the last one.`,
  };
};
