/**
 * The store's and the CLI's view of a cron expression: accepted as classic cron reads it (cron.ts), or
 * refused with a ReinError naming the field `cron` and what is wrong with which part.
 */
import { fieldError } from '../errors.js';
import { isDue, nextRuns, parseCron, previousRun, type ParsedCron } from './cron.js';

export interface CheckedCron {
  /** The expression as stored (whitespace normalised). */
  normalized: string;
  parsed: ParsedCron;
  /** The next `count` fire times strictly after `from`. */
  next(from: Date, count: number): Date[];
  /** Whether the minute containing `at` is a fire time. */
  isDue(at: Date): boolean;
  /** The latest fire time at or before `at` (its minute included), or null. */
  previous(at: Date): Date | null;
}

export function checkCron(expr: string): CheckedCron {
  const parsed = parseCron(expr);
  if (!parsed.ok) throw fieldError('invalid_input', `cron: ${parsed.message}`, 'cron');
  const cron = parsed.cron;
  return {
    normalized: cron.normalized,
    parsed: cron,
    next: (from, count) => nextRuns(cron, from, count),
    isDue: (at) => isDue(cron, at),
    previous: (at) => previousRun(cron, at),
  };
}

/**
 * The first fire time a schedule has let pass: after its last run, or its last change (an edit or
 * enable starts afresh), whichever is later, and more than `graceMs` before `now`. Undefined when none
 * was missed. Used for launchd's catch-ups and by `rein doctor`.
 */
export function missedFireTime(
  schedule: { cron: string; created_at: string; updated_at: string; last_run?: { at: string } },
  now: Date,
  graceMs: number,
): Date | undefined {
  const since = Math.max(Date.parse(schedule.last_run?.at ?? schedule.created_at), Date.parse(schedule.updated_at));
  const first = checkCron(schedule.cron).next(new Date(since), 1)[0];
  return first && first.getTime() < now.getTime() - graceMs ? first : undefined;
}
