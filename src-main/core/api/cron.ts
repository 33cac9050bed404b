/**
 * Cron expressions as classic cron reads them: five fields (minute, hour, day of month, month, day of
 * week), month and day names, ranges, lists, steps and the `@hourly`…`@yearly` macros — and nothing
 * that one classic cron reads differently from another, or from croner.
 *
 * The reference is Vixie cron as ISC cron 4.1 and cronie ship it (`entry.c`, `cron.c`):
 * - A range must run forwards (`5-1` is refused there). A day-name range that would wrap, like
 *   `FRI-SUN` (5-0) or `MON-SUN` (1-0), is refused there but read as 5-7 or 1-7 by croner and others,
 *   so it is ambiguous: refused, with `FRI,SAT,SUN` / `5-7` suggested. `5-7` itself is fine: 7 is
 *   Sunday, as 0 is.
 * - A step needs a range or `*` before it. `5/10` is an error in ISC cron, `5` in Vixie 3.0 (which
 *   skips the rest of the field), and `5-59/10` in BSD cron: refused, with `5-59/10` suggested.
 * - Day of month and day of week: when both are restricted, a day matching either runs (OR); when
 *   either field starts with `*` (`*`, `*\/2`, `*,5`), the two are ANDed instead — that is what
 *   `DOM_STAR`/`DOW_STAR` do in Vixie's `cron.c`, so `0 9 *\/2 * 1-5` runs on odd days that are
 *   weekdays, not on every odd day and every weekday.
 * - Values and names: digits, or the three-letter English names (any case) where the field has them;
 *   `L`, `W`, `#`, `?`, `+`, seconds and years belong to other dialects and are refused.
 *
 * Fire times come from croner, configured from the expanded sets so it reads them the same way
 * (`domAndDow` for the AND rule); `isDue` is a plain matcher on the wall clock. The tests check the
 * two agree over a year for the whole corpus.
 *
 * It lives in the contract (core/api) because the page reads expressions as they are typed, with the
 * same parser and the same fire times as the backends: nothing here may use Node (croner runs in
 * browsers too). core/schedule/cron.ts re-exports it for the backends.
 */
import { Cron } from 'croner';

export type CronFieldName = 'minute' | 'hour' | 'day of month' | 'month' | 'day of week';

/** The order of the five fields in an expression. */
export const CRON_FIELDS: readonly CronFieldName[] = ['minute', 'hour', 'day of month', 'month', 'day of week'];

/**
 * How day of month and day of week combine:
 * - `any`: every day (both unrestricted, or an OR where one side is every day);
 * - `dom`: only day of month restricts; `dow`: only day of week restricts;
 * - `or`: both restricted, a day matching either runs (classic cron's rule);
 * - `and`: both restricted and one field starts with `*`, so a day must match both (Vixie).
 */
export type DayRule = 'or' | 'and' | 'dom' | 'dow' | 'any';

export interface ParsedCron {
  /** The expression as it should be stored: single spaces, names upper-case, a macro lower-case. */
  readonly normalized: string;
  /** The five fields after a macro is replaced (`@daily` → `0 0 * * *`), normalised like `normalized`. */
  readonly fields: readonly [string, string, string, string, string];
  /** Expanded values, sorted: minute 0–59, hour 0–23, day 1–31, month 1–12, weekday 0–6 (Sunday 0, 7 read as 0). */
  readonly minute: readonly number[];
  readonly hour: readonly number[];
  readonly day: readonly number[];
  readonly month: readonly number[];
  readonly weekday: readonly number[];
  readonly dayRule: DayRule;
}

export interface CronError {
  readonly ok: false;
  /** The field that is wrong, or `expression` for the shape of the whole thing. */
  readonly field: CronFieldName | 'expression';
  /** `<field>: <what is wrong>`, for a person (the CLI's exit-2 message). */
  readonly message: string;
}

export type CronParseResult = { readonly ok: true; readonly cron: ParsedCron } | CronError;

/** The macros classic cron knows, as five fields. `@reboot` is not a time and is refused. */
export const CRON_MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const MONTH_NAMES = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

interface FieldSpec {
  name: CronFieldName;
  /** Lowest and highest value written; for day of week 0–7 (both Sunday), as in Vixie. */
  min: number;
  max: number;
  /** The number of distinct values, the largest step that still means something. */
  width: number;
  /** Names for the values min, min+1, … (months from 1, days from 0). */
  names?: readonly string[];
}

const SPECS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59, width: 60 },
  { name: 'hour', min: 0, max: 23, width: 24 },
  { name: 'day of month', min: 1, max: 31, width: 31 },
  { name: 'month', min: 1, max: 12, width: 12, names: MONTH_NAMES },
  { name: 'day of week', min: 0, max: 7, width: 7, names: DAY_NAMES },
];

/** The longest day of each month over the years (February 29 in leap years). */
const MAX_DAY = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

class FieldProblem extends Error {}

interface ParsedField {
  values: number[];
  /** The field's text starts with `*` (Vixie's DOM_STAR / DOW_STAR). */
  star: boolean;
  text: string;
}

interface Token {
  value: number;
  /** Written as a name (`MON`), not digits. */
  named: boolean;
}

function readToken(text: string, spec: FieldSpec, item: string): Token {
  if (/^\d+$/.test(text)) {
    const value = text.length > 4 ? Number.POSITIVE_INFINITY : Number(text);
    if (value < spec.min || value > spec.max) {
      const extra = spec.name === 'day of week' ? ' (0 and 7 are Sunday)' : '';
      throw new FieldProblem(`${text} is out of range ${spec.min}-${spec.max}${extra}`);
    }
    return { value, named: false };
  }
  if (/^[A-Za-z]+$/.test(text)) {
    const upper = text.toUpperCase();
    if (spec.names) {
      const index = spec.names.indexOf(upper);
      if (index >= 0) return { value: index + spec.min, named: true };
    }
    if (
      upper === 'L' ||
      upper === 'LW' ||
      upper === 'W' ||
      (upper.endsWith('L') && spec.names?.includes(upper.slice(0, -1)))
    ) {
      throw new FieldProblem(dialectMessage(item));
    }
    if (!spec.names) throw new FieldProblem(`"${text}" is not a number (names are only for month and day of week)`);
    throw new FieldProblem(
      `"${text}" is not a ${spec.name === 'month' ? 'month' : 'day'} name (${spec.names.join(', ')})`,
    );
  }
  if (/^\d+[LW]$/i.test(text)) throw new FieldProblem(dialectMessage(item));
  throw new FieldProblem(`cannot read "${item}"`);
}

function dialectMessage(item: string): string {
  return `"${item}": L (last) and W (nearest weekday) are not classic cron`;
}

/** Consecutive runs as ranges: [5, 6, 7] → `5-7`, [11, 12, 1, 2] → `11-12,1-2`. */
function compress(values: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < values.length;) {
    let j = i;
    while (j + 1 < values.length && values[j + 1] === values[j]! + 1) j++;
    out.push(j === i ? `${values[i]}` : `${values[i]}-${values[j]}`);
    i = j + 1;
  }
  return out.join(',');
}

/**
 * What a backwards range probably meant, wrapping round: `FRI-SUN` → `FRI,SAT,SUN or 5-7`,
 * `NOV-FEB` → `NOV,DEC,JAN,FEB or 11-12,1-2`, `50-10` → `50-59,0-10`.
 */
function wrapSuggestion(a: Token, b: Token, spec: FieldSpec): string {
  const weekday = spec.name === 'day of week';
  const values: number[] = [];
  if (weekday) {
    // Walk the week from a to b; Sunday after Saturday is written 7 so the range stays a range.
    let v = a.value % 7;
    for (let n = 0; n < 7; n++) {
      values.push(v === 0 && values.length > 0 ? 7 : v);
      if (v === b.value % 7) break;
      v = (v + 1) % 7;
    }
  } else {
    for (let v = a.value; v <= spec.max; v++) values.push(v);
    for (let v = spec.min; v <= b.value; v++) values.push(v);
  }
  const numeric = compress(values);
  if (!spec.names || !(a.named || b.named)) return numeric;
  const names = values.map((v) => spec.names![weekday ? v % 7 : v - spec.min]!);
  return `${names.join(',')} or ${numeric}`;
}

function parseField(text: string, spec: FieldSpec): ParsedField {
  if (text.includes('?')) throw new FieldProblem(`"?" is not classic cron (use *)`);
  if (text.includes('#')) throw new FieldProblem(`"#" (nth weekday of the month) is not classic cron`);
  if (text.includes('+')) throw new FieldProblem(`"+" is not classic cron`);
  const set = new Set<number>();
  for (const item of text.split(',')) {
    if (item === '') throw new FieldProblem(`"${text}" has an empty item in its list`);
    const m = /^([^-/]+)(?:-([^-/]+))?(?:\/([^-/]*))?$/.exec(item);
    if (!m) {
      if (/[LW]/i.test(item) && /^[\dLW\-/]+$/i.test(item)) throw new FieldProblem(dialectMessage(item));
      throw new FieldProblem(`cannot read "${item}" (expected a value, a range a-b, *, or either with /step)`);
    }
    const [, first, last, stepText] = m as unknown as [string, string, string | undefined, string | undefined];
    let lo: number;
    let hi: number;
    if (first === '*') {
      if (last !== undefined) throw new FieldProblem(`"${item}": * is already the whole range`);
      lo = spec.min;
      hi = spec.max;
    } else {
      const a = readToken(first, spec, item);
      if (last === undefined) {
        if (stepText !== undefined) {
          throw new FieldProblem(
            `"${item}": a step needs a range or * before it, and classic crons disagree on this form ` +
              `(ISC cron refuses it, Vixie cron 3 reads ${first}, BSD cron ${first}-${spec.max}/${stepText}); ` +
              `write ${first}-${spec.name === 'day of week' ? 6 : spec.max}/${stepText} or */${stepText}`,
          );
        }
        set.add(a.value);
        continue;
      }
      const b = readToken(last, spec, item);
      if (a.value > b.value) {
        const weekdayNames = spec.name === 'day of week' && (a.named || b.named);
        throw new FieldProblem(
          weekdayNames
            ? `"${item}" is ambiguous: classic cron numbers the days from SUN = 0, so this range runs backwards and is refused, while other crons read it as wrapping round the week; write ${wrapSuggestion(a, b, spec)}`
            : `"${item}" runs backwards (ranges go from low to high); for a range that wraps round, write ${wrapSuggestion(a, b, spec)}`,
        );
      }
      lo = a.value;
      hi = b.value;
    }
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText)) throw new FieldProblem(`"${item}": the step must be a number`);
      step = stepText.length > 4 ? Number.POSITIVE_INFINITY : Number(stepText);
      if (step < 1) throw new FieldProblem(`"${item}": a step of 0 is not allowed`);
      if (step > spec.width)
        throw new FieldProblem(`"${item}": the step ${stepText} is larger than the field (at most ${spec.width})`);
    }
    for (let v = lo; v <= hi; v += step) set.add(v);
  }
  if (spec.name === 'day of week' && set.delete(7)) set.add(0);
  return { values: [...set].sort((x, y) => x - y), star: text.startsWith('*'), text };
}

/** The field's text as stored: names upper-case. */
const normalizeField = (text: string): string => text.toUpperCase();

const isFull = (values: readonly number[], count: number): boolean => values.length === count;

function dayRuleOf(dom: ParsedField, dow: ParsedField): DayRule {
  const domFull = isFull(dom.values, 31);
  const dowFull = isFull(dow.values, 7);
  if (dom.star || dow.star) {
    // Vixie: either field starting with * makes the test dom AND dow.
    if (domFull && dowFull) return 'any';
    if (domFull) return 'dow';
    if (dowFull) return 'dom';
    return 'and';
  }
  // Both restricted in writing: dom OR dow, which is every day when either side is every day.
  if (domFull || dowFull) return 'any';
  return 'or';
}

const fail = (field: CronFieldName | 'expression', what: string): CronError => ({
  ok: false,
  field,
  message: field === 'expression' ? what : `${field}: ${what}`,
});

export function parseCron(expr: string): CronParseResult {
  if (typeof expr !== 'string') return fail('expression', 'the cron expression must be a string');
  const trimmed = expr.trim();
  if (trimmed === '') return fail('expression', 'the cron expression is empty');
  // One line, as in a crontab: tabs may separate fields, no other control character may appear.
  for (const ch of trimmed) {
    const code = ch.charCodeAt(0);
    if ((code < 0x20 && ch !== '\t') || code === 0x7f)
      return fail('expression', 'the cron expression must be one line without control characters');
  }
  const parts = trimmed.split(/\s+/);
  let normalized: string;
  /** As written (error messages quote them so), and as stored. */
  let texts: string[];
  let stored: string[];
  if (parts[0]!.startsWith('@')) {
    const macro = parts[0]!.toLowerCase();
    if (macro === '@reboot')
      return fail(
        'expression',
        '@reboot is not a time: schedules run at times (try @hourly, @daily, @weekly, @monthly or @yearly)',
      );
    const fields = CRON_MACROS[macro];
    if (!fields) return fail('expression', `unknown macro ${parts[0]} (known: ${Object.keys(CRON_MACROS).join(', ')})`);
    if (parts.length > 1) return fail('expression', `${macro} stands alone; nothing may follow it`);
    normalized = macro;
    texts = fields.split(' ');
    stored = texts;
  } else {
    if (parts.length === 6 || parts.length === 7) {
      return fail(
        'expression',
        `expected five fields (minute hour day-of-month month day-of-week), got ${parts.length}: seconds and year fields are not supported`,
      );
    }
    if (parts.length !== 5)
      return fail(
        'expression',
        `expected five fields (minute hour day-of-month month day-of-week), got ${parts.length}`,
      );
    texts = parts;
    stored = parts.map(normalizeField);
    normalized = stored.join(' ');
  }
  const parsed: ParsedField[] = [];
  for (let i = 0; i < 5; i++) {
    const spec = SPECS[i]!;
    try {
      parsed.push(parseField(texts[i]!, spec));
    } catch (e) {
      if (e instanceof FieldProblem) return fail(spec.name, e.message);
      throw e;
    }
  }
  const [minute, hour, dom, month, dow] = parsed as [ParsedField, ParsedField, ParsedField, ParsedField, ParsedField];
  const dayRule = dayRuleOf(dom, dow);
  if (dayRule === 'dom' || dayRule === 'and') {
    // Day 30 in February (and the like) never comes; classic cron would accept it and never run.
    const possible = dom.values.some((d) => month.values.some((m) => d <= MAX_DAY[m]!));
    if (!possible) {
      return fail(
        'day of month',
        `day ${dom.text} never occurs in month ${month.text}, so this expression would never run`,
      );
    }
  }
  const cron: ParsedCron = Object.freeze({
    normalized,
    fields: Object.freeze(stored.slice()) as unknown as ParsedCron['fields'],
    minute: Object.freeze(minute.values),
    hour: Object.freeze(hour.values),
    day: Object.freeze(dom.values),
    month: Object.freeze(month.values),
    weekday: Object.freeze(dow.values),
    dayRule,
  });
  return { ok: true, cron };
}

// ---------------------------------------------------------------------------------------------------
// Matching and fire times

/** A minute on a wall clock. month 1–12, weekday 0–6 (Sunday 0). */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  weekday: number;
}

interface Matcher {
  minute: Uint8Array;
  hour: Uint8Array;
  day: Uint8Array;
  month: Uint8Array;
  weekday: Uint8Array;
}

const matchers = new WeakMap<ParsedCron, Matcher>();

function bits(values: readonly number[], size: number): Uint8Array {
  const a = new Uint8Array(size);
  for (const v of values) a[v] = 1;
  return a;
}

function matcherOf(cron: ParsedCron): Matcher {
  let m = matchers.get(cron);
  if (!m) {
    m = {
      minute: bits(cron.minute, 60),
      hour: bits(cron.hour, 24),
      day: bits(cron.day, 32),
      month: bits(cron.month, 13),
      weekday: bits(cron.weekday, 7),
    };
    matchers.set(cron, m);
  }
  return m;
}

/** Whether classic cron runs the expression at this wall-clock minute. */
export function matchesWallClock(cron: ParsedCron, t: WallClock): boolean {
  const m = matcherOf(cron);
  if (!m.minute[t.minute] || !m.hour[t.hour] || !m.month[t.month]) return false;
  switch (cron.dayRule) {
    case 'any':
      return true;
    case 'dom':
      return m.day[t.day] === 1;
    case 'dow':
      return m.weekday[t.weekday] === 1;
    case 'or':
      return m.day[t.day] === 1 || m.weekday[t.weekday] === 1;
    case 'and':
      return m.day[t.day] === 1 && m.weekday[t.weekday] === 1;
  }
}

const isUtc = (tz: string | undefined): boolean => tz === 'UTC' || tz === 'Etc/UTC' || tz === 'GMT';
const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of an instant: local time, or in an IANA time zone. */
export function wallClock(at: Date, timezone?: string): WallClock {
  if (timezone === undefined) {
    return {
      year: at.getFullYear(),
      month: at.getMonth() + 1,
      day: at.getDate(),
      hour: at.getHours(),
      minute: at.getMinutes(),
      weekday: at.getDay(),
    };
  }
  if (isUtc(timezone)) {
    return {
      year: at.getUTCFullYear(),
      month: at.getUTCMonth() + 1,
      day: at.getUTCDate(),
      hour: at.getUTCHours(),
      minute: at.getUTCMinutes(),
      weekday: at.getUTCDay(),
    };
  }
  let f = zoneFormats.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    zoneFormats.set(timezone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(at)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const year = p.year!;
  const month = p.month!;
  const day = p.day!;
  const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
  return { year, month, day, hour: p.hour! % 24, minute: p.minute!, weekday };
}

/** Whether the minute containing `at` is a fire time (local time, or the given IANA time zone). */
export function isDue(cron: ParsedCron, at: Date, timezone?: string): boolean {
  return matchesWallClock(cron, wallClock(at, timezone));
}

/**
 * The croner pattern and options that read the expanded sets as classic cron does: an unrestricted day
 * field is `*`; the AND rule sets `domAndDow`.
 */
export function cronerPattern(cron: ParsedCron): { pattern: string; domAndDow: boolean } {
  const list = (values: readonly number[], count: number) => (values.length === count ? '*' : values.join(','));
  const day = cron.dayRule === 'dom' || cron.dayRule === 'or' || cron.dayRule === 'and' ? cron.day.join(',') : '*';
  const weekday =
    cron.dayRule === 'dow' || cron.dayRule === 'or' || cron.dayRule === 'and' ? cron.weekday.join(',') : '*';
  const pattern = [list(cron.minute, 60), list(cron.hour, 24), day, list(cron.month, 12), weekday].join(' ');
  return { pattern, domAndDow: cron.dayRule === 'and' };
}

const crons = new WeakMap<ParsedCron, Map<string, Cron>>();

function cronerOf(cron: ParsedCron, timezone: string | undefined): Cron {
  let byZone = crons.get(cron);
  if (!byZone) crons.set(cron, (byZone = new Map()));
  const key = timezone ?? '';
  let c = byZone.get(key);
  if (!c) {
    const { pattern, domAndDow } = cronerPattern(cron);
    // A fixed offset is exact for UTC and much cheaper than croner's time-zone arithmetic.
    const zone = timezone === undefined ? {} : isUtc(timezone) ? { utcOffset: 0 } : { timezone };
    c = new Cron(pattern, { mode: '5-part', domAndDow, ...zone });
    byZone.set(key, c);
  }
  return c;
}

/**
 * The next `count` fire times strictly after `from`, in local time or the given IANA time zone. Around
 * daylight-saving changes croner's rules apply (a fixed time in the skipped hour runs after the jump).
 */
export function nextRuns(cron: ParsedCron, from: Date, count: number, timezone?: string): Date[] {
  if (count <= 0) return [];
  return cronerOf(cron, timezone).nextRuns(count, from);
}

/** The latest fire time at or before `at` (its minute included), or null. */
export function previousRun(cron: ParsedCron, at: Date, timezone?: string): Date | null {
  // croner's previousRuns looks before its reference: start from the last second of at's minute.
  const lastSecond = new Date(Math.floor(at.getTime() / 60_000) * 60_000 + 59_000);
  return cronerOf(cron, timezone).previousRuns(1, lastSecond)[0] ?? null;
}
