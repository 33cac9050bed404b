/**
 * The daemon backend of schedules: the daemon's own cron jobs, wall-clock aligned. It looks at every
 * enabled schedule at each minute boundary (and once at start, for the current minute) and fires those
 * due. When the clock jumped — the machine slept, or its time was set — the minutes in between are not
 * replayed one by one: a schedule that was due in them runs once, and its log says so — as its
 * `catch_up` says (schedule/catchUp.ts: once, skip, or only within so long of the missed time). At most
 * `maxConcurrent` scheduled runs go at once; one due while all are busy is skipped, recorded and
 * announced, never silently dropped.
 */
import type { Disposable } from '../base/lifecycle.js';
import { errorMessage } from '../errors.js';
import { catchUpDecision } from '../schedule/catchUp.js';
import { checkCron } from '../schedule/cronCheck.js';
import type { LastRun, Schedule, ScheduleStore } from '../schedule/store.js';
import type { ScheduleTrigger } from './scheduleRuns.js';

/** A gap between two looks longer than this is a clock jump (sleep, time change), not a late timer. */
const JUMP_MS = 90_000;
/** How far back a catch-up looks for a missed due minute. */
const CATCH_UP_DAYS = 31;

export interface ScheduleClockOptions {
  store: ScheduleStore;
  run(schedule: Schedule, trigger: ScheduleTrigger, note?: string): Promise<unknown>;
  /** A due schedule could not run (all slots busy): record it. */
  skipped(schedule: Schedule, run: LastRun): Promise<void>;
  maxConcurrent: number;
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => { cancel(): void };
  warn?: (message: string) => void;
}

const minuteOf = (ms: number) => Math.floor(ms / 60_000) * 60_000;

export class ScheduleClock implements Disposable {
  readonly #o: ScheduleClockOptions;
  readonly #now: () => number;
  readonly #setTimer: NonNullable<ScheduleClockOptions['setTimer']>;
  #timer: { cancel(): void } | undefined;
  /** The minute looked at last. */
  #last: number | undefined;
  /** schedule id → the minute it last fired, so one minute never fires twice. */
  readonly #fired = new Map<string, number>();
  #inFlight = 0;
  #disposed = false;
  /** Resolves when the look in progress is done (tests wait on it). */
  #looking: Promise<void> = Promise.resolve();

  constructor(opts: ScheduleClockOptions) {
    this.#o = opts;
    this.#now = opts.now ?? Date.now;
    this.#setTimer =
      opts.setTimer ??
      ((fn, ms) => {
        const t = setTimeout(fn, ms);
        t.unref();
        return { cancel: () => clearTimeout(t) };
      });
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** The first look (the current minute), then one at each minute boundary. */
  start(): void {
    this.#tick();
  }

  /** Looks now (for tests and after a schedule changed); resolves when the runs due have been started. */
  look(): Promise<void> {
    this.#looking = this.#looking
      .then(() => this.#evaluate())
      .catch((e: unknown) => this.#o.warn?.(`schedules: ${errorMessage(e)}`));
    return this.#looking;
  }

  dispose(): void {
    this.#disposed = true;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #tick(): void {
    if (this.#disposed) return;
    void this.look().finally(() => {
      if (this.#disposed) return;
      const now = this.#now();
      // Wake just after the next minute boundary, so a job due at 09:00 fires at 09:00:00-ish.
      this.#timer = this.#setTimer(() => this.#tick(), minuteOf(now) + 60_000 - now + 50);
    });
  }

  async #evaluate(): Promise<void> {
    const now = this.#now();
    const minute = minuteOf(now);
    const last = this.#last;
    this.#last = minute;
    let schedules: Schedule[];
    try {
      schedules = await this.#o.store.list();
    } catch (e) {
      this.#o.warn?.(`schedules cannot be read: ${errorMessage(e)}`);
      return;
    }
    const ids = new Set(schedules.map((s) => s.id));
    for (const id of this.#fired.keys()) if (!ids.has(id)) this.#fired.delete(id);
    const jumped = last !== undefined && minute - last > JUMP_MS;
    for (const s of schedules) {
      if (!s.enabled) continue;
      let cron;
      try {
        cron = checkCron(s.cron);
      } catch (e) {
        this.#o.warn?.(`schedule ${s.id}: ${errorMessage(e)}`);
        continue;
      }
      if (this.#fired.get(s.id) === minute) continue;
      let note: string | undefined;
      if (cron.isDue(new Date(minute))) {
        note = undefined;
      } else if (jumped) {
        // Any due minute since the last look (sleep, clock change)? Then once, now.
        const missed = missedSince(cron, last!, minute, s);
        if (!missed) continue;
        const decision = catchUpDecision(s.catch_up, new Date(missed), new Date(now));
        if (!decision.run) {
          // Looked at once per jump: the next due minute runs as usual.
          this.#fired.set(s.id, minute);
          this.#o.warn?.(`schedule ${s.id}: ${decision.why}`);
          continue;
        }
        note = `catching up: the daemon was not looking (the computer slept or its clock changed); ${decision.note}`;
      } else continue;
      this.#fired.set(s.id, minute);
      if (this.#inFlight >= this.#o.maxConcurrent) {
        const message = `skipped: ${this.#inFlight} scheduled runs were already going (schedule.max_concurrent = ${this.#o.maxConcurrent})`;
        await this.#o
          .skipped(s, { at: new Date(now).toISOString(), status: 'skipped', message, trigger: 'daemon' })
          .catch(() => undefined);
        this.#o.warn?.(`schedule ${s.id}: ${message}`);
        continue;
      }
      this.#inFlight++;
      void this.#o
        .run(s, 'daemon', note)
        .catch((e: unknown) => this.#o.warn?.(`schedule ${s.id}: ${errorMessage(e)}`))
        .finally(() => this.#inFlight--);
    }
  }
}

/** The latest due minute in (from, to), not before the schedule existed, within CATCH_UP_DAYS. */
function missedSince(cron: ReturnType<typeof checkCron>, from: number, to: number, s: Schedule): number | undefined {
  const floor = Math.max(from, Date.parse(s.created_at) - 60_000, to - CATCH_UP_DAYS * 86_400_000);
  const times = cron
    .next(new Date(floor), 10_000)
    .map((d) => d.getTime())
    .filter((t) => t > floor && t < to);
  return times.at(-1);
}
