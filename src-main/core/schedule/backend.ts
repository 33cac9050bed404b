/**
 * Where schedules fire: `launchd` (one job per schedule in ~/Library/LaunchAgents; runs with the app
 * closed and after the Mac wakes) or `daemon` (cron jobs inside the daemon; Linux, Windows, or by
 * choice). `REIN_SCHEDULE_BACKEND` overrides config `schedule.backend`; the default is launchd on macOS
 * and daemon elsewhere.
 */
import type { GlobalConfig } from '../config/schema.js';
import { fieldError } from '../errors.js';

export type ScheduleBackendName = 'launchd' | 'daemon';

export function scheduleBackend(env: NodeJS.ProcessEnv, config: Pick<GlobalConfig, 'schedule'>, platform: NodeJS.Platform = process.platform): ScheduleBackendName {
  const fromEnv = env.REIN_SCHEDULE_BACKEND?.trim();
  if (fromEnv) {
    if (fromEnv !== 'launchd' && fromEnv !== 'daemon') throw fieldError('invalid_input', `REIN_SCHEDULE_BACKEND: "${fromEnv}" is not launchd or daemon`, 'REIN_SCHEDULE_BACKEND');
    return fromEnv;
  }
  return config.schedule.backend ?? (platform === 'darwin' ? 'launchd' : 'daemon');
}

/**
 * The program launchd starts for a schedule, before `schedule run <id> --from-launchd`:
 * `REIN_SCHEDULE_PROGRAM` (a JSON array) when set; the app's own executable in headless mode inside
 * the packaged app; otherwise Node and the `rein` launcher this process was started with.
 */
export function scheduleProgram(env: NodeJS.ProcessEnv, proc: { execPath: string; argv: readonly string[]; versions: NodeJS.ProcessVersions } = process, launcher?: string): string[] {
  const given = env.REIN_SCHEDULE_PROGRAM?.trim();
  if (given) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(given);
    } catch {
      parsed = undefined;
    }
    if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((p) => typeof p === 'string' && p !== '')) {
      throw fieldError('invalid_input', 'REIN_SCHEDULE_PROGRAM: expected a JSON array of strings, e.g. ["/usr/local/bin/node", "/opt/rein/bin/rein.js"]', 'REIN_SCHEDULE_PROGRAM');
    }
    return parsed as string[];
  }
  if (proc.versions.electron) return [proc.execPath, '--headless'];
  const script = launcher ?? proc.argv[1];
  return script ? [proc.execPath, script] : [proc.execPath];
}
