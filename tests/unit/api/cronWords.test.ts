// The schedule form's reading of a cron expression: the words for each shape (names, steps, lists,
// ranges, macros, classic cron's day rule), the fire times as the backends compute them, formatted in a
// pinned time zone against a pinned "now", and the parser's field-named message for a bad one.
import { describe, expect, it } from 'vitest';
import { nextRuns, parseCron } from '../../../src-main/core/api/cron.js';
import {
  describeCron,
  formatFireTime,
  formatFireTimes,
  formatPast,
  listWords,
  ordinal,
  previewCron,
} from '../../../src-main/core/api/cronWords.js';
import { checkCron } from '../../../src-main/core/schedule/cronCheck.js';

const words = (expr: string): string => {
  const r = parseCron(expr);
  if (!r.ok) throw new Error(`${expr}: ${r.message}`);
  return describeCron(r.cron);
};

/** Tuesday 1 December 2026, noon in Berlin. */
const NOW = new Date('2026-12-01T12:00:00+01:00');
const BERLIN = { now: NOW, timeZone: 'Europe/Berlin' };

describe('describeCron', () => {
  it.each([
    // Times on every day, macros.
    ['0 9 * * *', 'every day at 09:00'],
    ['@daily', 'every day at 00:00'],
    ['@midnight', 'every day at 00:00'],
    ['0 9,17 * * *', 'at 09:00 and 17:00 every day'],
    ['30 */6 * * *', 'at 00:30, 06:30, 12:30 and 18:30 every day'],
    // Repeating times.
    ['* * * * *', 'every minute'],
    ['*/15 * * * *', 'every 15 minutes'],
    ['0-59/20 * * * *', 'every 20 minutes'],
    ['5-59/15 * * * *', 'every 15 minutes, starting at :05'],
    ['@hourly', 'every hour'],
    ['30 * * * *', 'every hour at :30'],
    ['15,45 * * * *', 'every hour at :15 and :45'],
    ['0 */2 * * *', 'every 2 hours'],
    ['30 1-23/2 * * *', 'every 2 hours, starting at 01:30'],
    ['0 9-17 * * *', 'every hour from 09:00 to 17:00'],
    ['0 9,10,11,12,13,14,15 * * *', 'every hour from 09:00 to 15:00'],
    ['0,30 9-17 * * *', 'every 30 minutes from 09:00 to 17:30'],
    ['*/15 9-17 * * 1-5', 'every 15 minutes from 09:00 to 17:45 on weekdays'],
    ['* 9 * * *', 'every minute from 09:00 to 09:59'],
    // A step that does not divide the hour evenly is read plainly: :56 is followed by :00.
    ['*/7 * * * *', 'at minutes 0, 7, 14, 21, 28, 35, 42, 49 and 56 past every hour'],
    ['1-7 * * * *', 'at minutes 1 to 7 past every hour'],
    ['0,20 9,12,15,18 * * *', 'at minutes 0 and 20 past hours 9, 12, 15 and 18'],
    // Day of week: names, numbers, 7 as Sunday, ranges, lists.
    ['0 9 * * 1-5', 'every weekday at 09:00'],
    ['0 9 * * MON-FRI', 'every weekday at 09:00'],
    ['0 9 * * mon,tue,wed,thu,fri', 'every weekday at 09:00'],
    ['0 9,17 * * 1-5', 'at 09:00 and 17:00 on weekdays'],
    ['0 9,17 * * MON', 'at 09:00 and 17:00 on Mondays'],
    ['0 9 * * MON', 'every Monday at 09:00'],
    ['0 0 * * 7', 'every Sunday at 00:00'],
    ['@weekly', 'every Sunday at 00:00'],
    ['0 10 * * SAT,SUN', 'at 10:00 on weekends'],
    ['0 10 * * 0,6', 'at 10:00 on weekends'],
    ['0 9 * * MON,WED,FRI', 'at 09:00 on Mondays, Wednesdays and Fridays'],
    ['0 9 * * 1-4', 'at 09:00 from Monday to Thursday'],
    ['0 9 * * 5-7', 'at 09:00 from Friday to Sunday'],
    ['0 9 * * FRI,SAT,SUN', 'at 09:00 from Friday to Sunday'],
    ['0 9 * * 1,7', 'at 09:00 on Mondays and Sundays'],
    ['*/30 * * * 1-5', 'every 30 minutes on weekdays'],
    // Day of month and month.
    ['0 0 1 * *', 'on the 1st of every month at 00:00'],
    ['@monthly', 'on the 1st of every month at 00:00'],
    ['@yearly', 'on the 1st of January at 00:00'],
    ['0 9 1,15 * *', 'on the 1st and 15th of every month at 09:00'],
    ['0 9 2,3,22,23,31 * *', 'on the 2nd, 3rd, 22nd, 23rd and 31st of every month at 09:00'],
    ['0 9 11-13 * *', 'on the 11th to the 13th of every month at 09:00'],
    ['0 8 1-7 * *', 'on the 1st to the 7th of every month at 08:00'],
    ['0 9 1 MAR-JUN *', 'on the 1st of every month from March to June at 09:00'],
    ['0 9 1 1,7 *', 'on the 1st of January and July at 09:00'],
    ['0 0 29 FEB *', 'on the 29th of February at 00:00'],
    ['0 * 1 * *', 'every hour on the 1st of every month'],
    ['0 9 * JAN,JUL *', 'every day in January and July at 09:00'],
    ['0 12 * 12 1-5', 'every weekday in December at 12:00'],
    ['0 9 * 6-8 SAT', 'every Saturday from June to August at 09:00'],
    ['*/10 * * 12 *', 'every 10 minutes in December'],
    // Classic cron's day rule: both restricted → either (OR); one starting with * → both (AND, Vixie).
    ['0 9 1 * MON', 'at 09:00 on the 1st of every month, and on Mondays'],
    ['0 9 13 * 5', 'at 09:00 on the 13th of every month, and on Fridays'],
    ['0 9 */2 * 1-5', 'at 09:00 on odd-numbered days of every month, if it is a weekday'],
    ['0 9 2-30/2 * *', 'on even-numbered days of every month at 09:00'],
    ['0 9 1-31 * MON', 'every day at 09:00'],
    ['0 9 * * 0-7', 'every day at 09:00'],
    [
      '0 9 */3 * MON,FRI',
      'at 09:00 on the 1st, 4th, 7th, 10th, 13th, 16th, 19th, 22nd, 25th, 28th and 31st of every month, if it is a Monday or Friday',
    ],
  ])('%s → %s', (expr, expected) => {
    expect(words(expr)).toBe(expected);
  });

  it('reads what the backends fire on: the AND rule runs only on odd weekdays, the OR rule on either', () => {
    const and = parseCron('0 9 */2 * 1-5');
    const or = parseCron('0 9 1 * MON');
    if (!and.ok || !or.ok) throw new Error('expected both to parse');
    const days = (cron: typeof and.cron) =>
      nextRuns(cron, NOW, 4, 'Europe/Berlin').map((d) => formatFireTime(d, BERLIN));
    // 3 Dec is a Thursday; 5 Dec (odd) is a Saturday and 4 Dec (a Friday) is even: both skipped.
    expect(days(and.cron)).toEqual(['Thu 3 Dec 09:00', 'Mon 7 Dec 09:00', 'Wed 9 Dec 09:00', 'Fri 11 Dec 09:00']);
    expect(days(or.cron)).toEqual(['Mon 7 Dec 09:00', 'Mon 14 Dec 09:00', 'Mon 21 Dec 09:00', 'Mon 28 Dec 09:00']);
  });
});

describe('the small word helpers', () => {
  it.each([
    [1, '1st'],
    [2, '2nd'],
    [3, '3rd'],
    [4, '4th'],
    [11, '11th'],
    [12, '12th'],
    [13, '13th'],
    [21, '21st'],
    [22, '22nd'],
    [23, '23rd'],
    [30, '30th'],
    [31, '31st'],
  ])('ordinal(%i) is %s', (n, text) => {
    expect(ordinal(n)).toBe(text);
  });

  it('joins lists with commas and a last "and" or "or"', () => {
    expect(listWords([])).toBe('');
    expect(listWords(['a'])).toBe('a');
    expect(listWords(['a', 'b'])).toBe('a and b');
    expect(listWords(['a', 'b', 'c'], 'or')).toBe('a, b or c');
  });
});

describe('fire times in words', () => {
  it('formats in the given time zone, with the year only when it is not this year', () => {
    expect(formatFireTime(new Date('2026-12-02T08:00:00Z'), BERLIN)).toBe('Wed 2 Dec 09:00');
    expect(formatFireTime(new Date('2026-12-02T08:00:00Z'), { now: NOW, timeZone: 'America/New_York' })).toBe(
      'Wed 2 Dec 03:00',
    );
    expect(formatFireTime(new Date('2027-01-01T07:30:00Z'), BERLIN)).toBe('Fri 1 Jan 2027 08:30');
    // "This year" is the year in that zone: 31 Dec 23:30 in UTC is already 2027 in Berlin.
    expect(
      formatFireTime(new Date('2027-01-01T00:30:00Z'), {
        now: new Date('2026-12-31T23:30:00Z'),
        timeZone: 'Europe/Berlin',
      }),
    ).toBe('Fri 1 Jan 01:30');
  });

  it('shows only the clock for a time on the same day as the one before it', () => {
    const times = ['2026-12-01T11:15:00Z', '2026-12-01T11:30:00Z', '2026-12-02T08:00:00Z', '2026-12-02T16:00:00Z'].map(
      (t) => new Date(t),
    );
    expect(formatFireTimes(times, BERLIN)).toBe('Tue 1 Dec 12:15, 12:30, Wed 2 Dec 09:00, 17:00');
    expect(formatFireTimes([], BERLIN)).toBe('');
  });

  it('reads past moments relative to now: minutes, hours today, yesterday, then the date', () => {
    const ago = (iso: string) => formatPast(new Date(iso), BERLIN);
    expect(ago('2026-12-01T11:59:30+01:00')).toBe('just now');
    expect(ago('2026-12-01T12:05:00+01:00')).toBe('just now');
    expect(ago('2026-12-01T11:48:00+01:00')).toBe('12 min ago');
    expect(ago('2026-12-01T09:40:00+01:00')).toBe('2 h ago');
    expect(ago('2026-12-01T00:10:00+01:00')).toBe('11 h ago');
    expect(ago('2026-11-30T09:00:00+01:00')).toBe('yesterday 09:00');
    expect(ago('2026-11-30T23:30:00+01:00')).toBe('yesterday 23:30');
    expect(ago('2026-11-29T09:00:00+01:00')).toBe('Sun 29 Nov 09:00');
    expect(ago('2025-11-29T09:00:00+01:00')).toBe('Sat 29 Nov 2025 09:00');
    // Just after midnight, 40 minutes back is still "min ago", not "yesterday".
    expect(
      formatPast(new Date('2026-11-30T23:30:00+01:00'), {
        now: new Date('2026-12-01T00:10:00+01:00'),
        timeZone: 'Europe/Berlin',
      }),
    ).toBe('40 min ago');
  });
});

describe('previewCron (the form, as an expression is typed)', () => {
  it('gives the words and the next fire times of a valid expression', () => {
    const p = previewCron('0 9 * * 1-5', BERLIN);
    expect(p).toMatchObject({
      ok: true,
      normalized: '0 9 * * 1-5',
      words: 'every weekday at 09:00',
      nextText: 'Wed 2 Dec 09:00, Thu 3 Dec 09:00, Fri 4 Dec 09:00',
    });
    expect(previewCron('*/15 * * * *', { ...BERLIN, count: 5 })).toMatchObject({
      ok: true,
      words: 'every 15 minutes',
      nextText: 'Tue 1 Dec 12:15, 12:30, 12:45, 13:00, 13:15',
    });
    expect(previewCron('@monthly', BERLIN)).toMatchObject({
      ok: true,
      nextText: 'Fri 1 Jan 2027 00:00, Mon 1 Feb 2027 00:00, Mon 1 Mar 2027 00:00',
    });
  });

  it('computes the same fire times as the backends (checkCron), in local time by default', () => {
    const now = new Date();
    for (const expr of ['0 9 * * 1-5', '*/15 * * * *', '0 9 */2 * 1-5', '0 9 1 * MON', '@yearly']) {
      const p = previewCron(expr, { now, count: 5 });
      if (!p.ok) throw new Error(`${expr}: ${p.message}`);
      expect(p.next.map((d) => d.toISOString())).toEqual(
        checkCron(expr)
          .next(now, 5)
          .map((d) => d.toISOString()),
      );
    }
  });

  it('fires in the zone it was asked for: 09:00 in New York is 15:00 in Berlin', () => {
    const p = previewCron('0 9 * * *', { now: NOW, timeZone: 'America/New_York' });
    if (!p.ok) throw new Error(p.message);
    expect(p.nextText).toBe('Tue 1 Dec 09:00, Wed 2 Dec 09:00, Thu 3 Dec 09:00');
    expect(formatFireTime(p.next[0]!, BERLIN)).toBe('Tue 1 Dec 15:00');
  });

  it.each([
    ['0 9 * * FRI-SUN', 'day of week', /^day of week: "FRI-SUN" is ambiguous.*FRI,SAT,SUN or 5-7$/],
    ['61 * * * *', 'minute', /^minute: 61 is out of range 0-59$/],
    ['0 24 * * *', 'hour', /^hour: 24 is out of range 0-23$/],
    ['0 9 32 * *', 'day of month', /^day of month: 32 is out of range 1-31$/],
    ['0 9 * FOO *', 'month', /^month: "FOO" is not a month name/],
    ['0 9 30 2 *', 'day of month', /never occurs in month 2/],
    ['0 9 * *', 'expression', /^expected five fields .* got 4$/],
    ['0 9', 'expression', /got 2$/],
  ])('refuses %s naming the field (%s)', (expr, field, message) => {
    const p = previewCron(expr, BERLIN);
    expect(p.ok).toBe(false);
    if (p.ok) return;
    expect(p.field).toBe(field);
    expect(p.message).toMatch(message);
  });
});
