/** What the detectors share: the stop message, and how they look at the window of recent calls. */
import { canonicalJson } from '../../util/canonicalJson.js';
import { LOOP_THRESHOLDS } from './thresholds.js';
import type { CallRecord } from './types.js';

export const STOP_NOW =
  'Do not call any more tools. Write your final answer now from what you already have: what you found, what is ' +
  'still unfinished, and why. Stopping here is not evidence that the task succeeded, so do not claim anything ' +
  'the results above do not show.';

/** Calls at the end of the window for which `pred` holds, counted back until it first fails. */
export function trailing(w: readonly CallRecord[], pred: (r: CallRecord) => boolean): CallRecord[] {
  const out: CallRecord[] = [];
  for (let i = w.length - 1; i >= 0 && pred(w[i]!); i--) out.unshift(w[i]!);
  return out;
}

/** Distinct inputs of a tool's calls make a batch, not a loop. */
export function mostlyDistinct(calls: readonly CallRecord[]): boolean {
  const distinct = new Set(calls.map((r) => r.key)).size;
  return distinct / calls.length >= LOOP_THRESHOLDS.distinctInputShare;
}

/** The most recent non-visual call before the latest one (the latest being visual). */
export function lastNonVisualBefore(w: readonly CallRecord[]): CallRecord | undefined {
  for (let i = w.length - 2; i >= 0; i--) if (!w[i]!.looksAtScreen) return w[i];
  return undefined;
}

export function sameThought(a: string, b: string): boolean {
  if (a === b) return true;
  const wa = new Set(a.split(' ').filter(Boolean));
  const wb = new Set(b.split(' ').filter(Boolean));
  let shared = 0;
  for (const w of wa) if (wb.has(w)) shared++;
  const union = wa.size + wb.size - shared;
  return union > 0 && shared / union >= LOOP_THRESHOLDS.nearIdenticalThink;
}

export function describeCall(r: CallRecord, max = 120): string {
  const json = canonicalJson(r.input);
  const shown = json.length > max ? `${json.slice(0, max - 1)}…` : json;
  return `${r.tool} ${shown}`;
}
