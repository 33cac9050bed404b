/**
 * Schedules as a person or a tool changes them: the store (schedules.json) and the backend's jobs kept
 * in step. With the launchd backend every change is followed by the job's plist and `launchctl` (an
 * enabled schedule has a loaded job, a disabled or removed one has none); with the daemon backend the
 * daemon's clock reads the store at every minute, so nothing else is needed.
 *
 * A change is all or nothing. The store changes first (a job's RunAtLoad run, started by the bootstrap,
 * reads it), then the job; when the job cannot be installed — launchctl refuses the bootstrap ("Allow
 * in the Background" off), the app runs from a place that goes away — the error (launchctl's own
 * words) reaches the caller, the plist is gone (launchctl.ts) and the store is put back: a new schedule
 * is taken out, a change or an enable undone, and the previous job reinstalled where it can be. A
 * removal takes the job away before the schedule, so a job that will not go keeps its schedule.
 */
import type { GlobalConfig } from '../config/schema.js';
import { resolveScheduleProgram, scheduleBackend, type ScheduleBackendName, type ScheduleProgram } from './backend.js';
import { checkCron } from './cronCheck.js';
import { launchdJobs } from './launchdJobs.js';
import type { ScheduleSyncReport } from './resync.js';
import { ScheduleStore, type NewSchedule, type Schedule, type SchedulePatch } from './store.js';

/** What a backend does when a schedule changes. */
export interface ScheduleJobs {
  /** Throws (invalid_input, field `cron`) for an expression this backend cannot run; called before the store changes. */
  check?(cron: string): void;
  /** Throws when no job can be installed now (the app translocated…); called before a change that leaves the schedule enabled. */
  preflight?(): void;
  /** The schedule is enabled (or changed while enabled): its job exists and matches it. */
  apply(schedule: Schedule): Promise<void>;
  /** The schedule was disabled or removed: no job. */
  remove(id: string): Promise<void>;
  /** Every job in line with the schedules and today's program (resync.ts). */
  sync?(schedules: readonly Schedule[]): Promise<ScheduleSyncReport>;
}

export interface SchedulesOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  config: Pick<GlobalConfig, 'schedule'>;
  /** The `rein` launcher the CLI was started with (for launchd's ProgramArguments). */
  launcher?: string;
  /** Tests bring their own jobs… */
  jobs?: ScheduleJobs;
  /** …or the program launchd jobs start (the app translocated, a moved app): resolveScheduleProgram by default. */
  program?: () => ScheduleProgram;
  now?: () => Date;
}

export class Schedules {
  readonly store: ScheduleStore;
  readonly backend: ScheduleBackendName;
  readonly #jobs: ScheduleJobs;

  constructor(opts: SchedulesOptions) {
    this.store = new ScheduleStore(opts.home, opts.now ? { now: opts.now } : {});
    this.backend = scheduleBackend(opts.env, opts.config);
    this.#jobs =
      opts.jobs ??
      (this.backend === 'launchd'
        ? launchdJobs({
            home: opts.home,
            env: opts.env,
            program: opts.program ?? (() => resolveScheduleProgram(opts.env, opts.home, process, opts.launcher)),
          })
        : { apply: async () => undefined, remove: async () => undefined });
  }

  list(): Promise<Schedule[]> {
    return this.store.list();
  }

  get(id: string): Promise<Schedule> {
    return this.store.get(id);
  }

  async create(input: NewSchedule): Promise<Schedule> {
    this.#jobs.check?.(checkCron(input.cron).normalized);
    if (input.enabled ?? true) this.#jobs.preflight?.();
    const s = await this.store.create(input);
    if (s.enabled) {
      try {
        await this.#jobs.apply(s);
      } catch (e) {
        // A schedule that cannot be installed is not kept: nothing is half made.
        await this.store.remove(s.id).catch(() => undefined);
        throw e;
      }
    }
    return s;
  }

  async update(id: string, patch: SchedulePatch): Promise<Schedule> {
    if (patch.cron !== undefined) this.#jobs.check?.(checkCron(patch.cron).normalized);
    const before = await this.store.get(id);
    if (patch.enabled ?? before.enabled) this.#jobs.preflight?.();
    const s = await this.store.update(id, patch);
    try {
      if (s.enabled) await this.#jobs.apply(s);
      else await this.#jobs.remove(s.id);
    } catch (e) {
      // Undone: the store as it was, and the job as it was where it can be (a refused bootstrap has
      // left no plist; disabling a job that would not go leaves it loaded, and its schedule enabled).
      await this.store.revert(s, before).catch(() => undefined);
      await (before.enabled ? this.#jobs.apply(before) : this.#jobs.remove(before.id)).catch(() => undefined);
      throw e;
    }
    return s;
  }

  enable(id: string): Promise<Schedule> {
    return this.update(id, { enabled: true });
  }

  disable(id: string): Promise<Schedule> {
    return this.update(id, { enabled: false });
  }

  async remove(id: string): Promise<Schedule> {
    await this.store.get(id);
    await this.#jobs.remove(id);
    return this.store.remove(id);
  }

  /**
   * Every enabled schedule's job rewritten where it no longer matches what would be written now (the
   * app moved or updated, a node upgrade, a new plist key), orphan plists removed. Nothing to do for
   * the daemon backend.
   */
  async sync(): Promise<ScheduleSyncReport> {
    if (!this.#jobs.sync) return { jobs: [] };
    return this.#jobs.sync(await this.store.list());
  }

  /** The next `count` fire times after `from`. */
  async next(id: string, count: number, from: Date = new Date()): Promise<Date[]> {
    return checkCron((await this.store.get(id)).cron).next(from, count);
  }
}
