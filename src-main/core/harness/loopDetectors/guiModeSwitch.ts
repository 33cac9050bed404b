/** A look at the screen right after a step that reports its own success (AppleScript, a browser driver). */
import { lastNonVisualBefore } from './kit.js';
import type { Detector } from './types.js';

export const guiModeSwitch: Detector = (w) => {
  const last = w.at(-1)!;
  if (!last.looksAtScreen) return undefined;
  const prior = lastNonVisualBefore(w);
  if (!prior || !prior.ok || !prior.reportsOwnSuccess) return undefined;
  return {
    detector: 'gui_mode_switch',
    action: 'nudge',
    fingerprint: `gui_mode_switch:${prior.seq}`,
    message:
      `${prior.tool} already reported success, and you switched to ${last.tool} to look at the screen. ` +
      `Visual checking is usually unnecessary after a tool reported success: trust the result and continue ` +
      `with the next step, or finish if the task is done.`,
  };
};
