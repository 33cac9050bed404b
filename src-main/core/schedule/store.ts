/**
 * Schedules, stored safely: `<REIN_HOME>/schedules.json`, every change a read-modify-write under an
 * inter-process lock (the app, the daemon, a CLI command and a launchd-started run may touch it at
 * once) and an atomic write, so a crash or a second writer never loses or half-writes the file. A file
 * that does not validate is never rewritten: every change is refused, naming the file and the field,
 * until a person fixes it.
 *
 * Ids are 8 lowercase hex characters, made once and never reused while the schedule exists: they name
 * the launchd job (`dev.rein.schedule.<id>`) and the folder of its logs.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { AGENT_NAME_PATTERN } from '../api/patterns.js';
import { DEFAULT_AGENT } from '../config/paths.js';
import { ReinError, fieldError } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { withFileLock } from '../util/fileLock.js';
import { describeIssues } from '../util/zodIssues.js';
import { checkCatchUp, parseCatchUp } from './catchUp.js';
import { checkCron } from './cronCheck.js';
import { compareLogNames, RUN_LOG_NAME } from './runLogs.js';

export const SCHEDULE_ID_PATTERN = /^[0-9a-f]{8}$/;
export const PROMPT_MAX_CHARS = 20_000;
export const SCHEDULES_FILE = 'schedules.json';

const IsoTime = z.iso.datetime({ offset: true });

export const LastRun = z.object({
  /** When the run started (ISO). */
  at: IsoTime,
  /**
   * `started` while it runs (shown as `running` while its process lives, `interrupted` once it is gone:
   * lastRunView.ts); `interrupted`: stopped by a signal (logout, shutdown, `launchctl bootout`) or a cancel.
   */
  status: z.enum(['started', 'finished', 'failed', 'skipped', 'interrupted']),
  /** When it ended (ISO); absent while it runs. */
  ended_at: IsoTime.optional(),
  /** The process running it (this CLI, or the daemon it was handed to), while `started`. */
  pid: z.number().int().positive().optional(),
  session_id: z.string().optional(),
  /** The run's log file. */
  log: z.string().optional(),
  /** Why it failed or was skipped, or the first line of the answer. */
  message: z.string().optional(),
  /** launchd, daemon or hand (rein schedule run). */
  trigger: z.string().optional(),
});
export type LastRun = z.infer<typeof LastRun>;

export const Schedule = z.object({
  id: z.string().regex(SCHEDULE_ID_PATTERN, 'expected 8 lowercase hex characters'),
  agent: z.string().regex(AGENT_NAME_PATTERN, 'expected an agent name'),
  cron: z.string().min(1),
  prompt: z.string().min(1),
  enabled: z.boolean(),
  created_at: IsoTime,
  updated_at: IsoTime,
  /** What a time missed while the Mac was off or asleep gets: once (absent), skip, within <duration> (catchUp.ts). */
  catch_up: z
    .string()
    .superRefine((v, ctx) => {
      const r = parseCatchUp(v);
      if (!r.ok) ctx.addIssue({ code: 'custom', message: r.error });
    })
    .optional(),
  last_run: LastRun.optional(),
});
export type Schedule = z.infer<typeof Schedule>;

const SchedulesFile = z.object({ version: z.literal(1), schedules: z.array(Schedule) });

export interface NewSchedule {
  cron: string;
  prompt: string;
  agent?: string;
  enabled?: boolean;
  /** once (the default), skip or within <duration>. */
  catch_up?: string;
}

export interface SchedulePatch {
  cron?: string;
  prompt?: string;
  agent?: string;
  enabled?: boolean;
  catch_up?: string;
}

/** A prompt a run can take: not blank, no NUL bytes, bounded. Throws invalid_input naming `prompt`. */
export function checkPrompt(prompt: string): string {
  if (prompt.trim() === '') throw fieldError('invalid_input', 'prompt: must not be blank', 'prompt');
  if (prompt.includes('\0')) throw fieldError('invalid_input', 'prompt: must not contain NUL bytes', 'prompt');
  if (Array.from(prompt).length > PROMPT_MAX_CHARS)
    throw fieldError('invalid_input', `prompt: at most ${PROMPT_MAX_CHARS} characters`, 'prompt');
  return prompt;
}

function checkAgent(agent: string): string {
  if (!AGENT_NAME_PATTERN.test(agent))
    throw fieldError(
      'invalid_input',
      `agent: "${agent}" is not an agent name (lowercase letters, digits, - and _)`,
      'agent',
    );
  return agent;
}

export class ScheduleStore {
  readonly file: string;
  readonly #now: () => Date;

  constructor(
    readonly home: string,
    opts: { now?: () => Date } = {},
  ) {
    this.file = join(home, SCHEDULES_FILE);
    this.#now = opts.now ?? (() => new Date());
  }

  /** Every schedule, in the order they were created. */
  async list(): Promise<Schedule[]> {
    return (await this.#read()).schedules;
  }

  async get(id: string): Promise<Schedule> {
    const s = (await this.list()).find((x) => x.id === id);
    if (!s) throw new ReinError('not_found', `no schedule ${id} (rein schedule list shows them)`, { field: 'id' });
    return s;
  }

  /** Validates everything first; the file is changed only when the whole schedule is acceptable. */
  async create(input: NewSchedule): Promise<Schedule> {
    const cron = checkCron(input.cron).normalized;
    const prompt = checkPrompt(input.prompt);
    const agent = checkAgent(input.agent ?? DEFAULT_AGENT);
    const catchUp = input.catch_up !== undefined ? checkCatchUp(input.catch_up) : undefined;
    return this.#change((file) => {
      const taken = new Set(file.schedules.map((s) => s.id));
      let id: string;
      do id = randomBytes(4).toString('hex');
      while (taken.has(id));
      const at = this.#now().toISOString();
      const schedule: Schedule = {
        id,
        agent,
        cron,
        prompt,
        enabled: input.enabled ?? true,
        ...(catchUp !== undefined ? { catch_up: catchUp } : {}),
        created_at: at,
        updated_at: at,
      };
      file.schedules.push(schedule);
      return schedule;
    });
  }

  async update(id: string, patch: SchedulePatch): Promise<Schedule> {
    if (Object.values(patch).every((v) => v === undefined)) {
      throw fieldError(
        'invalid_input',
        'give at least one of cron, prompt, agent, enabled or catch_up to change',
        'cron',
      );
    }
    const cron = patch.cron !== undefined ? checkCron(patch.cron).normalized : undefined;
    const prompt = patch.prompt !== undefined ? checkPrompt(patch.prompt) : undefined;
    const agent = patch.agent !== undefined ? checkAgent(patch.agent) : undefined;
    const catchUp = patch.catch_up !== undefined ? checkCatchUp(patch.catch_up) : undefined;
    return this.#change((file) => {
      const s = file.schedules.find((x) => x.id === id);
      if (!s) throw new ReinError('not_found', `no schedule ${id}`, { field: 'id' });
      if (cron !== undefined) s.cron = cron;
      if (prompt !== undefined) s.prompt = prompt;
      if (agent !== undefined) s.agent = agent;
      if (patch.enabled !== undefined) s.enabled = patch.enabled;
      if (catchUp !== undefined) s.catch_up = catchUp;
      s.updated_at = this.#now().toISOString();
      return s;
    });
  }

  async remove(id: string): Promise<Schedule> {
    return this.#change((file) => {
      const i = file.schedules.findIndex((x) => x.id === id);
      if (i < 0) throw new ReinError('not_found', `no schedule ${id}`, { field: 'id' });
      return file.schedules.splice(i, 1)[0]!;
    });
  }

  /**
   * Undoes an update whose job could not be installed (schedules.ts): the fields of `before` again,
   * unless the schedule changed since `written` was stored (then the later change stands). The run
   * record is kept: a run may have been recorded meanwhile.
   */
  async revert(written: Schedule, before: Schedule): Promise<void> {
    await this.#change((file) => {
      const s = file.schedules.find((x) => x.id === written.id);
      if (!s || s.updated_at !== written.updated_at) return;
      const { last_run: _run, ...fields } = before;
      const kept = s.last_run;
      for (const k of Object.keys(s) as (keyof Schedule)[]) delete s[k];
      Object.assign(s, fields, kept ? { last_run: kept } : {});
    });
  }

  /** Records how the schedule's latest run went (a run of a schedule removed meanwhile is dropped). */
  async recordRun(id: string, run: LastRun): Promise<void> {
    await this.#change((file) => {
      const s = file.schedules.find((x) => x.id === id);
      if (s) s.last_run = run;
    }).catch((e: unknown) => {
      if (!(e instanceof ReinError && e.code === 'not_found')) throw e;
    });
  }

  async #read(): Promise<z.infer<typeof SchedulesFile>> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, schedules: [] };
      throw new ReinError('config_io', `cannot read ${this.file}: ${(e as Error).message}`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new ReinError(
        'config_invalid',
        `${this.file} is not valid JSON (${(e as Error).message}); fix or remove it — nothing was changed`,
      );
    }
    const parsed = SchedulesFile.safeParse(raw);
    if (!parsed.success) {
      const p = describeIssues(parsed.error.issues, raw)[0];
      throw new ReinError(
        'config_invalid',
        `${this.file}: ${p ? `${p.field}: ${p.message}` : 'invalid'}; fix or remove it — nothing was changed`,
        { file: this.file, ...(p ? { field: p.field } : {}) },
      );
    }
    return parsed.data;
  }

  async #change<T>(fn: (file: z.infer<typeof SchedulesFile>) => T): Promise<T> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    return withFileLock(this.file, async () => {
      const file = await this.#read();
      const result = fn(file);
      await atomicWriteFile(this.file, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
      return result;
    });
  }
}

/** The folder of a schedule's files: launchd's stdout/stderr and the run logs. */
export const scheduleDir = (home: string, id: string): string => join(home, 'schedules', id);
export const scheduleLogsDir = (home: string, id: string): string => join(scheduleDir(home, id), 'logs');

/** Run logs kept per schedule: the newest ones; older ones go when a new one is written. */
export const MAX_RUN_LOGS = 200;

/** Deletes all but the newest `keep` run logs of a schedule (names sort by time: runLogs.ts). Never throws. */
export async function pruneScheduleLogs(home: string, id: string, keep = MAX_RUN_LOGS): Promise<number> {
  const dir = scheduleLogsDir(home, id);
  const names = (await readdir(dir).catch(() => [] as string[]))
    .filter((n) => RUN_LOG_NAME.test(n))
    .sort(compareLogNames);
  const old = names.slice(0, Math.max(0, names.length - keep));
  for (const n of old) await rm(join(dir, n), { force: true }).catch(() => undefined);
  return old.length;
}
