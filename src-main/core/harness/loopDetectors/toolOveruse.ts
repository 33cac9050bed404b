/** One (non-repeatable) tool taking most of the window, mostly repeating itself. */
import { STOP_NOW, mostlyDistinct } from './kit.js';
import { LOOP_THRESHOLDS } from './thresholds.js';
import type { Detector } from './types.js';

export const toolOveruse: Detector = (w) => {
  const last = w.at(-1)!;
  if (last.repeatable) return undefined;
  const sameTool = w.filter((r) => r.tool === last.tool);
  if (mostlyDistinct(sameTool)) return undefined;
  const t = LOOP_THRESHOLDS.toolOveruse;
  if (sameTool.length >= t.forceStop) {
    return {
      detector: 'tool_overuse',
      action: 'force_stop',
      fingerprint: `tool_overuse:${last.tool}:stop`,
      message: `${sameTool.length} of your last ${w.length} calls were ${last.tool}, mostly repeating itself. ${STOP_NOW}`,
    };
  }
  if (sameTool.length >= t.nudge) {
    return {
      detector: 'tool_overuse',
      action: 'nudge',
      fingerprint: `tool_overuse:${last.tool}`,
      message:
        `${sameTool.length} of your last ${w.length} calls were ${last.tool}, mostly repeating itself, and it is ` +
        `not getting you closer. Stop using ${last.tool} for now: summarise what you know and take a different ` +
        `step, or answer.`,
    };
  }
  return undefined;
};
