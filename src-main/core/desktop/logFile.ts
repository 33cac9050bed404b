/**
 * The desktop app's log file. Opened from Finder (or at login) the app has no terminal: what it says on
 * stderr goes nowhere, so every warning also goes to a file a person (or a bug report) can read:
 *
 * - macOS: `~/Library/Logs/Rein/rein.log` (Console.app lists it under "Log Reports");
 * - Linux and elsewhere: `$XDG_STATE_HOME/rein/rein.log`, else `~/.local/state/rein/rein.log` (the XDG
 *   place for logs: not config, not cache, kept across updates);
 * - `REIN_LOG_DIR` (an absolute folder) overrides both.
 *
 * Rotated by size: past `maxBytes` the file becomes `rein.log.1` (`.1` → `.2` …, the oldest dropped), so
 * it never grows without bound. Writes are synchronous appends of one line each: the app logs rarely
 * (problems, not traffic), and a line must be on disk when the process dies right after it. A log that
 * cannot be written never stops the app: the line still goes to stderr and the failure is said once.
 */
import { appendFileSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { errorMessage } from '../errors.js';

export const LOG_FILE_NAME = 'rein.log';
export const LOG_MAX_BYTES = 5 * 1024 * 1024;
export const LOG_KEEP = 3;

export function logDirFor(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string {
  const override = env.REIN_LOG_DIR?.trim();
  if (override && isAbsolute(override)) return override;
  const home = env.HOME || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Logs', 'Rein');
  const state =
    env.XDG_STATE_HOME && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : join(home, '.local', 'state');
  return join(state, 'rein');
}

export const logFileFor = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string =>
  join(logDirFor(platform, env), LOG_FILE_NAME);

export interface RotatingLogOptions {
  maxBytes?: number;
  keep?: number;
  now?: () => Date;
  /** Where a failure to write the log itself is said (once). */
  stderr?: (text: string) => void;
}

export class RotatingLog {
  readonly #maxBytes: number;
  readonly #keep: number;
  readonly #now: () => Date;
  readonly #stderr: (text: string) => void;
  #size: number | undefined;
  #broken = false;

  constructor(
    readonly file: string,
    o: RotatingLogOptions = {},
  ) {
    this.#maxBytes = o.maxBytes ?? LOG_MAX_BYTES;
    this.#keep = Math.max(1, o.keep ?? LOG_KEEP);
    this.#now = o.now ?? (() => new Date());
    this.#stderr = o.stderr ?? ((t) => void process.stderr.write(t));
  }

  /** Appends `message` as one line: time, level, the text with its newlines kept readable. */
  write(level: 'info' | 'warn' | 'error', message: string): void {
    if (this.#broken) return;
    const line = `${this.#now().toISOString()} ${level} ${message.replace(/\r?\n/g, '\n    ')}\n`;
    try {
      if (this.#size === undefined) {
        mkdirSync(join(this.file, '..'), { recursive: true, mode: 0o700 });
        this.#size = sizeOf(this.file);
      }
      const bytes = Buffer.byteLength(line);
      if (this.#size > 0 && this.#size + bytes > this.#maxBytes) {
        this.#rotate();
        this.#size = 0;
      }
      appendFileSync(this.file, line, { mode: 0o600 });
      this.#size += bytes;
    } catch (e) {
      this.#broken = true;
      this.#stderr(`rein: the log ${this.file} cannot be written (${errorMessage(e)}); messages go to stderr only\n`);
    }
  }

  #rotate(): void {
    rmSync(`${this.file}.${this.#keep}`, { force: true });
    for (let i = this.#keep - 1; i >= 1; i--) {
      try {
        renameSync(`${this.file}.${i}`, `${this.file}.${i + 1}`);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    renameSync(this.file, `${this.file}.1`);
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
}
