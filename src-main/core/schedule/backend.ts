/**
 * Where schedules fire: `launchd` (one job per schedule in ~/Library/LaunchAgents; runs with the app
 * closed and after the Mac wakes) or `daemon` (cron jobs inside the daemon; Linux, Windows, or by
 * choice). `REIN_SCHEDULE_BACKEND` overrides config `schedule.backend`; the default is launchd on macOS
 * and daemon elsewhere.
 */
import { resolve } from 'node:path';
import type { GlobalConfig } from '../config/schema.js';
import { ReinError, fieldError } from '../errors.js';
import { appLocationProblem } from './appLocation.js';
import { launcherPath, stableNodePath, type PathLookups } from './launcher.js';

export type ScheduleBackendName = 'launchd' | 'daemon';

export function scheduleBackend(
  env: NodeJS.ProcessEnv,
  config: Pick<GlobalConfig, 'schedule'>,
  platform: NodeJS.Platform = process.platform,
): ScheduleBackendName {
  const fromEnv = env.REIN_SCHEDULE_BACKEND?.trim();
  if (fromEnv) {
    if (fromEnv !== 'launchd' && fromEnv !== 'daemon')
      throw fieldError(
        'invalid_input',
        `REIN_SCHEDULE_BACKEND: "${fromEnv}" is not launchd or daemon`,
        'REIN_SCHEDULE_BACKEND',
      );
    return fromEnv;
  }
  return config.schedule.backend ?? (platform === 'darwin' ? 'launchd' : 'daemon');
}

/** How a job starts Rein: see resolveScheduleProgram. */
export type ScheduleProgramKind = 'given' | 'app' | 'launcher';

export interface ScheduleProgram {
  /** What comes before `schedule run <id> --from-launchd` in ProgramArguments. */
  prefix: string[];
  kind: ScheduleProgramKind;
  /** Why no job may be installed with it now (the app translocated or on its disk image). */
  problem?: string;
}

/** Electron sets `defaultApp` when its binary runs an app folder given on the command line (`electron .`: a development build). */
type Proc = { execPath: string; argv: readonly string[]; versions: NodeJS.ProcessVersions; defaultApp?: boolean };

/**
 * The app folder a development Electron runs (`electron . --flags`: the first argument after the binary
 * that is not a flag), absolute; undefined when there is none. A packaged app has no such argument.
 */
export function devAppPath(argv: readonly string[]): string | undefined {
  const app = argv.slice(1).find((a) => !a.startsWith('-'));
  return app ? resolve(app) : undefined;
}

/**
 * The program launchd starts for a schedule, before `schedule run <id> --from-launchd`:
 * - `REIN_SCHEDULE_PROGRAM` (a JSON array) when set: kind `given`, used as it is;
 * - inside the desktop app, its own executable in headless mode: kind `app` (refused while macOS runs
 *   the app from a translocated copy or its disk image: appLocation.ts). A development build (`npm run
 *   dev`, `npm start`: Electron's binary running the project folder) records that folder too,
 *   `[Electron, <app folder>, --headless]`, or every fire would end in "Unable to find Electron app";
 * - otherwise `$REIN_HOME/bin/rein-launch`, the node to try first (the stable link of this one) and
 *   Rein's script: kind `launcher`, which finds another node when that one is gone (launcher.ts).
 */
export function resolveScheduleProgram(
  env: NodeJS.ProcessEnv,
  home: string,
  proc: Proc = process,
  launcher?: string,
  lookups?: PathLookups,
): ScheduleProgram {
  const given = env.REIN_SCHEDULE_PROGRAM?.trim();
  if (given) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(given);
    } catch {
      parsed = undefined;
    }
    if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((p) => typeof p === 'string' && p !== '')) {
      throw fieldError(
        'invalid_input',
        'REIN_SCHEDULE_PROGRAM: expected a JSON array of strings, e.g. ["/usr/local/bin/node", "/opt/rein/bin/rein.js"]',
        'REIN_SCHEDULE_PROGRAM',
      );
    }
    return { prefix: parsed as string[], kind: 'given' };
  }
  if (proc.versions.electron) {
    const problem = appLocationProblem(proc.execPath);
    if (proc.defaultApp) {
      const app = devAppPath(proc.argv);
      if (!app)
        throw new ReinError(
          'unavailable',
          'cannot tell which app folder this development Electron runs, so a launchd job could not start it; set REIN_SCHEDULE_PROGRAM',
        );
      return {
        prefix: [proc.execPath, app, '--headless'],
        kind: 'app',
        ...(problem ? { problem: problem.message } : {}),
      };
    }
    return { prefix: [proc.execPath, '--headless'], kind: 'app', ...(problem ? { problem: problem.message } : {}) };
  }
  const script = launcher ?? proc.argv[1];
  if (!script)
    throw new ReinError(
      'unavailable',
      'cannot tell which script started Rein, so a launchd job could not start it; set REIN_SCHEDULE_PROGRAM',
    );
  return { prefix: [launcherPath(home), stableNodePath(proc.execPath, lookups), resolve(script)], kind: 'launcher' };
}
