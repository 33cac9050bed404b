/**
 * The launchd backend's side of a schedule change: an enabled schedule has a loaded job whose plist
 * matches it; a disabled or removed one has none. `check` refuses, before the store is changed, an
 * expression launchd cannot run (the Vixie AND of two partial day sets, more than 10,000 dicts).
 */
import { calendarIntervals } from './launchdPlist.js';
import { installLaunchdJob, removeLaunchdJob, resolveLaunchAgentsDir, type Launchd } from './launchctl.js';
import type { ScheduleJobs } from './schedules.js';

export interface LaunchdJobsOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  /** What starts Rein before `schedule run <id> --from-launchd`. */
  program: () => string[];
  launchd?: Launchd;
}

export function launchdJobs(opts: LaunchdJobsOptions): ScheduleJobs {
  const launchAgentsDir = resolveLaunchAgentsDir(opts.env);
  const common = { reinHome: opts.home, launchAgentsDir, ...(opts.launchd ? { launchd: opts.launchd } : {}) };
  return {
    check: (cron) => void calendarIntervals(cron),
    apply: async (s) => {
      // launchd gives jobs a minimal PATH: the run's tools need the one Rein was set up with.
      await installLaunchdJob({ ...common, id: s.id, cron: s.cron, programPrefix: opts.program(), ...(opts.env.PATH ? { env: { PATH: opts.env.PATH } } : {}) });
    },
    remove: async (id) => {
      await removeLaunchdJob({ ...common, id });
    },
  };
}
