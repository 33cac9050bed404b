/**
 * One launchd job per schedule: label `dev.rein.schedule.<id>`, file `<label>.plist`, and a
 * `StartCalendarInterval` expanded exactly from the cron expression — never approximated with
 * `StartInterval` (the reference's old backend turned every step into "every N minutes from load").
 *
 * launchd's calendar (launchd.plist(5)): a dict names some of Minute, Hour, Day, Weekday, Month, a
 * missing key is a wildcard, a dict matches a minute when all its keys do, and an array fires when any
 * of its dicts matches. There are no ranges, lists or steps, so the expansion is the cartesian product
 * of the field values, with an unrestricted field left out:
 * - only day of month (or only day of week) restricted: one set of dicts with Day (or Weekday) keys;
 * - both restricted, classic OR: the Day dicts and the Weekday dicts side by side, so either matches
 *   (never Day and Weekday in one dict: launchd's own code ORs those, the documentation ANDs them);
 * - the Vixie AND (`0 9 *\/2 * 1-5`) has no launchd form and is refused as unrepresentable;
 * - a Day that a listed Month never has (30 and 31 in February, 31 in April…) is left out;
 * - at most MAX_CALENDAR_INTERVALS dicts; past that the expression is refused.
 *
 * The XML is written here rather than with the `plist` package: the output must be byte-for-byte
 * stable (golden files, and an unchanged job is detected by comparing bytes), keys in a fixed order,
 * and every string checked for characters XML 1.0 cannot carry — about sixty lines, no dependency.
 * `parsePlist` reads back the subset this writer produces.
 */
import { join, resolve } from 'node:path';
import { ReinError } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { REIN_BUNDLE_ID } from './appLocation.js';
import { parseCron, type CronFieldName, type ParsedCron } from './cron.js';
import { groupDigits } from '../util/groupDigits.js';

export const LAUNCHD_LABEL_PREFIX = 'dev.rein.schedule.';
/** More dicts than this and the expression is refused (launchd keeps one timer per dict). */
export const MAX_CALENDAR_INTERVALS = 10_000;
/** Schedule ids as they may appear in a label and a file name. The store makes 8 hex characters. */
export const LAUNCHD_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** One StartCalendarInterval dict. Absent keys are wildcards. */
export interface CalendarInterval {
  Minute?: number;
  Hour?: number;
  Day?: number;
  Weekday?: number;
  Month?: number;
}

/** The order keys are written in, as launchd.plist(5) lists them. */
export const CALENDAR_KEYS = ['Minute', 'Hour', 'Day', 'Weekday', 'Month'] as const;

export type CalendarPlan =
  | { ok: true; cron: ParsedCron; intervals: CalendarInterval[] }
  | {
      ok: false;
      /** invalid: not a cron expression; unrepresentable: the Vixie AND; too_many: past the cap. */
      reason: 'invalid' | 'unrepresentable' | 'too_many';
      field: CronFieldName | 'expression';
      message: string;
      /** How many dicts it would take (too_many). */
      count?: number;
    };

function checkId(id: string): void {
  if (!LAUNCHD_ID_PATTERN.test(id)) {
    throw new ReinError('invalid_input', `schedule id "${id}" cannot name a launchd job (letters, digits, - and _)`, {
      field: 'id',
    });
  }
}

export function launchdLabel(id: string): string {
  checkId(id);
  return `${LAUNCHD_LABEL_PREFIX}${id}`;
}

export const launchdPlistFileName = (id: string): string => `${launchdLabel(id)}.plist`;

export const launchdPlistPath = (launchAgentsDir: string, id: string): string =>
  join(launchAgentsDir, launchdPlistFileName(id));

/** launchd's stdout and stderr for the job: `<REIN_HOME>/schedules/<id>/launchd.{out,err}.log`. */
export function launchdLogPaths(reinHome: string, id: string): { dir: string; stdout: string; stderr: string } {
  checkId(id);
  const dir = join(reinHome, 'schedules', id);
  return { dir, stdout: join(dir, 'launchd.out.log'), stderr: join(dir, 'launchd.err.log') };
}

/** The longest each month gets (February 29 in leap years). */
const MAX_DAY = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A field's values, or `[undefined]` when it is unrestricted (the key is left out). */
const keyValues = (values: readonly number[], count: number): readonly (number | undefined)[] =>
  values.length === count ? [undefined] : values;

/**
 * The exact StartCalendarInterval of a cron expression, or why there is none. The count is worked
 * out before anything is built, so an expression a million dicts long costs nothing.
 */
export function planCalendarIntervals(input: string | ParsedCron): CalendarPlan {
  let cron: ParsedCron;
  if (typeof input === 'string') {
    const r = parseCron(input);
    if (!r.ok) return { ok: false, reason: 'invalid', field: r.field, message: r.message };
    cron = r.cron;
  } else {
    cron = input;
  }
  if (cron.dayRule === 'and') {
    return {
      ok: false,
      reason: 'unrepresentable',
      field: 'day of month',
      message:
        `day of month "${cron.fields[2]}" and day of week "${cron.fields[4]}" are both restricted and one starts with *, ` +
        `so classic cron runs only on days matching both; launchd can only run on days matching either, so this cannot be a launchd job. ` +
        `Restrict one of the two fields (e.g. "${cron.fields[0]} ${cron.fields[1]} * ${cron.fields[3]} ${cron.fields[4]}"), ` +
        `or use the daemon backend (schedule.backend: daemon)`,
    };
  }
  const minutes = keyValues(cron.minute, 60);
  const hours = keyValues(cron.hour, 24);
  const months = keyValues(cron.month, 12);
  const byDay = cron.dayRule === 'dom' || cron.dayRule === 'or';
  const byWeekday = cron.dayRule === 'dow' || cron.dayRule === 'or';
  // (Month, Day) pairs that exist in some year; Month absent means any month, where every Day 1-31 exists.
  const dayPairs: [number | undefined, number][] = [];
  if (byDay)
    for (const m of months) for (const d of cron.day) if (m === undefined || d <= MAX_DAY[m]!) dayPairs.push([m, d]);
  const dateCount =
    (byDay ? dayPairs.length : 0) +
    (byWeekday ? cron.weekday.length * months.length : 0) +
    (byDay || byWeekday ? 0 : months.length);
  const count = minutes.length * hours.length * dateCount;
  if (count > MAX_CALENDAR_INTERVALS) {
    return {
      ok: false,
      reason: 'too_many',
      field: 'expression',
      count,
      message:
        `"${cron.normalized}" would take ${groupDigits(count)} launchd calendar entries (at most ${groupDigits(MAX_CALENDAR_INTERVALS)}): ` +
        `launchd has no ranges or steps, so every combination of minute, hour and day is one entry. ` +
        `Use a simpler expression — fewer minutes (e.g. */15 instead of a long list), fewer hours, or leave day fields as *`,
    };
  }
  const intervals: CalendarInterval[] = [];
  const push = (month: number | undefined, day: number | undefined, weekday: number | undefined) => {
    for (const hour of hours) {
      for (const minute of minutes) {
        const d: CalendarInterval = {};
        if (minute !== undefined) d.Minute = minute;
        if (hour !== undefined) d.Hour = hour;
        if (day !== undefined) d.Day = day;
        if (weekday !== undefined) d.Weekday = weekday;
        if (month !== undefined) d.Month = month;
        intervals.push(d);
      }
    }
  };
  if (byDay) for (const [m, d] of dayPairs) push(m, d, undefined);
  if (byWeekday) for (const m of months) for (const w of cron.weekday) push(m, undefined, w);
  if (!byDay && !byWeekday) for (const m of months) push(m, undefined, undefined);
  return { ok: true, cron, intervals };
}

/** planCalendarIntervals for callers that want a ReinError (`invalid_input`, `details.field` = `cron`). */
export function calendarIntervals(input: string | ParsedCron): CalendarInterval[] {
  const plan = planCalendarIntervals(input);
  if (!plan.ok) {
    throw new ReinError('invalid_input', `cron: ${plan.message}`, {
      field: 'cron',
      reason: plan.reason,
      cronField: plan.field,
      ...(plan.count !== undefined ? { count: plan.count } : {}),
    });
  }
  return plan.intervals;
}

// ---------------------------------------------------------------------------------------------------
// The plist

export interface LaunchdPlistSpec {
  /** The schedule's id (8 hex characters from the store). */
  id: string;
  cron: string | ParsedCron;
  /**
   * What starts Rein, before `schedule run <id> --from-launchd`: the packaged app's executable with its
   * headless flag, or node and the `rein` launcher in development.
   */
  programPrefix: readonly string[];
  /** REIN_HOME for the job; also where its logs go. */
  reinHome: string;
  /** More environment for the job (PATH, …). REIN_HOME is always reinHome. */
  env?: Readonly<Record<string, string>>;
  /**
   * Also run when the job is loaded (at every login): only a schedule that catches up needs it
   * (catchUp.ts `catchUpNeedsLoadRun`); default true.
   */
  runAtLoad?: boolean;
}

export interface LaunchdPlist {
  label: string;
  fileName: string;
  xml: string;
  programArguments: string[];
  intervals: CalendarInterval[];
  stdoutPath: string;
  stderrPath: string;
}

/** Seconds launchd waits after its SIGTERM before SIGKILL: twice what a run needs to stop and record it. */
export const LAUNCHD_EXIT_TIMEOUT_S = 10;

/** The arguments launchd runs: the prefix, then `schedule run <id> --from-launchd`. */
export function launchdProgramArguments(programPrefix: readonly string[], id: string): string[] {
  checkId(id);
  if (programPrefix.length === 0 || programPrefix.some((p) => typeof p !== 'string' || p === '')) {
    throw new ReinError(
      'invalid_input',
      'the program that launchd starts must be a non-empty list of non-empty strings',
      { field: 'programPrefix' },
    );
  }
  return [...programPrefix, 'schedule', 'run', id, '--from-launchd'];
}

/** Builds the job's plist; throws ReinError `invalid_input` for an expression launchd cannot run. */
export function buildLaunchdPlist(spec: LaunchdPlistSpec): LaunchdPlist {
  const label = launchdLabel(spec.id);
  const intervals = calendarIntervals(spec.cron);
  const programArguments = launchdProgramArguments(spec.programPrefix, spec.id);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.env ?? {})) {
    if (k === '' || k.includes('=') || typeof v !== 'string') {
      throw new ReinError('invalid_input', `environment variable "${k}" cannot be given to a launchd job`, {
        field: 'env',
      });
    }
    env[k] = v;
  }
  const reinHome = resolve(spec.reinHome);
  env.REIN_HOME = reinHome;
  const logs = launchdLogPaths(reinHome, spec.id);
  const root: PlistDict = {
    Label: label,
    // Login Items (System Settings → General) names the job after this app ("Rein"), not "node" or "sh".
    AssociatedBundleIdentifiers: [REIN_BUNDLE_ID],
    ProgramArguments: programArguments,
    EnvironmentVariables: Object.fromEntries(
      Object.keys(env)
        .sort()
        .map((k) => [k, env[k]!]),
    ),
    StandardOutPath: logs.stdout,
    StandardErrorPath: logs.stderr,
    StartCalendarInterval: intervals.map((d) => {
      const o: PlistDict = {};
      for (const k of CALENDAR_KEYS) if (d[k] !== undefined) o[k] = d[k];
      return o;
    }),
    // Also when the job is loaded (at login): launchd does not start a calendar job whose time passed
    // while the Mac was off, so `schedule run --from-launchd` catches such a time up then. A schedule
    // that never catches up (catch_up: skip) has no use for it: without it, a login starts no Electron
    // (or node) process for that schedule. (A time missed while the Mac slept launchd runs at wake.)
    RunAtLoad: spec.runAtLoad ?? true,
    // At logout, shutdown or `launchctl bootout` launchd sends SIGTERM, waits this many seconds, then
    // SIGKILLs. A run stops within 5 s (cli/stopSignals.ts): cancelled, session saved, recorded.
    ExitTimeOut: LAUNCHD_EXIT_TIMEOUT_S,
  };
  return {
    label,
    fileName: `${label}.plist`,
    xml: serializePlist(root),
    programArguments,
    intervals,
    stdoutPath: logs.stdout,
    stderrPath: logs.stderr,
  };
}

/** Writes a plist atomically (temp file in the same folder, fsync, rename, folder sync), mode 0644. */
export async function writeLaunchdPlist(path: string, xml: string): Promise<void> {
  // launchd refuses a job file that others may write; a symlink is replaced, not followed.
  await atomicWriteFile(path, xml, { mode: 0o644, followSymlinks: false });
}

// ---------------------------------------------------------------------------------------------------
// XML: the writer and a reader of the same subset

export type PlistValue = string | number | boolean | PlistValue[] | PlistDict;
export interface PlistDict {
  [key: string]: PlistValue;
}

/** Characters XML 1.0 can carry: tab, newline, return, and U+0020 onwards, less surrogates and U+FFFE/F. */
const XML_INVALID = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

export function escapeXml(text: string): string {
  if (XML_INVALID.test(text)) {
    throw new ReinError(
      'invalid_input',
      `a launchd job cannot carry the text ${JSON.stringify(text)}: it holds a character XML cannot represent`,
      { field: 'plist' },
    );
  }
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}

const PLIST_HEAD =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n' +
  '<plist version="1.0">\n';

/** Apple's layout: tab indentation, keys in the order given, `<dict/>`/`<array/>` when empty. */
export function serializePlist(root: PlistValue): string {
  const out: string[] = [PLIST_HEAD];
  const write = (v: PlistValue, depth: number) => {
    const pad = '\t'.repeat(depth);
    if (typeof v === 'string') out.push(`${pad}<string>${escapeXml(v)}</string>\n`);
    else if (typeof v === 'number') {
      if (!Number.isSafeInteger(v)) throw new ReinError('internal', `plist integers only: ${v}`);
      out.push(`${pad}<integer>${v}</integer>\n`);
    } else if (typeof v === 'boolean') out.push(`${pad}<${v ? 'true' : 'false'}/>\n`);
    else if (Array.isArray(v)) {
      if (v.length === 0) out.push(`${pad}<array/>\n`);
      else {
        out.push(`${pad}<array>\n`);
        for (const item of v) write(item, depth + 1);
        out.push(`${pad}</array>\n`);
      }
    } else {
      const keys = Object.keys(v);
      if (keys.length === 0) out.push(`${pad}<dict/>\n`);
      else {
        out.push(`${pad}<dict>\n`);
        for (const k of keys) {
          out.push(`${pad}\t<key>${escapeXml(k)}</key>\n`);
          write(v[k]!, depth + 1);
        }
        out.push(`${pad}</dict>\n`);
      }
    }
  };
  write(root, 0);
  out.push('</plist>\n');
  return out.join('');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
    const c = ENTITIES[name];
    if (c === undefined) throw new Error(`unknown entity ${whole}`);
    return c;
  });
}

/**
 * Reads an XML plist of strings, integers, booleans, arrays and dicts (what serializePlist writes, in
 * any layout). Throws on anything else: it is for checking Rein's own files, not for any plist.
 */
export function parsePlist(xml: string): PlistValue {
  const tokens = xml
    .replace(/<\?xml[^>]*\?>/, '')
    .replace(/<!DOCTYPE[^>]*>/, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .split(/(<[^>]+>)/)
    .filter((t) => t !== '');
  let i = 0;
  /** The next tag, skipping the layout between tags. */
  const next = (): string => {
    while (i < tokens.length && !tokens[i]!.startsWith('<') && tokens[i]!.trim() === '') i++;
    const t = tokens[i++];
    if (t === undefined) throw new Error('plist ended early');
    return t;
  };
  /** The text up to `close` (whitespace included: it is content here). */
  const text = (close: string): string => {
    let value = '';
    let t = tokens[i++];
    if (t !== undefined && !t.startsWith('<')) {
      value = t;
      t = tokens[i++];
    }
    if (t !== close) throw new Error(`expected ${close}, got ${t ?? 'the end'}`);
    return unescapeXml(value);
  };
  const value = (open: string): PlistValue => {
    switch (open) {
      case '<string>':
        return text('</string>');
      case '<string/>':
        return '';
      case '<integer>': {
        const t = text('</integer>').trim();
        if (!/^-?\d+$/.test(t)) throw new Error(`not an integer: ${t}`);
        return Number(t);
      }
      case '<true/>':
        return true;
      case '<false/>':
        return false;
      case '<array/>':
        return [];
      case '<dict/>':
        return {};
      case '<array>': {
        const items: PlistValue[] = [];
        for (let t = next(); t !== '</array>'; t = next()) items.push(value(t));
        return items;
      }
      case '<dict>': {
        const dict: PlistDict = {};
        for (let t = next(); t !== '</dict>'; t = next()) {
          if (t !== '<key>') throw new Error(`expected <key>, got ${t}`);
          const key = text('</key>');
          if (Object.hasOwn(dict, key)) throw new Error(`duplicate key ${key}`);
          dict[key] = value(next());
        }
        return dict;
      }
      default:
        throw new Error(`unexpected ${open}`);
    }
  };
  if (!/^<plist\b[^>]*>$/.test(next())) throw new Error('not a plist');
  const root = value(next());
  if (next() !== '</plist>') throw new Error('expected </plist>');
  if (tokens.slice(i).some((t) => t.trim() !== '')) throw new Error('text after </plist>');
  return root;
}

/** The StartCalendarInterval of a parsed plist, as a list of dicts (a single dict is a list of one). */
export function plistCalendarIntervals(plist: PlistValue): CalendarInterval[] {
  if (typeof plist !== 'object' || Array.isArray(plist)) throw new Error('plist root is not a dict');
  const sci = plist.StartCalendarInterval;
  if (sci === undefined) return [];
  const dicts = Array.isArray(sci) ? sci : [sci];
  return dicts.map((d) => {
    if (typeof d !== 'object' || Array.isArray(d)) throw new Error('StartCalendarInterval entry is not a dict');
    const out: CalendarInterval = {};
    for (const [k, v] of Object.entries(d)) {
      if (!(CALENDAR_KEYS as readonly string[]).includes(k) || typeof v !== 'number')
        throw new Error(`unexpected calendar key ${k}`);
      out[k as (typeof CALENDAR_KEYS)[number]] = v;
    }
    return out;
  });
}
