/**
 * What a schedule does about a time it missed while the Mac was off or asleep (or the daemon was not
 * looking): its `catch_up` setting.
 *
 * - `once` (the default): one catch-up run, however many times were missed;
 * - `skip`: none — the next time of the expression runs as usual;
 * - `within <duration>` (`within 2h`, `within 1h30m`): one catch-up run, but only when the latest missed
 *   time is at most that long ago ("a 09:00 report still matters at 10:30, not at 18:00").
 *
 * launchd's wake and login starts (`schedule run --from-launchd`) and the daemon's clock both decide
 * with `catchUpDecision`, so the two backends behave alike.
 */
import { DURATION_HINT, parseDuration } from '../agents/duration.js';
import { fieldError } from '../errors.js';
import { checkCron } from './cronCheck.js';

export type CatchUp = { kind: 'once' } | { kind: 'skip' } | { kind: 'within'; ms: number; duration: string };

export const DEFAULT_CATCH_UP = 'once';
export const CATCH_UP_HINT = `once, skip or within <duration> (${DURATION_HINT.replace(/^a duration such as /, 'e.g. within ')})`;

/** Reads `once`, `skip` or `within <duration>` (any case, spaces around trimmed). */
export function parseCatchUp(
  text: string,
): { ok: true; value: CatchUp; normalized: string } | { ok: false; error: string } {
  const s = text.trim().toLowerCase();
  if (s === 'once' || s === 'skip') return { ok: true, value: { kind: s }, normalized: s };
  const m = /^within\s+(\S+)$/.exec(s);
  if (!m) return { ok: false, error: `"${text}" is not ${CATCH_UP_HINT}` };
  const d = parseDuration(m[1]!);
  if (!d.ok) return { ok: false, error: `"${text}": ${d.error}` };
  if (d.value < 60_000)
    return { ok: false, error: `"${text}": the window must be at least 1m (for no catch-up at all, use skip)` };
  return { ok: true, value: { kind: 'within', ms: d.value, duration: m[1]! }, normalized: `within ${m[1]!}` };
}

/**
 * Does a launchd job of this setting need RunAtLoad (a run at every login, which catches up a time
 * missed while the Mac was off)? Not for `skip`: such a run would only start a process to decide
 * nothing. An unreadable setting counts as the default (`once`), like catchUpDecision.
 */
export function catchUpNeedsLoadRun(setting: string | undefined): boolean {
  const parsed = parseCatchUp(setting ?? 'once');
  return !parsed.ok || parsed.value.kind !== 'skip';
}

/** The setting as stored (normalised); throws `invalid_input` naming the field `catch_up`. */
export function checkCatchUp(text: string): string {
  const r = parseCatchUp(text);
  if (!r.ok) throw fieldError('invalid_input', `catch_up: ${r.error}`, 'catch_up');
  return r.normalized;
}

export type CatchUpDecision = { run: true; note: string } | { run: false; why: string };

/**
 * Whether to catch up a run that was due at `missed` (the latest time missed), now. An unreadable
 * setting (a hand-edited file) is read as the default: a catch-up is never lost to a typo, and the store
 * refuses the file anyway until it is fixed.
 */
export function catchUpDecision(
  setting: string | undefined,
  missed: Date,
  now: Date,
  format: (d: Date) => string = (d) => d.toISOString(),
): CatchUpDecision {
  const parsed = parseCatchUp(setting ?? DEFAULT_CATCH_UP);
  const c: CatchUp = parsed.ok ? parsed.value : { kind: 'once' };
  const ago = Math.max(0, now.getTime() - missed.getTime());
  if (c.kind === 'skip')
    return {
      run: false,
      why: `skipped: the run due at ${format(missed)} was missed, and this schedule does not catch up (catch_up: skip)`,
    };
  if (c.kind === 'within' && ago > c.ms) {
    return {
      run: false,
      why: `skipped: the run due at ${format(missed)} was missed ${describeAgo(ago)} ago, longer than catch_up: within ${c.duration} allows`,
    };
  }
  const rule = c.kind === 'within' ? `catch_up: within ${c.duration}` : 'catch_up: once — missed runs run once';
  return { run: true, note: `the run due at ${format(missed)} was missed ${describeAgo(ago)} ago (${rule})` };
}

/**
 * The latest fire time of the schedule that has passed since its last run or its last change (an edit
 * or enable starts afresh), whichever is later, and more than `graceMs` before `now`. Undefined when
 * none was missed. (`missedFireTime` in cronCheck.ts gives the first such time.)
 */
export function latestMissedFireTime(
  schedule: { cron: string; created_at: string; updated_at: string; last_run?: { at: string } },
  now: Date,
  graceMs: number,
): Date | undefined {
  const since = Math.max(Date.parse(schedule.last_run?.at ?? schedule.created_at), Date.parse(schedule.updated_at));
  // Fire times fall on minute boundaries: the latest one at or before the edge of the grace window.
  const latest = checkCron(schedule.cron).previous(new Date(now.getTime() - graceMs));
  return latest && latest.getTime() > since ? latest : undefined;
}

function describeAgo(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  if (hours < 48) return rest ? `${hours} h ${rest} min` : `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}
