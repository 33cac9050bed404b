/**
 * The two small time notations an agent's config.yaml uses: durations (`30m`, `1h30m`, `500ms`) for
 * heartbeat periods and watch debounces, and daily windows (`09:00-18:00`, overnight `22:00-06:00`)
 * for heartbeat active hours. Parsers return a value or a message that says what is wrong, so the
 * schema can report it against the field.
 */

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type Unit = keyof typeof UNIT_MS;
/** One `<number><unit>` part; a duration is one or more of them, largest unit first (`1h30m`). */
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;
const UNIT_ORDER: readonly Unit[] = ['d', 'h', 'm', 's', 'ms'];

export const DURATION_HINT = 'a duration such as 90s, 30m, 1h or 1h30m (units ms, s, m, h, d)';

/** Milliseconds of a duration written like `30m`, `1h30m`, `2.5s` or `500ms`. */
export function parseDuration(text: string): Parsed<number> {
  const s = text.trim();
  if (s === '') return { ok: false, error: `empty: expected ${DURATION_HINT}` };
  PART.lastIndex = 0;
  let ms = 0;
  let lastRank = -1;
  while (PART.lastIndex < s.length) {
    const at = PART.lastIndex;
    const m = PART.exec(s);
    if (!m) {
      const bare = /^\d+(\.\d+)?$/.test(s.slice(at));
      return {
        ok: false,
        error: bare ? `"${s}" has no unit: expected ${DURATION_HINT}` : `"${s}" is not ${DURATION_HINT}`,
      };
    }
    const unit = m[2] as Unit;
    const rank = UNIT_ORDER.indexOf(unit);
    // `30m1h` or `1m1m` is almost certainly a typo; refuse rather than guess.
    if (rank <= lastRank) return { ok: false, error: `"${s}": write units largest first, each once (e.g. 1h30m)` };
    lastRank = rank;
    ms += Number(m[1]) * UNIT_MS[unit];
  }
  return { ok: true, value: Math.round(ms) };
}

export interface DailyWindow {
  /** Minutes after local midnight when the window opens (0–1439). */
  startMinute: number;
  /** Minutes after local midnight when it closes (1–1440); smaller than start for an overnight window. */
  endMinute: number;
}

const CLOCK = /^([01]?\d|2[0-4]):([0-5]\d)$/;

/** A window of the day written `HH:MM-HH:MM` (24-hour clock; `24:00` may close a window). */
export function parseDailyWindow(text: string): Parsed<DailyWindow> {
  const s = text.trim();
  const parts = s.split('-');
  if (parts.length !== 2) return { ok: false, error: `"${s}" is not a window of the day like 09:00-18:00` };
  const start = parseClock(parts[0]!.trim());
  const end = parseClock(parts[1]!.trim());
  if (start === undefined || start === 1440)
    return { ok: false, error: `"${s}": start "${parts[0]!.trim()}" is not a time from 00:00 to 23:59` };
  if (end === undefined)
    return { ok: false, error: `"${s}": end "${parts[1]!.trim()}" is not a time from 00:00 to 24:00` };
  if (start === end) {
    // An equal start and end is ambiguous (never? always?); the whole day is spelled by leaving the key out.
    return { ok: false, error: `"${s}": start and end are the same time; leave active_hours out to be active all day` };
  }
  return { ok: true, value: { startMinute: start, endMinute: end } };
}

function parseClock(text: string): number | undefined {
  const m = CLOCK.exec(text);
  if (!m) return undefined;
  const hours = Number(m[1]);
  const minutes = Number(m[2]);
  if (hours === 24 && minutes !== 0) return undefined;
  return hours * 60 + minutes;
}

/** Whether a local time (minutes after midnight) falls inside the window; overnight windows wrap. */
export function inDailyWindow(window: DailyWindow, minuteOfDay: number): boolean {
  const { startMinute, endMinute } = window;
  if (startMinute < endMinute) return minuteOfDay >= startMinute && minuteOfDay < endMinute;
  return minuteOfDay >= startMinute || minuteOfDay < endMinute;
}
