/** Web, GUI or search calls on one topic (or returning the same sources) without new findings; with nothing to compare, the tool itself counted. */
import { STOP_NOW, mostlyDistinct } from './kit.js';
import { LOOP_THRESHOLDS } from './thresholds.js';
import { hash } from './callRecord.js';
import type { Detector } from './types.js';

export const topicNoProgress: Detector = (w) => {
  const last = w.at(-1)!;
  const family = last.family;
  if (!family) return undefined;
  const inFamily = w.filter((r) => r.family === family);
  const sameTopic = last.topic === undefined ? 0 : inFamily.filter((r) => r.topic === last.topic).length;
  const sameResults = last.resultSig === undefined ? 0 : inFamily.filter((r) => r.resultSig === last.resultSig).length;
  const progress = Math.max(sameTopic, sameResults);
  if (progress > 0) {
    const t = LOOP_THRESHOLDS.topicNoProgress;
    const what = sameTopic >= sameResults ? `on the same topic (${last.topic})` : 'that returned the same sources';
    const subject = sameTopic >= sameResults ? `topic:${last.topic}` : `results:${hash(last.resultSig ?? '')}`;
    if (progress >= t.forceStop) {
      return {
        detector: 'topic_no_progress',
        action: 'force_stop',
        fingerprint: `topic_no_progress:${subject}:stop`,
        message: `You have made ${progress} ${family} calls ${what} without new findings. ${STOP_NOW}`,
      };
    }
    if (progress >= t.strongNudge) {
      return {
        detector: 'topic_no_progress',
        action: 'nudge',
        fingerprint: `topic_no_progress:${subject}:strong`,
        message:
          `You have now made ${progress} ${family} calls ${what}. Do not search again: summarise what you ` +
          `have found so far and answer, noting what you could not find.`,
      };
    }
    if (progress >= t.nudge) {
      return {
        detector: 'topic_no_progress',
        action: 'nudge',
        fingerprint: `topic_no_progress:${subject}`,
        message:
          `You have made ${progress} ${family} calls ${what} and are not learning anything new. Work with the ` +
          `results you already have, or change the question substantially.`,
      };
    }
    return undefined;
  }
  // No topic and no sources to compare: fall back to counting the tool itself.
  if (last.repeatable) return undefined;
  const sameTool = w.filter((r) => r.tool === last.tool);
  if (mostlyDistinct(sameTool)) return undefined;
  const t = LOOP_THRESHOLDS.familyFallback;
  if (sameTool.length >= t.forceStop) {
    return {
      detector: 'family_fallback',
      action: 'force_stop',
      fingerprint: `family_fallback:${last.tool}:stop`,
      message: `You have called ${last.tool} ${sameTool.length} times recently, mostly with the same input. ${STOP_NOW}`,
    };
  }
  if (sameTool.length >= t.nudge) {
    return {
      detector: 'family_fallback',
      action: 'nudge',
      fingerprint: `family_fallback:${last.tool}`,
      message:
        `You have called ${last.tool} ${sameTool.length} times recently, mostly with the same input, without ` +
        `visible progress. Step back: use what you have, try a different tool, or ask the user.`,
    };
  }
  return undefined;
};
