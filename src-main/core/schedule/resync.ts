/**
 * Bringing every launchd job back in line with the schedules and with the program that should start
 * them now: after the app was moved or updated (its executable's path changed), after a node upgrade
 * took a CLI job's node away, after a plist format change (a new key), after a crash left a plist of a
 * schedule that no longer exists. The app runs it at every launch; `rein schedule sync` on demand.
 *
 * For each enabled schedule the job is (re)installed — installLaunchdJob leaves a loaded job whose
 * plist already has the right bytes alone — unless its plist starts Rein another way that still works
 * (the app's own program and the CLI's launcher can both start a schedule, and a person may use both:
 * the app does not take the CLI's jobs over, nor the CLI the app's, while they run). A plist of this
 * REIN_HOME whose schedule is gone or disabled is booted out and deleted: it would fire at every login
 * and calendar time with nothing to run. Plists of other REIN_HOMEs in the same folder are not touched.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errorMessage } from '../errors.js';
import type { ScheduleProgram, ScheduleProgramKind } from './backend.js';
import { isLauncher } from './launcher.js';
import { LAUNCHD_LABEL_PREFIX, launchdLabel, launchdPlistPath, parsePlist } from './launchdPlist.js';
import type { Launchd } from './launchctl.js';
import type { Schedule } from './store.js';

export interface SyncedJob {
  id: string;
  /**
   * created / updated / unchanged: installLaunchdJob's answer; kept: left alone (started another way
   * that still works); removed: an orphan plist taken away; failed: see error.
   */
  action: 'created' | 'updated' | 'unchanged' | 'kept' | 'removed' | 'failed';
  /** Why it was looked at or left alone, in words. */
  reason?: string;
  error?: string;
}

export interface ScheduleSyncReport {
  /** Set when nothing could be synced (the app translocated, …): the reason. */
  problem?: string;
  jobs: SyncedJob[];
}

/** What a plist's ProgramArguments say about how it starts Rein. */
export interface PlistProgram {
  prefix: string[];
  kind: ScheduleProgramKind;
}

/** The program part of a Rein job's ProgramArguments (before `schedule run <id> --from-launchd`). */
export function plistProgram(args: readonly string[], id: string): PlistProgram | undefined {
  const tail = ['schedule', 'run', id, '--from-launchd'];
  if (args.length <= tail.length || tail.some((t, i) => args[args.length - tail.length + i] !== t)) return undefined;
  const prefix = args.slice(0, args.length - tail.length);
  return { prefix, kind: programKind(prefix) };
}

export function programKind(prefix: readonly string[]): ScheduleProgramKind {
  if (prefix[0] !== undefined && isLauncher(prefix[0])) return 'launcher';
  // The packaged app `[app, --headless]`, or a development build `[Electron, <app folder>, --headless]`.
  if (prefix[1] === '--headless' || (prefix.length === 3 && prefix[2] === '--headless')) return 'app';
  return 'given';
}

/**
 * The files a program needs are there (a cheap look; `rein doctor` runs it): the executable, and for
 * the launcher Rein's script too (the launcher finds another node, not another Rein).
 */
export function programFilesExist(p: PlistProgram, exists: (path: string) => boolean = existsSync): boolean {
  if (!p.prefix[0] || !exists(p.prefix[0])) return false;
  if (p.kind === 'launcher') return p.prefix[2] !== undefined && exists(p.prefix[2]);
  // A development build's job needs its app folder too.
  if (p.kind === 'app' && p.prefix[2] === '--headless') return p.prefix[1] !== undefined && exists(p.prefix[1]);
  return true;
}

export interface ReadPlist {
  xml: string;
  /** Undefined when the file is not a plist Rein wrote. */
  root?: Record<string, unknown>;
  args?: string[];
  env?: Record<string, string>;
}

export async function readJobPlist(path: string): Promise<ReadPlist | undefined> {
  const xml = await readFile(path, 'utf8').catch(() => undefined);
  if (xml === undefined) return undefined;
  try {
    const root = parsePlist(xml);
    if (typeof root !== 'object' || Array.isArray(root)) return { xml };
    const args =
      Array.isArray(root.ProgramArguments) && root.ProgramArguments.every((a) => typeof a === 'string')
        ? (root.ProgramArguments as string[])
        : undefined;
    const envValue = root.EnvironmentVariables;
    const env =
      envValue &&
      typeof envValue === 'object' &&
      !Array.isArray(envValue) &&
      Object.values(envValue).every((v) => typeof v === 'string')
        ? (envValue as Record<string, string>)
        : undefined;
    return { xml, root, ...(args ? { args } : {}), ...(env ? { env } : {}) };
  } catch {
    return { xml };
  }
}

export interface ResyncOptions {
  home: string;
  launchAgentsDir: string;
  launchd: Launchd;
  /** The program a job would be written with now. */
  program: ScheduleProgram;
  schedules: readonly Schedule[];
  install(schedule: Schedule, program: ScheduleProgram): Promise<{ action: 'created' | 'updated' | 'unchanged' }>;
  remove(id: string): Promise<void>;
}

const PLIST_NAME = new RegExp(`^${LAUNCHD_LABEL_PREFIX.replace(/\./g, '\\.')}([A-Za-z0-9_-]{1,64})\\.plist$`);

export async function resyncLaunchdJobs(o: ResyncOptions): Promise<ScheduleSyncReport> {
  const jobs: SyncedJob[] = [];
  const enabled = o.schedules.filter((s) => s.enabled);
  // Nothing is written from a place that goes away; said only when there is something to run.
  if (o.program.problem) return enabled.length > 0 ? { problem: o.program.problem, jobs } : { jobs };
  for (const s of enabled) {
    const path = launchdPlistPath(o.launchAgentsDir, s.id);
    try {
      const plist = await readJobPlist(path);
      const loaded = await o.launchd.isLoaded(launchdLabel(s.id));
      const current = plist?.args ? plistProgram(plist.args, s.id) : undefined;
      let reason: string;
      if (!plist) reason = 'no plist';
      else if (!loaded) reason = 'not loaded';
      else if (!current) reason = 'not a plist Rein wrote';
      else if (current.kind !== o.program.kind && o.program.kind !== 'given' && programFilesExist(current)) {
        jobs.push({
          id: s.id,
          action: 'kept',
          reason: `started by ${current.kind === 'app' ? "the app's" : current.kind === 'launcher' ? "the CLI's" : 'its own'} program ${current.prefix[0]}, which is there`,
        });
        continue;
      } else if (!programFilesExist(current)) reason = `its program is gone (${current.prefix[0]})`;
      else if (current.prefix.join('\0') !== o.program.prefix.join('\0'))
        reason = `its program changed (was ${current.prefix[0]})`;
      else reason = 'the plist differs from what Rein writes now';
      const r = await o.install(s, o.program);
      jobs.push({ id: s.id, action: r.action, ...(r.action === 'unchanged' ? {} : { reason }) });
    } catch (e) {
      jobs.push({ id: s.id, action: 'failed', error: errorMessage(e) });
    }
  }
  // Orphans: plists of this REIN_HOME without an enabled schedule.
  const wanted = new Set(enabled.map((s) => s.id));
  const home = resolve(o.home);
  const names = await readdir(o.launchAgentsDir).catch(() => [] as string[]);
  for (const name of names.sort()) {
    const id = PLIST_NAME.exec(name)?.[1];
    if (!id || wanted.has(id)) continue;
    const plist = await readJobPlist(join(o.launchAgentsDir, name));
    if (!plist?.env?.REIN_HOME || resolve(plist.env.REIN_HOME) !== home) continue;
    try {
      await o.remove(id);
      jobs.push({
        id,
        action: 'removed',
        reason: o.schedules.some((s) => s.id === id) ? 'the schedule is disabled' : 'no such schedule',
      });
    } catch (e) {
      jobs.push({ id, action: 'failed', error: errorMessage(e) });
    }
  }
  return { jobs };
}

/** What a person should hear about a sync, or undefined when it went fine. */
export function syncProblem(report: ScheduleSyncReport): string | undefined {
  if (report.problem) return `Scheduled runs cannot start: ${report.problem}`;
  const failed = report.jobs.filter((j) => j.action === 'failed');
  if (failed.length === 0) return undefined;
  return `The launchd job of schedule ${failed.map((f) => f.id).join(', ')} could not be brought up to date: ${failed[0]!.error ?? 'unknown error'}`;
}
