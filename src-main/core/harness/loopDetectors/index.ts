/** The loop detectors, one per file, composed here in priority order. */
import { guiModeSwitch } from './guiModeSwitch.js';
import { successAfterError } from './successAfterError.js';
import { consecutiveDuplicate } from './consecutiveDuplicate.js';
import { windowDuplicate } from './windowDuplicate.js';
import { toolErrors } from './toolErrors.js';
import { topicNoProgress } from './topicNoProgress.js';
import { searchEscalation } from './searchEscalation.js';
import { toolOveruse } from './toolOveruse.js';
import { sleepPolling } from './sleepPolling.js';
import { stalledThink } from './stalledThink.js';
import { validationRepeat } from './validationRepeat.js';
import type { Detector } from './types.js';

/** In priority order: when several nudges are due at once, the earlier one speaks. */
export const DETECTORS: readonly Detector[] = [
  stalledThink,
  validationRepeat,
  guiModeSwitch,
  successAfterError,
  consecutiveDuplicate,
  windowDuplicate,
  toolErrors,
  topicNoProgress,
  searchEscalation,
  toolOveruse,
  sleepPolling,
];
