/**
 * Cron expressions the launchd expansion must get exactly right: every field kind, names, steps,
 * lists, ranges, the OR day rule and its degenerate forms, Feb 29, days 29–31 in short months, macros
 * and large expansions. `dicts` is the StartCalendarInterval length each must produce.
 */
import { nextRuns, type ParsedCron } from '../../../src-main/core/schedule/cron.js';
export interface CorpusEntry {
  expr: string;
  dicts: number;
  note: string;
}

export const CORPUS: readonly CorpusEntry[] = [
  // Minute and hour: wildcards, steps, ranges, lists.
  { expr: '* * * * *', dicts: 1, note: 'every minute: one empty dict' },
  { expr: '*/1 * * * *', dicts: 1, note: '*/1 is *' },
  { expr: '0-59 0-23 * * *', dicts: 1, note: 'full ranges are wildcards' },
  { expr: '*/5 * * * *', dicts: 12, note: 'step in minutes' },
  { expr: '*/15 * * * *', dicts: 4, note: 'quarter hours' },
  { expr: '5-55/10 * * * *', dicts: 6, note: 'range with step' },
  { expr: '1,2,3,5,8,13,21,34,55 * * * *', dicts: 9, note: 'minute list' },
  { expr: '0-58 * * * *', dicts: 59, note: 'all but one minute' },
  { expr: '0 * * * *', dicts: 1, note: 'hourly' },
  { expr: '0 */2 * * *', dicts: 12, note: 'step in hours' },
  { expr: '0 1-23/2 * * *', dicts: 12, note: 'odd hours' },
  { expr: '0,30 8-18 * * *', dicts: 22, note: 'list × range' },
  { expr: '*/2 */2 * * *', dicts: 360, note: 'two steps' },
  { expr: '*/20 9-17 * * 1-5', dicts: 135, note: 'office hours on weekdays' },
  // Macros.
  { expr: '@hourly', dicts: 1, note: '0 * * * *' },
  { expr: '@daily', dicts: 1, note: '0 0 * * *' },
  { expr: '@midnight', dicts: 1, note: '0 0 * * *' },
  { expr: '@weekly', dicts: 1, note: '0 0 * * 0' },
  { expr: '@monthly', dicts: 1, note: '0 0 1 * *' },
  { expr: '@yearly', dicts: 1, note: '0 0 1 1 *' },
  { expr: '@annually', dicts: 1, note: '0 0 1 1 *' },
  // Day of week: numbers, names, Sunday as 0 and 7, steps.
  { expr: '0 9 * * 1-5', dicts: 5, note: 'weekdays' },
  { expr: '0 9 * * MON-FRI', dicts: 5, note: 'weekday names' },
  { expr: '30 8 * * mon,wed,fri', dicts: 3, note: 'lower-case names' },
  { expr: '0 0 * * 0', dicts: 1, note: 'Sunday as 0' },
  { expr: '0 0 * * 7', dicts: 1, note: 'Sunday as 7 → Weekday 0' },
  { expr: '0 12 * * 5-7', dicts: 3, note: 'Friday to Sunday with 7' },
  { expr: '0 0 * * SUN,SAT', dicts: 2, note: 'weekend names' },
  { expr: '0 0 * * */2', dicts: 4, note: 'step in weekdays (0,2,4,6)' },
  { expr: '0 22 * * 1-5', dicts: 5, note: 'weeknights' },
  // Day of month, including days some months lack.
  { expr: '15 10 1 * *', dicts: 1, note: 'first of the month' },
  { expr: '0 0 1,15 * *', dicts: 2, note: 'day list' },
  { expr: '0 9 1-7 * *', dicts: 7, note: 'first week by day' },
  { expr: '0 0 */2 * *', dicts: 16, note: 'odd days (the * makes the weekday side every day)' },
  { expr: '0 0 */1 * 1-5', dicts: 5, note: 'full day of month starting with *: weekdays only' },
  { expr: '0 0 29 2 *', dicts: 1, note: 'Feb 29: leap years only' },
  { expr: '0 0 31 * *', dicts: 1, note: '31st: seven months a year' },
  { expr: '0 0 30 * *', dicts: 1, note: '30th: every month but February' },
  { expr: '45 23 29-31 * *', dicts: 3, note: '29–31 in every month' },
  { expr: '0 6 31 1-11 *', dicts: 6, note: '31 with listed months: the short ones are left out' },
  { expr: '0 6 31 1-12 *', dicts: 1, note: 'all twelve months listed is a wildcard' },
  { expr: '0 12 30,31 2,4,6 *', dicts: 2, note: 'only Apr 30 and Jun 30 exist' },
  { expr: '0 0 * 2 *', dicts: 1, note: 'every day of February' },
  // Months.
  { expr: '0 9 * JAN,JUL *', dicts: 2, note: 'month names' },
  { expr: '0 0 1 jan-mar *', dicts: 3, note: 'month name range' },
  { expr: '0 0 1 */3 *', dicts: 4, note: 'quarterly (1,4,7,10)' },
  { expr: '0 0 * DEC SAT', dicts: 1, note: 'weekday within a month' },
  { expr: '0 12 * 3-5 1-5', dicts: 15, note: 'weekdays in spring' },
  // The OR day rule (both restricted, neither starts with *).
  { expr: '30 8 1,15 * MON', dicts: 3, note: 'OR: 1st, 15th and Mondays' },
  { expr: '0 0 13 * FRI', dicts: 2, note: 'OR: every 13th and every Friday' },
  { expr: '0 9 1-7 * 1', dicts: 8, note: 'OR, not "first Monday"' },
  { expr: '0 0 29 2 1', dicts: 2, note: 'OR with Feb 29: leap day and every Monday in February' },
  { expr: '0 0 1-31 * 1', dicts: 1, note: 'OR with every day: every day' },
  { expr: '0 0 *,15 * MON', dicts: 1, note: 'a day field starting with * ANDs: Mondays only' },
  { expr: '0 0 31 4,6 0', dicts: 2, note: 'OR where the day never exists: Sundays in April and June' },
  // Large expansions.
  { expr: '0-58 0-22 * * *', dicts: 1357, note: 'thousand-odd dicts' },
  { expr: '0-58 0-22 1-7 * *', dicts: 9499, note: 'just under the cap' },
];

/** Refused for launchd, with the reason. */
export const UNREPRESENTABLE: readonly { expr: string; reason: 'unrepresentable' | 'too_many' }[] = [
  { expr: '0 9 */2 * 1-5', reason: 'unrepresentable' },
  { expr: '0 9 1-15 * */2', reason: 'unrepresentable' },
  { expr: '0-58 0-22 1-8 * *', reason: 'too_many' },
  { expr: '0-29 0-22 1-15 * *', reason: 'too_many' },
];

/** croner's fire times from start (inclusive) to end (exclusive), in UTC. */
export function cronerTimes(cron: ParsedCron, startMs: number, endMs: number): number[] {
  const out: number[] = [];
  let cursor = new Date(startMs - 1000);
  for (;;) {
    const batch = nextRuns(cron, cursor, 5000, 'UTC');
    for (const d of batch) {
      if (d.getTime() >= endMs) return out;
      out.push(d.getTime());
    }
    if (batch.length < 5000) return out;
    cursor = batch[batch.length - 1]!;
  }
}
