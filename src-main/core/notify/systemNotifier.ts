/**
 * System notifications from a process that has no window: `rein daemon` without the app, and a
 * launchd-started schedule run that found no daemon to hand its run to. macOS: `osascript`'s `display
 * notification`, with title and body passed as arguments of the script (never spliced into its text,
 * so no answer of a model can turn into AppleScript). Linux, the twin: `notify-send` when it is on the
 * PATH. Elsewhere, or without the program, there is none.
 *
 * Shows one notification at a time (each is a short-lived process) and drops what piles up beyond a few,
 * so a burst of events cannot start a crowd of processes.
 */
import { execFile } from 'node:child_process';
import { findOnPath } from '../tools/builtin/support/executables.js';

export interface SystemNotice {
  title: string;
  body: string;
}

export interface SystemNotifier {
  /** `osascript` or `notify-send`. */
  readonly program: string;
  /** Resolves when shown; rejects with the program's error (callers warn, they never fail for it). */
  show(notice: SystemNotice): Promise<void>;
}

/** Runs a program with arguments (no shell); rejects on a non-zero exit or the timeout. */
export type RunProgram = (
  file: string,
  args: readonly string[],
  opts: { timeoutMs: number; env: NodeJS.ProcessEnv },
) => Promise<void>;

const TIMEOUT_MS = 10_000;
/** Notices waiting while one is shown; more are dropped. */
const MAX_WAITING = 4;
const TITLE_MAX = 120;
const BODY_MAX = 400;

// The notification's words are arguments of the script: `item 1 of argv` is never parsed as code.
const APPLESCRIPT = ['on run argv', 'display notification (item 2 of argv) with title (item 1 of argv)', 'end run'];

const runProgram: RunProgram = (file, args, opts) =>
  new Promise((resolve, reject) => {
    execFile(file, [...args], { timeout: opts.timeoutMs, env: opts.env, windowsHide: true }, (err, _stdout, stderr) => {
      if (!err) return resolve();
      const detail = String(stderr).trim().split('\n')[0] || err.message;
      reject(new Error(`${file} failed: ${detail}`));
    });
  });

/** The notifier of this platform, or undefined when it has none (`why` says so). */
export function systemNotifier(
  opts: { platform?: NodeJS.Platform; env?: NodeJS.ProcessEnv; run?: RunProgram } = {},
): SystemNotifier | { why: string } {
  const platform = opts.platform ?? process.platform;
  const env = opts.env ?? process.env;
  const run = opts.run ?? runProgram;
  let argv: (n: SystemNotice) => string[];
  let file: string | undefined;
  if (platform === 'darwin') {
    file = findOnPath('osascript', env.PATH) ?? '/usr/bin/osascript';
    argv = (n) => [...APPLESCRIPT.flatMap((line) => ['-e', line]), n.title, n.body];
  } else if (platform === 'linux') {
    file = findOnPath('notify-send', env.PATH);
    if (!file) return { why: 'notify-send is not installed (Debian/Ubuntu: apt install libnotify-bin)' };
    // `--` ends the options: a title that starts with "-" is still a title.
    argv = (n) => ['--app-name=Rein', '--', n.title, n.body];
  } else {
    return { why: `no system notifications on ${platform}` };
  }
  const program = file;
  let chain: Promise<void> = Promise.resolve();
  let waiting = 0;
  return {
    program: program.split('/').pop() ?? program,
    show(notice) {
      if (waiting >= MAX_WAITING)
        return Promise.reject(new Error('too many notifications at once; this one was dropped'));
      waiting++;
      const n = { title: clip(notice.title, TITLE_MAX), body: clip(notice.body, BODY_MAX) };
      const shown = chain.then(() => run(program, argv(n), { timeoutMs: TIMEOUT_MS, env }));
      chain = shown.then(
        () => undefined,
        () => undefined,
      );
      return shown.finally(() => {
        waiting--;
      });
    },
  };
}

export const isNotifier = (n: SystemNotifier | { why: string }): n is SystemNotifier => 'show' in n;

/** One line, at most `max` characters (control characters would garble a notification). */
function clip(text: string, max: number): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is taken out
  const line = text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
