/**
 * What a schedule card says about a schedule, in words: its last run ("finished 2 h ago", "failed
 * yesterday 09:00: <why>", "running now"), its next time ("next Wed 2 Dec 09:00") and its catch_up
 * setting when it is not the default. Pure, with the clock and time zone passed in, so tests pin them.
 */
import {
  describeCron,
  formatFireTime,
  formatFireTimes,
  formatPast,
  type CronTimeOptions,
} from '../../../../src-main/core/api/cronWords.js';
import { parseCron } from '../../../../src-main/core/api/cron.js';
import type { ScheduleInfo } from '../../../../src-main/core/api/index.js';

type LastRun = NonNullable<ScheduleInfo['last_run']>;

const date = (iso: string | null | undefined): Date | undefined => {
  if (!iso) return undefined;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? undefined : d;
};

/** The last run: status in words, when, and why it failed or was skipped (or the answer's first line). */
export function lastRunWords(run: LastRun, opts: CronTimeOptions = {}): string {
  const started = date(run.started_at) ?? date(run.at);
  const ended = date(run.ended_at) ?? started;
  const when = (d: Date | undefined) => (d ? ` ${formatPast(d, opts)}` : '');
  const why = run.error ?? run.message;
  switch (run.status) {
    case 'running':
      return `running now${started ? ` (started ${formatPast(started, opts)})` : ''}`;
    case 'finished':
      return `finished${when(ended)}${run.message ? ` — ${run.message}` : ''}`;
    default:
      // failed, interrupted, skipped — and a status a newer daemon knows and this page does not, as it is.
      return `${run.status}${when(ended)}${why ? `: ${why}` : ''}`;
  }
}

/** "next Wed 2 Dec 09:00", "disabled", or "no upcoming time". */
export function nextWords(schedule: Pick<ScheduleInfo, 'enabled' | 'next'>, opts: CronTimeOptions = {}): string {
  if (!schedule.enabled) return 'disabled';
  const first = date(schedule.next[0]);
  return first ? `next ${formatFireTime(first, opts)}` : 'no upcoming time';
}

/** Every upcoming time the daemon sent, for a tooltip: "Wed 2 Dec 09:00, Thu 3 Dec 09:00, …". */
export function upcomingWords(schedule: Pick<ScheduleInfo, 'next'>, opts: CronTimeOptions = {}): string {
  const times = schedule.next.map(date).filter((d): d is Date => d !== undefined);
  return formatFireTimes(times, opts);
}

/** The catch_up setting in words, or undefined for the default (`once`), which the card leaves unsaid. */
export function catchUpWords(setting: string | undefined): string | undefined {
  const s = setting?.trim().toLowerCase();
  if (!s || s === 'once') return undefined;
  if (s === 'skip') return 'a missed time is skipped';
  const within = /^within\s+(\S+)$/.exec(s);
  if (within) return `a missed time runs only within ${within[1]} of it`;
  return `catch_up: ${setting}`;
}

/** The cron expression in words, or undefined when it does not parse (a hand-edited file). */
export function cronWords(cron: string): string | undefined {
  const parsed = parseCron(cron);
  return parsed.ok ? describeCron(parsed.cron) : undefined;
}
