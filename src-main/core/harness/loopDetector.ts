/**
 * Notices when the model is going round in circles and tells it so. The loop records every finished
 * tool call, then asks for a verdict: `none`, `nudge` (send the message as a corrective user message and
 * carry on) or `force_stop` (make one last model call without tools, with the message).
 *
 * Every detector looks at the last LOOP_THRESHOLDS.window calls. A nudge about one subject (this call,
 * this tool, this topic) is not repeated within a window of calls — otherwise one lingering condition
 * would burn the whole nudge budget in three calls — but a stronger level of the same problem fires
 * anew. The third nudge of a run escalates to a force stop.
 *
 * Deliberate differences from the reference (shanclaw §2, with its successor's loosening):
 * - the windowed duplicate counts a call only when its result was also the same, so a test-fix loop
 *   that re-runs `npm test` and sees different output is progress, not a loop;
 * - search escalation counts only searches that came back empty (broadening a search that finds
 *   nothing), because a coding agent legitimately greps many times in a row;
 * - count-based checks skip a tool whose calls are mostly distinct (a batch of reads is not a loop).
 *
 * What kind of tool a call used comes from the tool's traits (family, repeatable, looks at the screen,
 * reports its own success), never from its name, so a GUI or MCP tool is judged by what it declares.
 * Only two built-ins are known by name, for what their input says: bash (`sleep N`) and think.
 */
import { createHash } from 'node:crypto';
import type { ToolFamily, ToolTraits } from '../tools/traits.js';
import { canonicalJson } from '../util/canonicalJson.js';

export interface LoopCall {
  tool: string;
  /** What the tool declares about itself; an unknown tool has none. */
  traits?: ToolTraits;
  input: unknown;
  ok: boolean;
  content: string;
  errorKind?: string;
}

export interface LoopVerdict {
  action: 'none' | 'nudge' | 'force_stop';
  detector?: string;
  message?: string;
}

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
  /** `bash` calls containing `sleep N`: polling a process instead of waiting on it properly. */
  sleepPolling: { nudge: 2, forceStop: 4 },
  /** `think` calls in a row with no content: a degenerate tool-call loop; nothing useful will follow. */
  emptyThink: { forceStop: 2 },
  /** `think` calls in a row with (nearly) the same thought: deliberating without acting. */
  repeatedThink: { nudge: 2, forceStop: 3 },
  /** Word-set similarity (Jaccard) at or above which two thoughts count as the same thought. */
  nearIdenticalThink: 0.9,
  /** The same `[validation error]` from the same tool: the model keeps sending input of the wrong shape. */
  validationRepeat: { nudge: 2, forceStop: 3 },
  /** Nudges in one run before the next one becomes a force stop: the model is ignoring corrections. */
  nudgesPerRun: 3,
} as const;

/** The families whose calls are compared with each other; reads are left to the generic checks. */
type Family = Exclude<ToolFamily, 'read'>;
const comparedFamily = (traits: ToolTraits | undefined): Family | undefined => (traits?.family === 'read' ? undefined : traits?.family);

export { canonicalJson };

/** The identity of a call: tool plus canonical input. */
export const callKey = (tool: string, input: unknown): string => `${tool}\u0000${canonicalJson(input)}`;

const hash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

// ---- web topic normalisation -------------------------------------------------------------------

const FILLER_WORDS = new Set([
  'today', 'yesterday', 'latest', 'recent', 'top', 'major', 'breaking', 'headlines', 'news', 'current', 'update', 'updates',
]);
const MONTH = '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const DATE_PATTERNS = [
  /\b\d{4}-\d{2}-\d{2}\b/g,
  new RegExp(`\\b${MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?,?\\s+\\d{4}\\b`, 'gi'),
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTH}\\.?,?\\s+\\d{4}\\b`, 'gi'),
  /\b20\d{2}\b/g,
];

/**
 * What a web call is about, so "AI news today" and "latest AI news 2025" count as one topic. URLs are
 * compared verbatim. Undefined when the input names no query or URL.
 */
export function webTopic(input: unknown): string | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  const rec = input as Record<string, unknown>;
  for (const key of ['query', 'q', 'queries', 'url', 'urls']) {
    let value = rec[key];
    if (Array.isArray(value)) value = value[0];
    if (typeof value !== 'string' || value.trim() === '') continue;
    if (key === 'url' || key === 'urls') return value.trim();
    let text = value;
    for (const re of DATE_PATTERNS) text = text.replace(re, ' ');
    const tokens = text
      .split(/\s+/)
      .map((t) => t.replace(/^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu, '').toLowerCase())
      .filter((t) => [...t].length >= 2 && !FILLER_WORDS.has(t));
    return tokens.length === 0 ? '[empty]' : tokens.sort().join(' ');
  }
  return undefined;
}

/** The set of URLs a result mentions (without query, fragment, trailing punctuation): same set = same findings. */
export function resultUrls(content: string): string {
  const urls = new Set<string>();
  for (const m of content.matchAll(/https?:\/\/[^\s"'<>()[\]{}]+/gi)) {
    const url = m[0].replace(/[?#].*$/, '').replace(/[.,;:!?]+$/, '').toLowerCase();
    urls.add(url);
  }
  return [...urls].sort().join(',');
}

// ---- per-call facts ------------------------------------------------------------------------------

interface CallRecord {
  seq: number;
  tool: string;
  family: Family | undefined;
  /** Its result follows the world: repeating it is not overuse. */
  repeatable: boolean;
  looksAtScreen: boolean;
  reportsOwnSuccess: boolean;
  key: string;
  input: unknown;
  ok: boolean;
  /** Same call and same outcome. */
  outcomeKey: string;
  errorSig?: string;
  validationSig?: string;
  topic?: string;
  resultSig?: string;
  sleeps: boolean;
  foundNothing: boolean;
  /** For `think`: the thought (all string values), normalised. */
  thought?: string;
}

const SLEEP_RE = /\bsleep\s+\d/;
const NOTHING_FOUND_RE =
  /^(?:\[[^\]]*\]\s*)?(?:no (?:matches|match|results|files|entries|paths)\b|0 (?:matches|results|files)\b|nothing found\b|found 0\b)/i;

function stringsIn(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsIn(v, out);
  return out;
}

const normaliseThought = (text: string): string =>
  text.toLowerCase().replace(/[\p{P}\p{S}]+/gu, ' ').replace(/\s+/g, ' ').trim();

function sameThought(a: string, b: string): boolean {
  if (a === b) return true;
  const wa = new Set(a.split(' ').filter(Boolean));
  const wb = new Set(b.split(' ').filter(Boolean));
  let shared = 0;
  for (const w of wa) if (wb.has(w)) shared++;
  const union = wa.size + wb.size - shared;
  return union > 0 && shared / union >= LOOP_THRESHOLDS.nearIdenticalThink;
}

function describeCall(r: CallRecord, max = 120): string {
  const json = canonicalJson(r.input);
  const shown = json.length > max ? `${json.slice(0, max - 1)}…` : json;
  return `${r.tool} ${shown}`;
}

function makeRecord(seq: number, call: LoopCall): CallRecord {
  const key = callKey(call.tool, call.input);
  const isValidation = !call.ok && (call.errorKind === 'validation' || call.content.startsWith('[validation error]'));
  const family = comparedFamily(call.traits);
  const record: CallRecord = {
    seq,
    tool: call.tool,
    family,
    repeatable: call.traits?.repeatable === true,
    looksAtScreen: call.traits?.looksAtScreen === true,
    reportsOwnSuccess: call.traits?.reportsOwnSuccess === true,
    key,
    input: call.input,
    ok: call.ok,
    outcomeKey: hash(`${key}\u0000${call.ok ? 'ok' : 'err'}\u0000${call.content}`),
    sleeps: false,
    foundNothing: false,
  };
  if (!call.ok) record.errorSig = [...call.content.trim()].slice(0, 100).join('');
  if (isValidation) record.validationSig = call.content.trim();
  if (family === 'web') record.topic = webTopic(call.input);
  if (family) {
    const sig = resultUrls(call.content);
    if (sig) record.resultSig = sig;
  }
  if (family === 'search') {
    const firstLine = call.content.trim().split('\n', 1)[0] ?? '';
    record.foundNothing = call.ok && (firstLine === '' || NOTHING_FOUND_RE.test(firstLine));
  }
  if (call.tool === 'bash' && call.input && typeof call.input === 'object') {
    const command = (call.input as Record<string, unknown>).command;
    record.sleeps = typeof command === 'string' && SLEEP_RE.test(command);
  }
  if (call.tool === 'think') record.thought = normaliseThought(stringsIn(call.input).join(' '));
  return record;
}

// ---- detectors -----------------------------------------------------------------------------------

interface Finding {
  detector: string;
  action: 'nudge' | 'force_stop';
  /** Identity of the condition: a nudge fires only when its fingerprint was not active at the previous check. */
  fingerprint: string;
  message: string;
}

const STOP_NOW =
  'Do not call any more tools. Write your final answer now from what you already have: what you found, what is ' +
  'still unfinished, and why. Stopping here is not evidence that the task succeeded, so do not claim anything ' +
  'the results above do not show.';

type Detector = (w: readonly CallRecord[]) => Finding | undefined;

/** Calls at the end of the window for which `pred` holds, counted back until it first fails. */
function trailing(w: readonly CallRecord[], pred: (r: CallRecord) => boolean): CallRecord[] {
  const out: CallRecord[] = [];
  for (let i = w.length - 1; i >= 0 && pred(w[i]!); i--) out.unshift(w[i]!);
  return out;
}

/** Distinct inputs of a tool's calls make a batch, not a loop. */
function mostlyDistinct(calls: readonly CallRecord[]): boolean {
  const distinct = new Set(calls.map((r) => r.key)).size;
  return distinct / calls.length >= LOOP_THRESHOLDS.distinctInputShare;
}

/** The most recent non-visual call before the latest one (the latest being visual). */
function lastNonVisualBefore(w: readonly CallRecord[]): CallRecord | undefined {
  for (let i = w.length - 2; i >= 0; i--) if (!w[i]!.looksAtScreen) return w[i];
  return undefined;
}

const guiModeSwitch: Detector = (w) => {
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

const successAfterError: Detector = (w) => {
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

const consecutiveDuplicate: Detector = (w) => {
  const last = w.at(-1)!;
  const run = trailing(w, (r) => r.key === last.key);
  const t = LOOP_THRESHOLDS.consecutiveDuplicate;
  if (run.length >= t.forceStop) {
    return {
      detector: 'consecutive_duplicate',
      action: 'force_stop',
      fingerprint: `consecutive_duplicate:${run[0]!.seq}:stop`,
      message: `You called ${describeCall(last)} ${run.length} times in a row with exactly the same input. ${STOP_NOW}`,
    };
  }
  if (run.length >= t.nudge) {
    return {
      detector: 'consecutive_duplicate',
      action: 'nudge',
      fingerprint: `consecutive_duplicate:${run[0]!.seq}`,
      message:
        `You just called ${describeCall(last)} ${run.length} times in a row with exactly the same input. ` +
        `Repeating it will not change the result. Use the result you already have, change the input, or ` +
        `try a different approach.`,
    };
  }
  return undefined;
};

const windowDuplicate: Detector = (w) => {
  const last = w.at(-1)!;
  const same = w.filter((r) => r.outcomeKey === last.outcomeKey);
  // Back-to-back repeats are consecutiveDuplicate's business; this one is for repeats with other calls between.
  if (same.length === trailing(w, (r) => r.outcomeKey === last.outcomeKey).length) return undefined;
  const t = LOOP_THRESHOLDS.windowDuplicate;
  if (same.length >= t.forceStop) {
    return {
      detector: 'window_duplicate',
      action: 'force_stop',
      fingerprint: `window_duplicate:${last.outcomeKey}:stop`,
      message:
        `You have made the call ${describeCall(last)} ${same.length} times recently and got the same result ` +
        `every time. ${STOP_NOW}`,
    };
  }
  if (same.length >= t.nudge) {
    return {
      detector: 'window_duplicate',
      action: 'nudge',
      fingerprint: `window_duplicate:${last.outcomeKey}`,
      message:
        `You have made the call ${describeCall(last)} ${same.length} times recently and got the same result ` +
        `each time. The answer is already in the conversation above: use it instead of asking again, and ` +
        `move on to the next step.`,
    };
  }
  return undefined;
};

const toolErrors: Detector = (w) => {
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

const topicNoProgress: Detector = (w) => {
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

const searchEscalation: Detector = (w) => {
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

const toolOveruse: Detector = (w) => {
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

const sleepPolling: Detector = (w) => {
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

const stalledThink: Detector = (w) => {
  const last = w.at(-1)!;
  if (last.thought === undefined) return undefined;
  const empties = trailing(w, (r) => r.thought === '');
  if (empties.length >= LOOP_THRESHOLDS.emptyThink.forceStop) {
    return {
      detector: 'empty_think',
      action: 'force_stop',
      fingerprint: `empty_think:${empties[0]!.seq}`,
      message: `You called think ${empties.length} times in a row with nothing in it. ${STOP_NOW}`,
    };
  }
  // A run of think calls, each the same thought as the one before.
  let run = 1;
  for (let i = w.length - 1; i > 0; i--) {
    const cur = w[i]!;
    const prev = w[i - 1]!;
    if (cur.thought === undefined || prev.thought === undefined || !sameThought(cur.thought, prev.thought)) break;
    run++;
  }
  const t = LOOP_THRESHOLDS.repeatedThink;
  const start = w[w.length - run]!.seq;
  if (run >= t.forceStop) {
    return {
      detector: 'repeated_think',
      action: 'force_stop',
      fingerprint: `repeated_think:${start}:stop`,
      message: `You have thought the same thought ${run} times in a row without acting. ${STOP_NOW}`,
    };
  }
  if (run >= t.nudge) {
    return {
      detector: 'repeated_think',
      action: 'nudge',
      fingerprint: `repeated_think:${start}`,
      message:
        'You just repeated the same thought. Thinking again will not add anything: act on it now (call the ' +
        'tool you decided on) or write your answer.',
    };
  }
  return undefined;
};

const validationRepeat: Detector = (w) => {
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

/** In priority order: when several nudges are due at once, the earlier one speaks. */
const DETECTORS: readonly Detector[] = [
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

// ---- escalation ----------------------------------------------------------------------------------

/** Counts the nudges of a run; the one that reaches the limit becomes a force stop. */
export class NudgeCounter {
  private count = 0;
  constructor(private readonly limit: number = LOOP_THRESHOLDS.nudgesPerRun) {}

  get nudges(): number {
    return this.count;
  }

  /** Passes `none` and `force_stop` through; turns the limit-th nudge into a force stop. */
  observe(verdict: LoopVerdict): LoopVerdict {
    if (verdict.action !== 'nudge') return verdict;
    this.count++;
    if (this.count < this.limit) return verdict;
    return {
      action: 'force_stop',
      detector: 'nudge_limit',
      message:
        `You have been warned ${this.count} times in this run that you are going in circles; the latest: ` +
        `${verdict.message ?? ''}\n${STOP_NOW}`,
    };
  }
}

// ---- the detector --------------------------------------------------------------------------------

/** One per run. Not shared between runs: it holds the run's nudge count. */
export class LoopDetector {
  private readonly records: CallRecord[] = [];
  private seq = 0;
  /** Nudge fingerprint → seq of the call it fired at. */
  private readonly fired = new Map<string, number>();
  private readonly counter: NudgeCounter;
  private cached: { seq: number; verdict: LoopVerdict } | undefined;

  constructor(opts: { nudgesPerRun?: number } = {}) {
    this.counter = new NudgeCounter(opts.nudgesPerRun ?? LOOP_THRESHOLDS.nudgesPerRun);
  }

  record(call: LoopCall): void {
    this.records.push(makeRecord(++this.seq, call));
    if (this.records.length > LOOP_THRESHOLDS.window) this.records.shift();
  }

  /**
   * The verdict for the calls recorded so far. Asking twice without a new record returns the same
   * verdict and does not count the nudge twice.
   */
  check(): LoopVerdict {
    if (this.cached?.seq === this.seq) return this.cached.verdict;
    const verdict = this.records.length < 2 ? { action: 'none' as const } : this.evaluate();
    this.cached = { seq: this.seq, verdict };
    return verdict;
  }

  private evaluate(): LoopVerdict {
    const findings = DETECTORS.map((d) => d(this.records)).filter((f): f is Finding => f !== undefined);
    const stop = findings.find((f) => f.action === 'force_stop');
    if (stop) return { action: 'force_stop', detector: stop.detector, message: stop.message };
    const isFresh = (f: Finding) => {
      const at = this.fired.get(f.fingerprint);
      return at === undefined || this.seq - at >= LOOP_THRESHOLDS.window;
    };
    const fresh = findings.find(isFresh);
    if (!fresh) return { action: 'none' };
    // Problems noticed together are usually one behaviour: one message covers them all.
    for (const f of findings) if (isFresh(f)) this.fired.set(f.fingerprint, this.seq);
    return this.counter.observe({ action: 'nudge', detector: fresh.detector, message: fresh.message });
  }
}
