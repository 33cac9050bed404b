/**
 * The launchd backend's side of a schedule change: an enabled schedule has a loaded job whose plist
 * matches it; a disabled or removed one has none. `check` refuses, before the store is changed, an
 * expression launchd cannot run (the Vixie AND of two partial day sets, more than 10,000 dicts);
 * `preflight` refuses a program no job may record (the app translocated or on its disk image); `sync`
 * brings every job in line (resync.ts). A CLI-made job starts through `$REIN_HOME/bin/rein-launch`
 * (launcher.ts), written here before the plist that names it.
 */
import { ReinError } from '../errors.js';
import { pathToHandOn } from '../process/loginPath.js';
import type { ScheduleProgram } from './backend.js';
import { ensureLauncher } from './launcher.js';
import { calendarIntervals } from './launchdPlist.js';
import {
  createLaunchctl,
  installLaunchdJob,
  removeLaunchdJob,
  resolveLaunchAgentsDir,
  type Launchd,
} from './launchctl.js';
import { programKind, resyncLaunchdJobs } from './resync.js';
import type { ScheduleJobs } from './schedules.js';
import type { Schedule } from './store.js';
import { catchUpNeedsLoadRun } from './catchUp.js';

export interface LaunchdJobsOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  /** What starts Rein before `schedule run <id> --from-launchd` (backend.ts resolveScheduleProgram; a bare prefix in tests). */
  program: () => ScheduleProgram | string[];
  launchd?: Launchd;
}

export function launchdJobs(opts: LaunchdJobsOptions): ScheduleJobs {
  const launchAgentsDir = resolveLaunchAgentsDir(opts.env);
  // launchctl as this environment names it (REIN_LAUNCHCTL), made on first use.
  let made: Launchd | undefined;
  const launchd = (): Launchd => opts.launchd ?? (made ??= createLaunchctl({ env: opts.env }));
  const common = () => ({ reinHome: opts.home, launchAgentsDir, launchd: launchd() });
  /** The program, or the reason no job may be made with it now (the app translocated, on its DMG). */
  const programNow = (): ScheduleProgram => {
    const p = opts.program();
    return Array.isArray(p) ? { prefix: p, kind: programKind(p) } : p;
  };
  const usableProgram = (): ScheduleProgram => {
    const program = programNow();
    if (program.problem) throw new ReinError('unavailable', program.problem, { field: 'program' });
    return program;
  };
  const install = async (s: Schedule, program: ScheduleProgram) => {
    if (program.kind === 'launcher') await ensureLauncher(opts.home);
    // launchd gives jobs a minimal PATH: the run's tools need a terminal's — this process's own, or,
    // when it has only launchd's (the app opened from the Finder), the login shell's (loginPath.ts).
    const path = await pathToHandOn(opts.env);
    // HOME as launchd itself gives it, so a run started with only the plist's environment (by hand, by
    // a check) finds the same keychain, nvm and caches as one launchd starts.
    const env: Record<string, string> = { PATH: path };
    if (opts.env.HOME?.trim()) env.HOME = opts.env.HOME;
    // RunAtLoad only where a missed time may be caught up at login (not for catch_up: skip).
    return installLaunchdJob({
      ...common(),
      id: s.id,
      cron: s.cron,
      programPrefix: program.prefix,
      env,
      runAtLoad: catchUpNeedsLoadRun(s.catch_up),
    });
  };
  const remove = async (id: string) => {
    await removeLaunchdJob({ ...common(), id });
  };
  return {
    check: (cron) => void calendarIntervals(cron),
    preflight: () => void usableProgram(),
    apply: async (s) => {
      await install(s, usableProgram());
    },
    remove,
    sync: async (schedules) => {
      let program: ScheduleProgram;
      try {
        program = programNow();
      } catch (e) {
        return { problem: (e as Error).message, jobs: [] };
      }
      return resyncLaunchdJobs({
        home: opts.home,
        launchAgentsDir,
        launchd: launchd(),
        program,
        schedules,
        install,
        remove,
      });
    },
  };
}
