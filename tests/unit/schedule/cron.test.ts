import { Cron } from 'croner';
import { describe, expect, it } from 'vitest';
import { isReinError } from '../../../src-main/core/errors.js';
import {
  cronerPattern,
  isDue,
  matchesWallClock,
  nextRuns,
  parseCron,
  parseCronOrThrow,
  previousRun,
  wallClock,
  type ParsedCron,
} from '../../../src-main/core/schedule/cron.js';
import { CORPUS, cronerTimes, UNREPRESENTABLE } from './corpus.js';
import { checkCron, missedFireTime } from '../../../src-main/core/schedule/cronCheck.js';

const parse = (expr: string): ParsedCron => {
  const r = parseCron(expr);
  if (!r.ok) throw new Error(`${expr}: ${r.message}`);
  return r.cron;
};
const range = (a: number, b: number, step = 1) =>
  Array.from({ length: Math.floor((b - a) / step) + 1 }, (_, i) => a + i * step);

describe('parseCron: what classic cron accepts', () => {
  it('expands fields into sorted value sets', () => {
    const c = parse('5-55/10 9-17/4 1,15,31 JAN-MAR,dec mon-fri');
    expect(c.minute).toEqual([5, 15, 25, 35, 45, 55]);
    expect(c.hour).toEqual([9, 13, 17]);
    expect(c.day).toEqual([1, 15, 31]);
    expect(c.month).toEqual([1, 2, 3, 12]);
    expect(c.weekday).toEqual([1, 2, 3, 4, 5]);
    expect(c.dayRule).toBe('or');
    expect(c.normalized).toBe('5-55/10 9-17/4 1,15,31 JAN-MAR,DEC MON-FRI');
  });

  it('normalises whitespace and name case, keeps macros', () => {
    expect(parse('  0\t9  *   * \tmon  ').normalized).toBe('0 9 * * MON');
    expect(parse('@Daily').normalized).toBe('@daily');
    expect(parse('@daily').fields).toEqual(['0', '0', '*', '*', '*']);
  });

  it.each([
    ['@hourly', [[0], range(0, 23), range(1, 31), range(1, 12), range(0, 6)]],
    ['@daily', [[0], [0], range(1, 31), range(1, 12), range(0, 6)]],
    ['@midnight', [[0], [0], range(1, 31), range(1, 12), range(0, 6)]],
    ['@weekly', [[0], [0], range(1, 31), range(1, 12), [0]]],
    ['@monthly', [[0], [0], [1], range(1, 12), range(0, 6)]],
    ['@yearly', [[0], [0], [1], [1], range(0, 6)]],
    ['@annually', [[0], [0], [1], [1], range(0, 6)]],
  ])('%s', (expr, sets) => {
    const c = parse(expr);
    expect([c.minute, c.hour, c.day, c.month, c.weekday]).toEqual(sets);
  });

  it('reads Sunday as 0 or 7, and 5-7 as Friday to Sunday', () => {
    expect(parse('0 0 * * 7').weekday).toEqual([0]);
    expect(parse('0 0 * * 0,7').weekday).toEqual([0]);
    expect(parse('0 0 * * 5-7').weekday).toEqual([0, 5, 6]);
    expect(parse('0 0 * * SUN-SAT').dayRule).toBe('any');
    expect(parse('0 0 * * 0-7').dayRule).toBe('any');
  });

  it('steps over * and ranges; a step as wide as the field is one value', () => {
    expect(parse('*/15 * * * *').minute).toEqual([0, 15, 30, 45]);
    expect(parse('*/60 * * * *').minute).toEqual([0]);
    expect(parse('0 0 */10 * *').day).toEqual([1, 11, 21, 31]);
    expect(parse('0 0 1 */5 *').month).toEqual([1, 6, 11]);
    expect(parse('0 0 * * */3').weekday).toEqual([0, 3, 6]);
    expect(parse('0 0 * * 1-7/2').weekday).toEqual([0, 1, 3, 5]);
    expect(parse('0 0 * * MON-FRI/2').weekday).toEqual([1, 3, 5]);
  });

  it('accepts leading zeros, as atoi does', () => {
    expect(parse('05 09 01 02 *').minute).toEqual([5]);
  });

  describe('the day rule (Vixie: a field starting with * makes it AND)', () => {
    it.each([
      ['0 0 * * *', 'any'],
      ['0 0 1 * *', 'dom'],
      ['0 0 * * 1', 'dow'],
      ['0 0 1,15 * 1', 'or'],
      ['0 0 */2 * 1-5', 'and'],
      ['0 0 1-15 * */2', 'and'],
      ['0 0 */2 * *', 'dom'],
      ['0 0 * * */2', 'dow'],
      ['0 0 */1 * 1-5', 'dow'],
      ['0 0 1-5 * */1', 'dom'],
      ['0 0 *,15 * 1', 'dow'],
      ['0 0 1-31 * 1', 'any'],
      ['0 0 1 * 0-6', 'any'],
    ])('%s → %s', (expr, rule) => {
      expect(parse(expr).dayRule).toBe(rule);
    });
  });
});

describe('parseCron: what it refuses, naming the field', () => {
  it.each([
    ['', 'expression', /empty/],
    ['0 9 * * *\n0 10 * * *', 'expression', /one line/],
    ['0 9 * *', 'expression', /five fields.*got 4/],
    ['0 0 9 * * *', 'expression', /got 6: seconds and year fields are not supported/],
    ['0 0 9 * * * 2030', 'expression', /got 7/],
    ['@reboot', 'expression', /@reboot is not a time/],
    ['@every 5m', 'expression', /unknown macro/],
    ['@daily 5', 'expression', /stands alone/],
    ['60 * * * *', 'minute', /60 is out of range 0-59/],
    ['0 24 * * *', 'hour', /24 is out of range 0-23/],
    ['0 0 0 * *', 'day of month', /0 is out of range 1-31/],
    ['0 0 32 * *', 'day of month', /32 is out of range 1-31/],
    ['0 0 1 0 *', 'month', /0 is out of range 1-12/],
    ['0 0 1 13 *', 'month', /13 is out of range 1-12/],
    ['0 0 * * 8', 'day of week', /8 is out of range 0-7/],
    ['5-1 * * * *', 'minute', /runs backwards.*5-59,0-1/],
    ['0 0 1 NOV-FEB *', 'month', /runs backwards.*NOV,DEC,JAN,FEB or 11-12,1-2/],
    ['0 0 * * FRI-SUN', 'day of week', /ambiguous.*FRI,SAT,SUN or 5-7/],
    ['0 0 * * SAT-MON', 'day of week', /ambiguous.*SAT,SUN,MON or 6-7,1/],
    ['0 0 * * MON-SUN', 'day of week', /ambiguous.*1-7/],
    ['0 0 * * 5-0', 'day of week', /runs backwards/],
    ['5/10 * * * *', 'minute', /step needs a range or \*.*5-59\/10/],
    ['0 0 * * MON/2', 'day of week', /step needs a range/],
    ['*/0 * * * *', 'minute', /step of 0/],
    ['*/61 * * * *', 'minute', /larger than the field/],
    ['0 */x * * *', 'hour', /step must be a number/],
    ['1,,2 * * * *', 'minute', /empty item/],
    ['1, * * * *', 'minute', /empty item/],
    [',1 * * * *', 'minute', /empty item/],
    ['0 0 L * *', 'day of month', /L \(last\) and W/],
    ['0 0 LW * *', 'day of month', /L \(last\) and W/],
    ['0 0 15W * *', 'day of month', /L \(last\) and W/],
    ['0 0 * * 5L', 'day of week', /L \(last\) and W/],
    ['0 0 * * FRIL', 'day of week', /L \(last\) and W/],
    ['0 0 * * 5#2', 'day of week', /"#"/],
    ['0 0 ? * *', 'day of month', /"\?"/],
    ['0 0 * * +1', 'day of week', /"\+"/],
    ['0 0 * * monday', 'day of week', /not a day name/],
    ['0 0 1 january *', 'month', /not a month name/],
    ['MON 0 * * *', 'minute', /names are only for month and day of week/],
    ['*-5 * * * *', 'minute', /already the whole range/],
    ['1-2-3 * * * *', 'minute', /cannot read/],
    ['0 0 30 2 *', 'day of month', /never run/],
    ['0 0 31 4,6,9,11 *', 'day of month', /never run/],
    ['0 0 30 2 */2', 'day of month', /never run/],
  ])('%j', (expr, field, message) => {
    const r = parseCron(expr);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.field).toBe(field);
    expect(r.message).toMatch(message);
    if (field !== 'expression') expect(r.message.startsWith(`${field}: `)).toBe(true);
  });

  it('parseCronOrThrow throws invalid_input naming cron', () => {
    try {
      parseCronOrThrow('0 0 32 * *');
      expect.unreachable();
    } catch (e) {
      expect(isReinError(e, 'invalid_input')).toBe(true);
      expect((e as Error).message).toBe('cron: day of month: 32 is out of range 1-31');
      expect((e as { details: unknown }).details).toEqual({ field: 'cron', cronField: 'day of month' });
    }
  });

  it('the expressions it accepts, croner accepts too (in the form handed to it)', () => {
    for (const { expr } of [...CORPUS, ...UNREPRESENTABLE]) {
      const { pattern, domAndDow } = cronerPattern(parse(expr));
      expect(() => new Cron(pattern, { mode: '5-part', domAndDow })).not.toThrow();
    }
  });
});

/** Every minute of a year on a UTC wall clock, computed once. */
function yearOfMinutes(startMs: number, minutes: number) {
  const fields = {
    month: new Uint8Array(minutes),
    day: new Uint8Array(minutes),
    hour: new Uint8Array(minutes),
    minute: new Uint8Array(minutes),
    weekday: new Uint8Array(minutes),
  };
  for (let i = 0; i < minutes; i++) {
    const d = new Date(startMs + i * 60_000);
    fields.month[i] = d.getUTCMonth() + 1;
    fields.day[i] = d.getUTCDate();
    fields.hour[i] = d.getUTCHours();
    fields.minute[i] = d.getUTCMinutes();
    fields.weekday[i] = d.getUTCDay();
  }
  return fields;
}

describe('isDue and nextRuns agree with croner over a year', () => {
  const start = Date.UTC(2027, 10, 15); // includes Feb 29, 2028
  const minutes = 366 * 1440;
  const year = yearOfMinutes(start, minutes);
  const exprs = [
    ...CORPUS.map((c) => c.expr),
    ...UNREPRESENTABLE.map((u) => u.expr),
    '0 0 13 * 5',
    '0 12 * * 1-5',
    '0 0 29 2 *',
    '0 0 */3 * 0',
  ];

  it.each(exprs)('%s', (expr) => {
    const cron = parse(expr);
    const mine: number[] = [];
    const t = { year: 0, month: 0, day: 0, hour: 0, minute: 0, weekday: 0 };
    for (let i = 0; i < minutes; i++) {
      t.month = year.month[i]!;
      t.day = year.day[i]!;
      t.hour = year.hour[i]!;
      t.minute = year.minute[i]!;
      t.weekday = year.weekday[i]!;
      if (matchesWallClock(cron, t)) mine.push(start + i * 60_000);
    }
    const theirs = cronerTimes(cron, start, start + minutes * 60_000);
    expect(mine.length).toBe(theirs.length);
    const firstDiff = mine.findIndex((m, i) => m !== theirs[i]);
    expect(firstDiff === -1 ? null : new Date(mine[firstDiff]!).toISOString()).toBeNull();
    expect(mine.length).toBeGreaterThan(0);
  });

  it('the Vixie AND: odd days that are weekdays, not odd days or weekdays', () => {
    const runs = nextRuns(parse('0 9 */2 * 1-5'), new Date(Date.UTC(2025, 0, 1)), 6, 'UTC').map((d) =>
      d.toISOString().slice(0, 10),
    );
    expect(runs).toEqual(['2025-01-01', '2025-01-03', '2025-01-07', '2025-01-09', '2025-01-13', '2025-01-15']);
  });

  it('the classic OR: the 13th and every Friday', () => {
    const runs = nextRuns(parse('0 0 13 * FRI'), new Date(Date.UTC(2025, 5, 1)), 5, 'UTC').map((d) =>
      d.toISOString().slice(0, 10),
    );
    expect(runs).toEqual(['2025-06-06', '2025-06-13', '2025-06-20', '2025-06-27', '2025-07-04']);
  });
});

describe('time zones and the helpers', () => {
  it('isDue matches croner in a zone with daylight saving, and in local time', () => {
    const zone = 'America/New_York';
    for (const expr of ['0 9 * * 1-5', '*/15 8-18 * * *', '30 2 * * *', '0 0 13 * FRI', '0 9 */2 * 1-5']) {
      const cron = parse(expr);
      const { pattern, domAndDow } = cronerPattern(cron);
      const inZone = new Cron(pattern, { mode: '5-part', domAndDow, timezone: zone });
      const local = new Cron(pattern, { mode: '5-part', domAndDow });
      let at = Date.UTC(2026, 2, 1);
      for (let i = 0; i < 3000; i++, at += 7 * 60_000 + 13_000) {
        const d = new Date(at);
        // croner matches whole minutes only (5-part mode has seconds 0); isDue is about the minute holding d.
        const minute = new Date(Math.floor(at / 60_000) * 60_000);
        expect(isDue(cron, d, zone), `${expr} at ${d.toISOString()}`).toBe(inZone.match(minute));
        expect(isDue(cron, d)).toBe(local.match(minute));
      }
    }
  });

  it('nextRuns is strictly after from; previousRun includes the current minute', () => {
    const cron = parse('0 9 * * *');
    const nine = new Date(Date.UTC(2026, 0, 5, 9, 0, 0));
    expect(nextRuns(cron, nine, 1, 'UTC')[0]!.toISOString()).toBe('2026-01-06T09:00:00.000Z');
    expect(nextRuns(cron, nine, 0, 'UTC')).toEqual([]);
    expect(previousRun(cron, new Date(Date.UTC(2026, 0, 5, 9, 0, 40)), 'UTC')!.toISOString()).toBe(
      '2026-01-05T09:00:00.000Z',
    );
    expect(previousRun(cron, new Date(Date.UTC(2026, 0, 5, 8, 59, 59)), 'UTC')!.toISOString()).toBe(
      '2026-01-04T09:00:00.000Z',
    );
  });

  it('wallClock reads a zone', () => {
    expect(wallClock(new Date(Date.UTC(2026, 6, 1, 3, 30)), 'America/New_York')).toEqual({
      year: 2026,
      month: 6,
      day: 30,
      hour: 23,
      minute: 30,
      weekday: 2,
    });
    expect(wallClock(new Date(Date.UTC(2026, 6, 1, 0, 5)), 'Asia/Kolkata')).toEqual({
      year: 2026,
      month: 7,
      day: 1,
      hour: 5,
      minute: 35,
      weekday: 3,
    });
  });

  it('a Feb 29 schedule waits for the leap year', () => {
    expect(nextRuns(parse('0 0 29 2 *'), new Date(Date.UTC(2026, 0, 1)), 2, 'UTC').map((d) => d.toISOString())).toEqual(
      ['2028-02-29T00:00:00.000Z', '2032-02-29T00:00:00.000Z'],
    );
  });
});

describe('missedFireTime', () => {
  const at = (iso: string) => new Date(iso);
  const daily9 = { cron: '0 9 * * *', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };

  it('is the first fire time after the last run, or the last change, that is past the grace', () => {
    const now = at('2026-01-03T12:00:00.000Z');
    // Nothing ever ran: the first 09:00 after creation was missed (local time, so compare by the cron).
    const first = missedFireTime(daily9, now, 60_000)!;
    expect(first.getTime()).toBeGreaterThan(Date.parse(daily9.created_at));
    expect(first.getMinutes()).toBe(0);
    expect(first.getHours()).toBe(9);
    // Ran after it: only a later time can be missed; ran just now: none.
    expect(missedFireTime({ ...daily9, last_run: { at: now.toISOString() } }, now, 60_000)).toBeUndefined();
    // Changed just now: an edit starts afresh.
    expect(missedFireTime({ ...daily9, updated_at: now.toISOString() }, now, 60_000)).toBeUndefined();
  });

  it('leaves a time inside the grace alone', () => {
    const due = checkCron('*/5 * * * *').next(at('2026-01-03T12:00:30.000Z'), 1)[0]!;
    const s = { cron: '*/5 * * * *', created_at: '2026-01-03T12:00:30.000Z', updated_at: '2026-01-03T12:00:30.000Z' };
    expect(missedFireTime(s, new Date(due.getTime() + 30_000), 60_000)).toBeUndefined();
    expect(missedFireTime(s, new Date(due.getTime() + 90_000), 60_000)).toEqual(due);
  });
});
