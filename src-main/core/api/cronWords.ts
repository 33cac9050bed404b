/**
 * A cron expression in words ("every weekday at 09:00", "every 15 minutes", "on the 1st of every month
 * at 00:00") and fire times as people read them ("Wed 2 Dec 09:00"), for the page's schedule form and
 * cards. The words are made from the expanded sets the parser (cron.ts) produces, the same sets the
 * backends fire on, so they say what will happen — including classic cron's day rule (day of month OR
 * day of week when both are restricted, AND when one of them starts with `*`). Shapes without a short
 * reading fall back to a plain one ("at minutes 0, 7 and 14 past hours 9 and 17").
 *
 * Every function that needs "now" or a time zone takes them, so tests pin them; without a zone, times
 * are the local time of whoever runs it (the page: the browser's, the machine's).
 */
import { nextRuns, parseCron, wallClock, type CronFieldName, type ParsedCron, type WallClock } from './cron.js';

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DAY_SHORT = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const MONTH_SHORT = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** How many times a short list of clock times may hold before the words switch to "every …". */
const MAX_LISTED_TIMES = 6;

const pad2 = (n: number): string => String(n).padStart(2, '0');
const clock = (hour: number, minute: number): string => `${pad2(hour)}:${pad2(minute)}`;

/** 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 22nd, 23rd, 31st. */
export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  const suffix = ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return `${n}${suffix}`;
}

/** "a", "a and b", "a, b and c" (`or` for "a, b or c"). */
export function listWords(items: readonly string[], conjunction: 'and' | 'or' = 'and'): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)!}`;
}

/** Consecutive values (at least `least` of them) as a range, else undefined. */
function rangeOf(values: readonly number[], least: number): { from: number; to: number } | undefined {
  if (values.length < least) return undefined;
  for (let i = 1; i < values.length; i++) if (values[i] !== values[i - 1]! + 1) return undefined;
  return { from: values[0]!, to: values.at(-1)! };
}

/**
 * Values that repeat evenly round the whole field — `*\/15` (0, 15, 30, 45), `5-59/15`, `*\/6` in
 * hours — so "every 15 minutes" is true across the boundary too (`*\/7` is not: :56 is followed by :00).
 */
function evenStep(values: readonly number[], width: number): { start: number; step: number } | undefined {
  if (values.length < 2) return undefined;
  const step = values[1]! - values[0]!;
  if (width % step !== 0 || values[0]! >= step || values.length !== width / step) return undefined;
  for (let i = 2; i < values.length; i++) if (values[i]! - values[i - 1]! !== step) return undefined;
  return { start: values[0]!, step };
}

/** A reading of the minute and hour fields: a few clock times (`at`), or something that repeats (`every`). */
type TimePart = { kind: 'at'; times: string[] } | { kind: 'every'; text: string };

const minuteMarks = (minutes: readonly number[]): string => listWords(minutes.map((m) => `:${pad2(m)}`));
const plainHours = (hours: readonly number[]): string =>
  `hour${hours.length > 1 ? 's' : ''} ${listWords(hours.map(String))}`;

function timePart(minutes: readonly number[], hours: readonly number[]): TimePart {
  const allMinutes = minutes.length === 60;
  const allHours = hours.length === 24;
  if (!allMinutes && minutes.length * hours.length <= MAX_LISTED_TIMES) {
    return { kind: 'at', times: hours.flatMap((h) => minutes.map((m) => clock(h, m))) };
  }
  const hourRange = rangeOf(hours, 1);
  if (allMinutes) {
    if (allHours) return { kind: 'every', text: 'every minute' };
    if (hourRange)
      return { kind: 'every', text: `every minute from ${clock(hourRange.from, 0)} to ${clock(hourRange.to, 59)}` };
    return { kind: 'every', text: `every minute of ${plainHours(hours)}` };
  }
  const minuteStep = evenStep(minutes, 60);
  // :15 and :45 read better as such than as "every 30 minutes, starting at :15".
  if (minuteStep && (minuteStep.start === 0 || minutes.length > 2)) {
    const every = `every ${minuteStep.step} minutes`;
    const starting = minuteStep.start === 0 ? '' : `, starting at :${pad2(minuteStep.start)}`;
    if (allHours) return { kind: 'every', text: every + starting };
    if (hourRange)
      return {
        kind: 'every',
        text: `${every} from ${clock(hourRange.from, minutes[0]!)} to ${clock(hourRange.to, minutes.at(-1)!)}`,
      };
    return { kind: 'every', text: `${every}${starting}, in ${plainHours(hours)}` };
  }
  if (minutes.length <= 4) {
    const only = minutes.length === 1 ? minutes[0]! : undefined;
    if (allHours) return { kind: 'every', text: only === 0 ? 'every hour' : `every hour at ${minuteMarks(minutes)}` };
    const hourStep = evenStep(hours, 24);
    if (hourStep && only !== undefined) {
      const starting = hourStep.start === 0 && only === 0 ? '' : `, starting at ${clock(hourStep.start, only)}`;
      return { kind: 'every', text: `every ${hourStep.step} hours${starting}` };
    }
    if (hourRange && only !== undefined)
      return { kind: 'every', text: `every hour from ${clock(hourRange.from, only)} to ${clock(hourRange.to, only)}` };
    if (hourRange)
      return {
        kind: 'every',
        text: `every hour from ${clock(hourRange.from, minutes[0]!)} to ${clock(hourRange.to, minutes.at(-1)!)}, at ${minuteMarks(minutes)}`,
      };
  }
  const minuteRange = rangeOf(minutes, 3);
  const mins = minuteRange
    ? `minutes ${minuteRange.from} to ${minuteRange.to}`
    : `minute${minutes.length > 1 ? 's' : ''} ${listWords(minutes.map(String))}`;
  return { kind: 'every', text: `at ${mins} past ${allHours ? 'every hour' : plainHours(hours)}` };
}

/** Day-of-week sets in words. Sunday sorts last, so FRI,SAT,SUN reads "Friday to Sunday". */
interface Weekdays {
  /** "weekdays", "Mondays", "Mondays and Fridays", "Monday to Thursday". */
  plural: string;
  /** What follows "on" / stands after a time: "on weekdays", "from Monday to Thursday". */
  on: string;
  /** For "every …" with one time: "weekday", "Monday"; undefined when it does not read well. */
  every?: string;
  /** For the AND rule: "a weekday", "a Monday or Friday". */
  single: string;
}

function weekdayWords(weekdays: readonly number[]): Weekdays {
  const monFirst = weekdays.map((d) => (d === 0 ? 7 : d)).sort((a, b) => a - b);
  const name = (d: number) => DAY_NAMES[d % 7]!;
  if (monFirst.join() === '1,2,3,4,5')
    return { plural: 'weekdays', on: 'on weekdays', every: 'weekday', single: 'a weekday' };
  if (monFirst.join() === '6,7') return { plural: 'weekends', on: 'on weekends', single: 'a Saturday or Sunday' };
  if (monFirst.length === 1)
    return {
      plural: `${name(monFirst[0]!)}s`,
      on: `on ${name(monFirst[0]!)}s`,
      every: name(monFirst[0]!),
      single: `a ${name(monFirst[0]!)}`,
    };
  const range = rangeOf(monFirst, 3);
  if (range) {
    const text = `${name(range.from)} to ${name(range.to)}`;
    return { plural: text, on: `from ${text}`, single: `a day from ${text}` };
  }
  const plural = listWords(monFirst.map((d) => `${name(d)}s`));
  return { plural, on: `on ${plural}`, single: `a ${listWords(monFirst.map(name), 'or')}` };
}

/** "January", "January and July", "March to June" (three or more in a row). */
function monthList(months: readonly number[]): { text: string; range: boolean } {
  const range = rangeOf(months, 3);
  if (range) return { text: `${MONTH_NAMES[range.from - 1]} to ${MONTH_NAMES[range.to - 1]}`, range: true };
  return { text: listWords(months.map((m) => MONTH_NAMES[m - 1]!)), range: false };
}

/** After a day of the month: "of every month", "of January", "of every month from March to June". */
function ofMonths(months: readonly number[]): string {
  if (months.length === 12) return 'of every month';
  const list = monthList(months);
  return list.range ? `of every month from ${list.text}` : `of ${list.text}`;
}

/** After days of the week or "every day": "", " in January", " from March to June". */
function inMonths(months: readonly number[]): string {
  if (months.length === 12) return '';
  const list = monthList(months);
  return list.range ? ` from ${list.text}` : ` in ${list.text}`;
}

/** Days of the month: "the 1st", "the 1st and 15th", "the 1st to the 7th", "odd-numbered days". */
function monthDays(days: readonly number[]): string {
  const odd = Array.from({ length: 16 }, (_, i) => 2 * i + 1);
  const even = Array.from({ length: 15 }, (_, i) => 2 * i + 2);
  if (days.join() === odd.join()) return 'odd-numbered days';
  if (days.join() === even.join()) return 'even-numbered days';
  const range = rangeOf(days, 3);
  if (range) return `the ${ordinal(range.from)} to the ${ordinal(range.to)}`;
  return `the ${listWords(days.map(ordinal))}`;
}

/** The expression in words, as classic cron runs it. Lower case, no full stop. */
export function describeCron(cron: ParsedCron): string {
  const time = timePart(cron.minute, cron.hour);
  const at = time.kind === 'at' ? `at ${listWords(time.times)}` : '';
  const one = time.kind === 'at' && time.times.length === 1;
  /** A time and a day phrase: "at 09:00 on Mondays", "every 15 minutes on Mondays". */
  const join = (days: string) => `${time.kind === 'at' ? at : time.text} ${days}`;
  const dom = () => `on ${monthDays(cron.day)} ${ofMonths(cron.month)}`;
  const dow = weekdayWords(cron.weekday);
  const months = inMonths(cron.month);
  switch (cron.dayRule) {
    case 'any':
      if (time.kind === 'every') return time.text + months;
      return one ? `every day${months} ${at}` : `${at} every day${months}`;
    case 'dow':
      if (one && dow.every) return `every ${dow.every}${months} ${at}`;
      return join(dow.on + months);
    case 'dom':
      return time.kind === 'at' ? `${dom()} ${at}` : join(dom());
    case 'or':
      return join(`${dom()}, and ${dow.on}${months}`);
    case 'and':
      return join(`${dom()}, if it is ${dow.single}`);
  }
}

export interface CronTimeOptions {
  /** What "now" is (tests pin it); the current time by default. */
  now?: Date;
  /** An IANA time zone; the local time by default. */
  timeZone?: string;
}

/** Days since an epoch for a wall-clock date, so two dates can be compared as calendar days. */
const dayNumber = (w: WallClock): number => Math.round(Date.UTC(w.year, w.month - 1, w.day) / 86_400_000);

/** "Wed 2 Dec 09:00"; the year too when it is not this year's ("Fri 1 Jan 2027 08:30"). */
export function formatFireTime(at: Date, opts: CronTimeOptions = {}): string {
  const w = wallClock(at, opts.timeZone);
  const now = wallClock(opts.now ?? new Date(), opts.timeZone);
  return `${dateWords(w, now)} ${clock(w.hour, w.minute)}`;
}

function dateWords(w: WallClock, now: WallClock): string {
  return `${DAY_SHORT[w.weekday]} ${w.day} ${MONTH_SHORT[w.month - 1]}${w.year === now.year ? '' : ` ${w.year}`}`;
}

/**
 * Fire times as one line: "Wed 2 Dec 09:00, Thu 3 Dec 09:00". A time on the same day as the one before
 * it shows the clock only: "Wed 2 Dec 09:00, 09:15, 09:30".
 */
export function formatFireTimes(times: readonly Date[], opts: CronTimeOptions = {}): string {
  const now = wallClock(opts.now ?? new Date(), opts.timeZone);
  let previous: WallClock | undefined;
  const out: string[] = [];
  for (const t of times) {
    const w = wallClock(t, opts.timeZone);
    const sameDay = previous !== undefined && dayNumber(previous) === dayNumber(w);
    out.push(sameDay ? clock(w.hour, w.minute) : `${dateWords(w, now)} ${clock(w.hour, w.minute)}`);
    previous = w;
  }
  return out.join(', ');
}

/**
 * A past moment, near ones relative: "just now", "12 min ago", "2 h ago" (earlier today),
 * "yesterday 09:00", then the date ("Mon 30 Nov 09:00"). A moment in the future (a clock a little
 * ahead) reads "just now".
 */
export function formatPast(at: Date, opts: CronTimeOptions = {}): string {
  const nowDate = opts.now ?? new Date();
  const ms = nowDate.getTime() - at.getTime();
  if (ms < 60_000) return 'just now';
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ago`;
  const w = wallClock(at, opts.timeZone);
  const now = wallClock(nowDate, opts.timeZone);
  const days = dayNumber(now) - dayNumber(w);
  if (days === 0) return `${Math.floor(ms / 3_600_000)} h ago`;
  if (days === 1) return `yesterday ${clock(w.hour, w.minute)}`;
  return `${dateWords(w, now)} ${clock(w.hour, w.minute)}`;
}

export type CronPreview =
  | { ok: true; normalized: string; words: string; next: Date[]; nextText: string }
  | { ok: false; field: CronFieldName | 'expression'; message: string };

/**
 * What the schedule form shows while an expression is typed: its words and next fire times (computed
 * as the backends compute them), or the parser's message naming the field that is wrong.
 */
export function previewCron(text: string, opts: CronTimeOptions & { count?: number } = {}): CronPreview {
  const parsed = parseCron(text);
  if (!parsed.ok) return { ok: false, field: parsed.field, message: parsed.message };
  const now = opts.now ?? new Date();
  const next = nextRuns(parsed.cron, now, opts.count ?? 3, opts.timeZone);
  return {
    ok: true,
    normalized: parsed.cron.normalized,
    words: describeCron(parsed.cron),
    next,
    nextText: formatFireTimes(next, { now, ...(opts.timeZone ? { timeZone: opts.timeZone } : {}) }),
  };
}
