/**
 * This machine's time zone, and a wall-clock stamp in it, without ICU where that can be helped: the
 * first `Intl.DateTimeFormat` of a process initialises ICU's date formatting (~10 ms of CPU), and every
 * run writes the local time into its prompt (docs/architecture.md, *Startup*).
 *
 * The zone's name comes from the `/etc/localtime` link (`…/zoneinfo/Europe/Paris` on macOS and Linux)
 * when TZ is not set; otherwise, or when the link says nothing usable, from Intl. The stamp of the
 * process's own zone comes from Date's local-time getters, which follow the same zone.
 */
import { readlinkSync } from 'node:fs';

const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;
/** Names Intl reports differently from the files that hold them. */
const CANONICAL: Record<string, string> = {
  'Etc/UTC': 'UTC',
  'Etc/Universal': 'UTC',
  'Etc/Zulu': 'UTC',
  'Etc/UCT': 'UTC',
  UCT: 'UTC',
  Universal: 'UTC',
  Zulu: 'UTC',
};

let cached: string | undefined;

/** The name of this process's time zone (an IANA name such as `Europe/Paris`, or `UTC`). */
export function processTimeZone(): string {
  return (cached ??=
    (process.env.TZ === undefined ? zoneFromLink('/etc/localtime') : undefined) ??
    Intl.DateTimeFormat().resolvedOptions().timeZone);
}

/** The zone a `/etc/localtime` symlink points at, or undefined. */
export function zoneFromLink(link: string): string | undefined {
  let target: string;
  try {
    target = readlinkSync(link);
  } catch {
    return undefined;
  }
  const at = target.lastIndexOf('zoneinfo/');
  if (at < 0) return undefined;
  const name = target.slice(at + 'zoneinfo/'.length);
  if (!ZONE_NAME.test(name) || name.startsWith('posix/') || name.startsWith('right/')) return undefined;
  return CANONICAL[name] ?? name;
}

const two = (n: number) => String(n).padStart(2, '0');
const stampFormats = new Map<string, Intl.DateTimeFormat>();

/** `YYYY-MM-DD HH:MM` of `d` in `timeZone` (24-hour clock). */
export function localStamp(d: Date, timeZone: string): string {
  if (cached !== undefined && timeZone === cached) {
    return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
  }
  let fmt = stampFormats.get(timeZone);
  if (!fmt) {
    fmt = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    stampFormats.set(timeZone, fmt);
  }
  const p = Object.fromEntries(fmt.formatToParts(d).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}
