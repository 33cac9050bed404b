/** The loop detectors' numbers, in one table (docs and tests read them). */

/** Every number the detectors use. Counts are "calls in the window" unless the comment says "in a row". */
export const LOOP_THRESHOLDS = {
  /** How many of the most recent tool calls every detector looks at. */
  window: 20,
  /** The same tool with the same input in a row: the result will not change, the model is retrying blindly. */
  consecutiveDuplicate: { nudge: 2, forceStop: 4 },
  /** The same call with the same result anywhere in the window (A B A B A): the model forgot what it already saw. */
  windowDuplicate: { nudge: 3, forceStop: 6 },
  /** Failures of one tool in the window: the model keeps retrying a tool that does not work for it. */
  toolErrors: { nudge: 6, forceStop: 10 },
  /** Web calls on one normalised topic (or returning the same set of URLs): searching without learning anything new. */
  topicNoProgress: { nudge: 3, strongNudge: 5, forceStop: 7 },
  /** Family tools (web, gui, search) with no topic to compare: the same tool over and over without visible progress. */
  familyFallback: { nudge: 5, forceStop: 7 },
  /** Searches (the search family: grep, glob) in a row that all found nothing: the model keeps broadening a search that keeps missing. */
  searchEscalation: { nudge: 3, forceStop: 5 },
  /** One (non-repeatable) tool in the window: the model is stuck on one tool instead of moving on. */
  toolOveruse: { nudge: 12, forceStop: 16 },
  /** Count-based checks (familyFallback, toolOveruse) skip a tool when at least this share of its calls are distinct: a batch of reads is work, not a loop. */
  distinctInputShare: 0.5,
  /** Shell lines (a `command: shell` tool: bash) containing `sleep N`: polling a process instead of waiting on it properly. */
  sleepPolling: { nudge: 2, forceStop: 4 },
  /** Thoughts (a `thinksAloud` tool: think) in a row with no content: a degenerate tool-call loop; nothing useful will follow. */
  emptyThink: { forceStop: 2 },
  /** Thoughts in a row that are (nearly) the same: deliberating without acting. */
  repeatedThink: { nudge: 2, forceStop: 3 },
  /** Word-set similarity (Jaccard) at or above which two thoughts count as the same thought. */
  nearIdenticalThink: 0.9,
  /** The same `[validation error]` from the same tool: the model keeps sending input of the wrong shape. */
  validationRepeat: { nudge: 2, forceStop: 3 },
  /** Nudges in one run before the next one becomes a force stop: the model is ignoring corrections. */
  nudgesPerRun: 3,
} as const;
