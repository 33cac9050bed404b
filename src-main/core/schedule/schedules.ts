/**
 * Schedules as a person or a tool changes them: the store (schedules.json) and the backend's jobs kept
 * in step. With the launchd backend every change is followed by the job's plist and `launchctl` (an
 * enabled schedule has a loaded job, a disabled or removed one has none); with the daemon backend the
 * daemon's clock reads the store at every minute, so nothing else is needed. The store changes first:
 * a new schedule whose job cannot be installed is taken out again; for a change, the error says so and
 * `rein schedule update` (or enable) retries.
 */
import type { GlobalConfig } from '../config/schema.js';
import { scheduleBackend, scheduleProgram, type ScheduleBackendName } from './backend.js';
import { checkCron } from './cronCheck.js';
import { launchdJobs } from './launchdJobs.js';
import { ScheduleStore, type NewSchedule, type Schedule, type SchedulePatch } from './store.js';

/** What a backend does when a schedule changes. */
export interface ScheduleJobs {
  /** Throws (invalid_input, field `cron`) for an expression this backend cannot run; called before the store changes. */
  check?(cron: string): void;
  /** The schedule is enabled (or changed while enabled): its job exists and matches it. */
  apply(schedule: Schedule): Promise<void>;
  /** The schedule was disabled or removed: no job. */
  remove(id: string): Promise<void>;
}

export interface SchedulesOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  config: Pick<GlobalConfig, 'schedule'>;
  /** The `rein` launcher the CLI was started with (for launchd's ProgramArguments). */
  launcher?: string;
  /** Tests bring their own jobs. */
  jobs?: ScheduleJobs;
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
        ? launchdJobs({ home: opts.home, env: opts.env, program: () => scheduleProgram(opts.env, process, opts.launcher) })
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
    const s = await this.store.update(id, patch);
    if (s.enabled) await this.#jobs.apply(s);
    else await this.#jobs.remove(s.id);
    return s;
  }

  enable(id: string): Promise<Schedule> {
    return this.update(id, { enabled: true });
  }

  disable(id: string): Promise<Schedule> {
    return this.update(id, { enabled: false });
  }

  async remove(id: string): Promise<Schedule> {
    const s = await this.store.remove(id);
    await this.#jobs.remove(s.id);
    return s;
  }

  /** The next `count` fire times after `from`. */
  async next(id: string, count: number, from: Date = new Date()): Promise<Date[]> {
    return checkCron((await this.store.get(id)).cron).next(from, count);
  }
}
