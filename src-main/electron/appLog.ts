/**
 * The desktop app's log (core/desktop/logFile.ts): `~/Library/Logs/Rein/rein.log` on macOS,
 * `~/.local/state/rein/rein.log` on Linux, rotated. One per process; `warn` writes the line there and
 * to stderr (which a terminal launch shows and a Finder launch loses).
 */
import { logFileFor, RotatingLog } from '../core/desktop/logFile.js';

let shared: RotatingLog | undefined;

export function appLog(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
): RotatingLog {
  shared ??= new RotatingLog(logFileFor(platform, env));
  return shared;
}

/** A `warn` for the app: the log file and stderr. */
export function logWarn(
  log: RotatingLog,
  stderr: (text: string) => void = (t) => void process.stderr.write(t),
): (message: string) => void {
  return (message) => {
    log.write('warn', message);
    stderr(`rein: ${message}\n`);
  };
}
