/**
 * A model of launchd's StartCalendarInterval: which minutes a list of dicts fires on. The tests hold
 * every plist Rein writes against the fire times of its cron expression with it, and `rein schedule
 * run --from-launchd` can say why launchd started it.
 *
 * Two readings:
 * - `documented` (launchd.plist(5)): a missing key is a wildcard, a dict matches a minute when all its
 *   keys match, an array fires when any dict matches; Weekday 0 and 7 are Sunday. Rein's expansion is
 *   exact under this reading.
 * - `launchd-842`: what the last open-source launchd (launchd-842, `calendarinterval_setalarm` and
 *   `cronemu_wday` in core.c) did: a dict with Weekday ignores its Month, and a dict with both Day and
 *   Weekday fires on either. Rein never writes Day and Weekday in one dict, so under this reading it
 *   fires on a superset of the cron's times (Weekday with Month: every month); the `--from-launchd`
 *   due check drops the extra ones.
 *
 * Neither reading models daylight-saving changes or sleep: launchd coalesces the intervals missed while
 * the Mac slept into one start on wake (launchd.plist(5)), which the due check sees as not due.
 */
import type { WallClock } from './cron.js';
import type { CalendarInterval } from './launchdPlist.js';

export type LaunchdReading = 'documented' | 'launchd-842';

const weekdayOf = (w: number): number => (w === 7 ? 0 : w);

/** Whether the dict's date keys (Month, Day, Weekday) match the day. */
function dateMatches(
  d: CalendarInterval,
  t: Pick<WallClock, 'month' | 'day' | 'weekday'>,
  reading: LaunchdReading,
): boolean {
  const month = d.Month === undefined || d.Month === t.month;
  const day = d.Day === undefined || d.Day === t.day;
  if (d.Weekday === undefined) return month && day;
  const weekday = weekdayOf(d.Weekday) === t.weekday;
  if (reading === 'documented') return month && day && weekday;
  // launchd-842: cronemu_wday(wday, hour, min) knows no month; with a Day as well, the earlier of the two wins.
  return d.Day === undefined ? weekday : (month && day) || weekday;
}

/** Whether one dict fires at the wall-clock minute. */
export function intervalMatches(d: CalendarInterval, t: WallClock, reading: LaunchdReading = 'documented'): boolean {
  if (d.Minute !== undefined && d.Minute !== t.minute) return false;
  if (d.Hour !== undefined && d.Hour !== t.hour) return false;
  return dateMatches(d, t, reading);
}

/** Whether launchd starts the job at the wall-clock minute: any dict matches. */
export function launchdFires(
  dicts: readonly CalendarInterval[],
  t: WallClock,
  reading: LaunchdReading = 'documented',
): boolean {
  return dicts.some((d) => intervalMatches(d, t, reading));
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * Every minute the dicts fire in `days` days from the UTC midnight at or before `from`, on a UTC wall
 * clock (no daylight-saving changes), as epoch milliseconds in order. Works a day at a time: the dicts
 * whose date keys match the day, then the minutes their Hour and Minute cover.
 */
export function simulateLaunchd(
  dicts: readonly CalendarInterval[],
  from: Date,
  days: number,
  reading: LaunchdReading = 'documented',
): number[] {
  const start = Math.floor(from.getTime() / DAY_MS) * DAY_MS;
  const out: number[] = [];
  const minutes = new Uint8Array(1440);
  for (let n = 0; n < days; n++) {
    const dayStart = start + n * DAY_MS;
    const date = new Date(dayStart);
    const t = { month: date.getUTCMonth() + 1, day: date.getUTCDate(), weekday: date.getUTCDay() };
    minutes.fill(0);
    for (const d of dicts) {
      if (!dateMatches(d, t, reading)) continue;
      const hours = d.Hour === undefined ? null : [d.Hour];
      for (let h = 0; h < 24; h++) {
        if (hours && hours[0] !== h) continue;
        if (d.Minute === undefined) minutes.fill(1, h * 60, h * 60 + 60);
        else if (d.Minute >= 0 && d.Minute < 60) minutes[h * 60 + d.Minute] = 1;
      }
    }
    for (let m = 0; m < 1440; m++) if (minutes[m]) out.push(dayStart + m * MINUTE_MS);
  }
  return out;
}
