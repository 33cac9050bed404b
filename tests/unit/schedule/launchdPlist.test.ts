import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isReinError } from '../../../src-main/core/errors.js';
import { isDue, parseCron, type ParsedCron } from '../../../src-main/core/schedule/cron.js';
import { intervalMatches, launchdFires, simulateLaunchd } from '../../../src-main/core/schedule/launchdCalendar.js';
import {
  MAX_CALENDAR_INTERVALS,
  buildLaunchdPlist,
  calendarIntervals,
  escapeXml,
  launchdLabel,
  launchdLogPaths,
  launchdPlistFileName,
  parsePlist,
  planCalendarIntervals,
  plistCalendarIntervals,
  serializePlist,
  type CalendarInterval,
} from '../../../src-main/core/schedule/launchdPlist.js';
import { CORPUS, cronerTimes, UNREPRESENTABLE } from './corpus.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'schedule');
const PREFIX = ['/Applications/Rein.app/Contents/MacOS/Rein', '--headless'];
const HOME = '/Users/someone/.rein';
const ENV = { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' };

const parse = (expr: string): ParsedCron => {
  const r = parseCron(expr);
  if (!r.ok) throw new Error(`${expr}: ${r.message}`);
  return r.cron;
};

describe('golden plists', () => {
  const goldens: { name: string; cron: string; env?: Record<string, string>; prefix?: string[]; home?: string }[] = [
    { name: 'weekdays-0900', cron: '0 9 * * 1-5' },
    { name: 'every-15-minutes', cron: '*/15 * * * *' },
    { name: 'every-minute', cron: '* * * * *' },
    { name: 'or-days', cron: '30 8 1,15 * MON' },
    { name: 'feb-29', cron: '0 12 29 2 *' },
    { name: 'month-names', cron: '0 0 1 JAN,JUL *' },
    { name: 'short-months-31', cron: '0 6 31 1-11 *' },
    { name: 'sunday-7', cron: '0 18 * * 5-7' },
    { name: 'hourly-macro', cron: '@hourly' },
    {
      name: 'xml-escaping',
      cron: '@daily',
      env: { PATH: '/usr/bin', 'A&B': 'x < y > z & "q" \'s\'', UNICODE: 'Zoë — 東京 🚀' },
      prefix: ['/Users/Tom & Jerry/dev/<rein>/node', '/Users/Tom & Jerry/dev/<rein>/bin/rein.js'],
      home: '/Users/Tom & Jerry/.rein "dev"',
    },
  ];

  it.each(goldens)('$name ($cron)', ({ name, cron, env, prefix, home }) => {
    const plist = buildLaunchdPlist({
      id: 'a1b2c3d4',
      cron,
      programPrefix: prefix ?? PREFIX,
      reinHome: home ?? HOME,
      env: env ?? ENV,
    });
    const file = join(FIXTURES, `${name}.plist`);
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, plist.xml);
    expect(existsSync(file), `${file} is missing: run with UPDATE_GOLDEN=1 and review it`).toBe(true);
    expect(plist.xml).toBe(readFileSync(file, 'utf8'));
    // And it reads back to what was meant.
    const back = parsePlist(plist.xml) as Record<string, unknown>;
    expect(back.Label).toBe('dev.rein.schedule.a1b2c3d4');
    expect(back.ProgramArguments).toEqual([...(prefix ?? PREFIX), 'schedule', 'run', 'a1b2c3d4', '--from-launchd']);
    expect(back.EnvironmentVariables).toEqual({ ...(env ?? ENV), REIN_HOME: home ?? HOME });
    expect(back.StandardOutPath).toBe(`${home ?? HOME}/schedules/a1b2c3d4/launchd.out.log`);
    expect(back.StandardErrorPath).toBe(`${home ?? HOME}/schedules/a1b2c3d4/launchd.err.log`);
    expect(back.StartInterval).toBeUndefined();
    expect(back.RunAtLoad).toBe(true);
    // launchd's SIGTERM → SIGKILL wait: longer than a run takes to stop and record it (cli/stopSignals.ts).
    expect(back.ExitTimeOut).toBe(10);
    expect(plistCalendarIntervals(back as never)).toEqual(plist.intervals);
  });

  it('names, paths and key order', () => {
    expect(launchdLabel('a1b2c3d4')).toBe('dev.rein.schedule.a1b2c3d4');
    expect(launchdPlistFileName('a1b2c3d4')).toBe('dev.rein.schedule.a1b2c3d4.plist');
    expect(launchdLogPaths('/h', 'a1b2c3d4')).toEqual({
      dir: '/h/schedules/a1b2c3d4',
      stdout: '/h/schedules/a1b2c3d4/launchd.out.log',
      stderr: '/h/schedules/a1b2c3d4/launchd.err.log',
    });
    expect(() => launchdLabel('../x')).toThrow(/cannot name a launchd job/);
    expect(() => launchdLabel('a.b')).toThrow(/cannot name a launchd job/);
    const xml = buildLaunchdPlist({
      id: 'a1b2c3d4',
      cron: '1 2 3 4 *',
      programPrefix: PREFIX,
      reinHome: HOME,
      env: { Z: '1', A: '2' },
    }).xml;
    const keys = [...xml.matchAll(/<key>([^<]+)<\/key>/g)].map((m) => m[1]);
    expect(keys).toEqual([
      'Label',
      'AssociatedBundleIdentifiers',
      'ProgramArguments',
      'EnvironmentVariables',
      'A',
      'REIN_HOME',
      'Z',
      'StandardOutPath',
      'StandardErrorPath',
      'StartCalendarInterval',
      'Minute',
      'Hour',
      'Day',
      'Month',
      'RunAtLoad',
      'ExitTimeOut',
    ]);
    // Started at load too (login): a time missed while the Mac was off is caught up then.
    expect(xml).toContain(
      '\t<key>RunAtLoad</key>\n\t<true/>\n\t<key>ExitTimeOut</key>\n\t<integer>10</integer>\n</dict>',
    );
  });

  it('REIN_HOME is the home given, whatever env says; a relative home is made absolute', () => {
    const p = buildLaunchdPlist({
      id: 'a1b2c3d4',
      cron: '@daily',
      programPrefix: PREFIX,
      reinHome: 'rel/home',
      env: { REIN_HOME: '/elsewhere' },
    });
    const env = (parsePlist(p.xml) as { EnvironmentVariables: Record<string, string> }).EnvironmentVariables;
    expect(env.REIN_HOME).toBe(join(process.cwd(), 'rel/home'));
  });

  it('refuses text XML cannot carry, bad programs and bad environment names', () => {
    expect(() =>
      buildLaunchdPlist({ id: 'a1b2c3d4', cron: '@daily', programPrefix: ['/bin/rein\u0000'], reinHome: HOME }),
    ).toThrow(/XML cannot represent/);
    expect(() =>
      buildLaunchdPlist({
        id: 'a1b2c3d4',
        cron: '@daily',
        programPrefix: ['/bin/rein'],
        reinHome: HOME,
        env: { X: 'a\u0007b' },
      }),
    ).toThrow(/XML cannot represent/);
    expect(() =>
      buildLaunchdPlist({
        id: 'a1b2c3d4',
        cron: '@daily',
        programPrefix: ['/bin/rein'],
        reinHome: HOME,
        env: { X: '\uD800' },
      }),
    ).toThrow(/XML cannot represent/);
    expect(() => buildLaunchdPlist({ id: 'a1b2c3d4', cron: '@daily', programPrefix: [], reinHome: HOME })).toThrow(
      /non-empty list/,
    );
    expect(() =>
      buildLaunchdPlist({ id: 'a1b2c3d4', cron: '@daily', programPrefix: ['/bin/rein', ''], reinHome: HOME }),
    ).toThrow(/non-empty/);
    expect(() =>
      buildLaunchdPlist({
        id: 'a1b2c3d4',
        cron: '@daily',
        programPrefix: ['/bin/rein'],
        reinHome: HOME,
        env: { 'A=B': 'x' },
      }),
    ).toThrow(/environment variable/);
    expect(escapeXml(`<a href="x">&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;');
  });

  it('parsePlist reads the subset back, whitespace in strings included, and refuses the rest', () => {
    const value = { s: '  two spaces  ', e: '', n: -3, t: true, f: false, a: [], d: {}, nested: [{ k: ['x', 1] }] };
    expect(parsePlist(serializePlist(value))).toEqual(value);
    expect(() => parsePlist('<plist version="1.0"><dict><key>a</key><real>1.5</real></dict></plist>')).toThrow(
      /unexpected <real>/,
    );
    expect(() =>
      parsePlist(
        '<plist version="1.0"><dict><key>a</key><string>x</string><key>a</key><string>y</string></dict></plist>',
      ),
    ).toThrow(/duplicate/);
    expect(() => parsePlist('<plist version="1.0"><dict>')).toThrow(/ended early/);
  });
});

describe('StartCalendarInterval expansion', () => {
  it.each(CORPUS)('$expr: $dicts dicts ($note)', ({ expr, dicts }) => {
    const plan = planCalendarIntervals(expr);
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.intervals.length).toBe(dicts);
    for (const d of plan.intervals) {
      // Never Day and Weekday in one dict (launchd ORs those); never a Weekday 7; keys only from the five.
      expect(d.Day !== undefined && d.Weekday !== undefined).toBe(false);
      expect(d.Weekday === 7).toBe(false);
    }
    // No two dicts alike: the smallest expansion has no duplicates.
    expect(new Set(plan.intervals.map((d) => JSON.stringify(d))).size).toBe(plan.intervals.length);
  });

  it('omits wildcards, and writes an empty dict for every minute', () => {
    expect(calendarIntervals('* * * * *')).toEqual([{}]);
    expect(calendarIntervals('*/5 * * * *')).toEqual(
      [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55].map((Minute) => ({ Minute })),
    );
    expect(calendarIntervals('0 9 * * 1-5')).toEqual(
      [1, 2, 3, 4, 5].map((Weekday) => ({ Minute: 0, Hour: 9, Weekday })),
    );
    expect(calendarIntervals('0 0 * * 7')).toEqual([{ Minute: 0, Hour: 0, Weekday: 0 }]);
  });

  it('writes the OR as Day dicts and Weekday dicts side by side', () => {
    expect(calendarIntervals('30 8 1,15 * MON')).toEqual([
      { Minute: 30, Hour: 8, Day: 1 },
      { Minute: 30, Hour: 8, Day: 15 },
      { Minute: 30, Hour: 8, Weekday: 1 },
    ]);
  });

  it('leaves out days a listed month never has', () => {
    expect(calendarIntervals('0 0 29-31 2,4 *')).toEqual([
      { Minute: 0, Hour: 0, Day: 29, Month: 2 },
      { Minute: 0, Hour: 0, Day: 29, Month: 4 },
      { Minute: 0, Hour: 0, Day: 30, Month: 4 },
    ]);
  });

  it.each(UNREPRESENTABLE)('refuses $expr ($reason)', ({ expr, reason }) => {
    const plan = planCalendarIntervals(expr);
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(plan.reason).toBe(reason);
    if (reason === 'unrepresentable')
      expect(plan.message).toMatch(/both restricted.*cannot be a launchd job.*Restrict one of the two fields/);
    else {
      expect(plan.count).toBeGreaterThan(MAX_CALENDAR_INTERVALS);
      expect(plan.message).toMatch(/at most 10,000.*simpler expression/);
    }
    try {
      calendarIntervals(expr);
      expect.unreachable();
    } catch (e) {
      expect(isReinError(e, 'invalid_input')).toBe(true);
      expect((e as Error).message).toMatch(/^cron: /);
      expect((e as { details: { field: string; reason: string } }).details).toMatchObject({ field: 'cron', reason });
    }
  });

  it('refuses an invalid expression with the cron error', () => {
    const plan = planCalendarIntervals('0 0 32 * *');
    expect(plan).toMatchObject({ ok: false, reason: 'invalid', field: 'day of month' });
  });

  it('counts before building: a huge expansion is refused with its count, and no dicts made', () => {
    const plan = planCalendarIntervals('0-58 0-22 1-30 1-11 *');
    expect(plan).toMatchObject({ ok: false, reason: 'too_many', count: 59 * 23 * (30 * 11 - 1) }); // no 30 February
    expect(plan).not.toHaveProperty('intervals');
  });
});

function firstDifference(a: readonly number[], b: readonly number[]): string | null {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) {
      const show = (x: number | undefined) => (x === undefined ? 'nothing' : new Date(x).toISOString());
      return `#${i}: launchd ${show(a[i])}, cron ${show(b[i])}`;
    }
  }
  return null;
}

describe('the plist fires exactly when the cron does (400 days, simulated launchd)', () => {
  const start = Date.UTC(2027, 10, 15); // through Feb 29, 2028 and every month's end
  const DAYS = 400;
  const end = start + DAYS * 86_400_000;

  it.each(CORPUS)('$expr', ({ expr }) => {
    const cron = parse(expr);
    // Through the XML, as launchd would read the file.
    const xml = buildLaunchdPlist({ id: 'a1b2c3d4', cron, programPrefix: PREFIX, reinHome: HOME }).xml;
    const dicts = plistCalendarIntervals(parsePlist(xml));
    const fired = simulateLaunchd(dicts, new Date(start), DAYS);
    const due = cronerTimes(cron, start, end);
    expect(due.length).toBeGreaterThan(0);
    expect(fired.length).toBe(due.length);
    expect(firstDifference(fired, due)).toBeNull();
    // launchd-842 (Weekday ignores Month; Day+Weekday in one dict ORs): never misses a cron time, and
    // whatever it adds the due check refuses.
    const old = simulateLaunchd(dicts, new Date(start), DAYS, 'launchd-842');
    const oldSet = new Set(old);
    expect(due.every((t) => oldSet.has(t))).toBe(true);
    const extra = old.filter((t) => !isDue(cron, new Date(t), 'UTC'));
    expect(extra.length).toBe(old.length - due.length);
  });

  it('Feb 29 fires once in the window, in 2028', () => {
    const fired = simulateLaunchd(calendarIntervals('0 0 29 2 *'), new Date(start), DAYS);
    expect(fired.map((t) => new Date(t).toISOString())).toEqual(['2028-02-29T00:00:00.000Z']);
  });

  it('the 31st fires in the seven long months only', () => {
    const fired = simulateLaunchd(calendarIntervals('0 0 31 * *'), new Date(Date.UTC(2028, 0, 1)), 366);
    expect(fired.map((t) => new Date(t).getUTCMonth() + 1)).toEqual([1, 3, 5, 7, 8, 10, 12]);
  });

  it('a Weekday with a Month: launchd-842 fires every month, the documented reading only in that month', () => {
    const dicts = calendarIntervals('0 0 * DEC SAT');
    const from = new Date(Date.UTC(2028, 0, 1));
    expect(simulateLaunchd(dicts, from, 366).length).toBe(5); // Saturdays of December 2028
    expect(simulateLaunchd(dicts, from, 366, 'launchd-842').length).toBe(53);
  });
});

describe('the simulation itself', () => {
  const t = (month: number, day: number, weekday: number, hour: number, minute: number) => ({
    year: 2028,
    month,
    day,
    weekday,
    hour,
    minute,
  });
  it('a dict matches when all its keys match; missing keys are wildcards', () => {
    const d: CalendarInterval = { Minute: 0, Hour: 9, Weekday: 1 };
    expect(intervalMatches(d, t(3, 6, 1, 9, 0))).toBe(true);
    expect(intervalMatches(d, t(3, 6, 1, 9, 1))).toBe(false);
    expect(intervalMatches(d, t(3, 7, 2, 9, 0))).toBe(false);
    expect(intervalMatches({}, t(3, 7, 2, 13, 37))).toBe(true);
  });
  it('an array fires when any dict matches; Weekday 7 is Sunday', () => {
    expect(launchdFires([{ Day: 1 }, { Weekday: 7 }], t(3, 5, 0, 0, 0))).toBe(true);
    expect(launchdFires([{ Day: 1 }, { Weekday: 7 }], t(3, 1, 3, 0, 0))).toBe(true);
    expect(launchdFires([{ Day: 1 }, { Weekday: 7 }], t(3, 2, 4, 0, 0))).toBe(false);
  });
  it('Day and Weekday in one dict: AND as documented, OR in launchd-842', () => {
    const d: CalendarInterval = { Day: 13, Weekday: 5 };
    expect(intervalMatches(d, t(3, 13, 1, 0, 0))).toBe(false);
    expect(intervalMatches(d, t(3, 13, 1, 0, 0), 'launchd-842')).toBe(true);
    expect(intervalMatches(d, t(3, 10, 5, 0, 0), 'launchd-842')).toBe(true);
  });
});
