/**
 * The login shell's PATH, read once per process the way terminal apps read it: the person's shell
 * (`$SHELL`, else the account's shell) runs as a login, interactive shell —
 * `"$SHELL" -l -i -c "printf …"` — so it reads the same profile and rc files a new terminal window
 * does (`/etc/zprofile`'s path_helper, `brew shellenv`, nvm, pyenv …), and prints PATH between two
 * marker lines so whatever the rc files print around it is skipped.
 *
 * It never waits on a person: stdin is /dev/null, the shell leads its own session (no terminal to
 * read a prompt from), and after 3 s it is stopped with its whole process group. Whatever goes wrong —
 * no shell, a shell that fails, hangs or prints no PATH (csh wants `-l` alone) — the answer is the
 * fallback (terminalPath.ts): the well-known folders that exist, the current PATH, launchd's default.
 *
 * Used where a process that did not come from a terminal (the app opened from the Finder, a daemon
 * started by launchd) hands a PATH on: the plist of a schedule it makes (launchdJobs.ts), and its
 * children's environment (childEnv.ts, once `primeLoginPath` has read it).
 */
import { userInfo } from 'node:os';
import { isAbsolute } from 'node:path';
import { childEnvironment } from './childEnv.js';
import { runProcess } from './subprocess.js';
import {
  fallbackPath,
  isMinimalPath,
  LAUNCHD_DEFAULT_PATH,
  pathEntries,
  rememberLoginPath,
  forgetLoginPath,
} from './terminalPath.js';

export const LOGIN_PATH_TIMEOUT_MS = 3_000;
const START = '__REIN_LOGIN_PATH_START__';
const END = '__REIN_LOGIN_PATH_END__';
// Separate printf arguments, not "$PATH" glued to a marker: zsh reads `$PATH:x` as a modifier, sh reads
// `$PATH_X` as another name. fish joins a quoted "$PATH" with colons too.
const SCRIPT = `printf '%s\\n%s\\n%s\\n' ${START} "$PATH" ${END}`;

export interface LoginPathOptions {
  /** Where SHELL and HOME come from, and the shell's environment (without Rein's secrets). */
  env: NodeJS.ProcessEnv;
  /** The account's shell when SHELL is not set (default: the user database, as dscl / getent read it). */
  accountShell?: () => string | undefined;
  timeoutMs?: number;
}

export interface LoginPath {
  path: string;
  /** `login_shell`: what the shell printed; `fallback`: it could not be asked (see `problem`). */
  source: 'login_shell' | 'fallback';
  shell?: string;
  problem?: string;
}

/**
 * The shell to ask: SHELL when it names an absolute path, else the account's login shell from the user
 * database (getpwuid: the record `dscl . -read /Users/$USER UserShell` shows on macOS and
 * `getent passwd` on Linux).
 */
export function userShell(
  env: NodeJS.ProcessEnv,
  accountShell: () => string | undefined = defaultAccountShell,
): string | undefined {
  const fromEnv = env.SHELL?.trim();
  if (fromEnv && isAbsolute(fromEnv)) return fromEnv;
  const account = accountShell()?.trim();
  return account && isAbsolute(account) ? account : undefined;
}

function defaultAccountShell(): string | undefined {
  try {
    return userInfo().shell ?? undefined;
  } catch {
    return undefined;
  }
}

/** Asks the login shell now (no cache). Never throws: a failure is the fallback with its reason. */
export async function readLoginShellPath(opts: LoginPathOptions): Promise<LoginPath> {
  const shell = userShell(opts.env, opts.accountShell);
  const fallback = (problem: string): LoginPath => ({
    path: fallbackPath(opts.env),
    source: 'fallback',
    ...(shell ? { shell } : {}),
    problem,
  });
  if (!shell) return fallback('no login shell: SHELL is not set and the account has none');
  const run = await runProcess({
    file: shell,
    args: ['-l', '-i', '-c', SCRIPT],
    env: { ...childEnvironment(opts.env), PATH: fallbackPath(opts.env) },
    timeoutMs: opts.timeoutMs ?? LOGIN_PATH_TIMEOUT_MS,
    killGraceMs: 500,
    lingering: 'kill',
    output: { mode: 'separate', stdoutMaxBytes: 256 * 1024, stderrMaxBytes: 16 * 1024 },
  });
  if (run.kind === 'spawn_failed') return fallback(`${shell} could not be started: ${run.error.message}`);
  // The PATH counts whenever both markers came out, even from a shell whose rc files then failed or hung.
  const printed = markedPath(run.stdout);
  if (printed === undefined) {
    const how =
      run.kind === 'timed_out'
        ? `did not answer within ${opts.timeoutMs ?? LOGIN_PATH_TIMEOUT_MS} ms`
        : `printed no PATH (exit ${run.exitCode ?? run.exitSignal})`;
    return fallback(`${shell} -l -i ${how}`);
  }
  const entries = pathEntries(printed);
  if (entries.length === 0) return fallback(`${shell} -l -i printed an empty PATH`);
  // launchd's folders stay reachable whatever the profile did.
  return { path: pathEntries([...entries, LAUNCHD_DEFAULT_PATH].join(':')).join(':'), source: 'login_shell', shell };
}

/** The line between the last pair of markers. */
function markedPath(stdout: string): string | undefined {
  const lines = stdout.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 2; i--) {
    if (lines[i] === END && lines[i - 2] === START) return lines[i - 1];
  }
  return undefined;
}

const cache = new Map<string, Promise<LoginPath>>();

/**
 * The login shell's PATH, asked once per process for a shell and home (a failure is remembered too,
 * so nothing waits 3 s twice). What a shell said is kept for children started later (terminalPath.ts).
 */
export function loginShellPath(opts: LoginPathOptions): Promise<LoginPath> {
  const key = `${userShell(opts.env, opts.accountShell) ?? ''}\0${opts.env.HOME ?? ''}`;
  let found = cache.get(key);
  if (!found) {
    found = readLoginShellPath(opts).then((r) => {
      if (r.source === 'login_shell') rememberLoginPath(r.path);
      return r;
    });
    cache.set(key, found);
  }
  return found;
}

/**
 * The PATH to hand on from `env`: its own when it is a terminal's, else the login shell's (or the
 * fallback). For what is written down for later (a launchd plist).
 */
export async function pathToHandOn(env: NodeJS.ProcessEnv, opts: Omit<LoginPathOptions, 'env'> = {}): Promise<string> {
  if (!isMinimalPath(env.PATH)) return env.PATH!;
  return (await loginShellPath({ ...opts, env })).path;
}

/**
 * A long-lived process without a terminal's PATH (the app from the Finder, a daemon from launchd) reads
 * the login shell's in the background at start, so its runs' tools get it; until then they get the
 * fallback. Does nothing for a process started from a terminal.
 */
export function primeLoginPath(env: NodeJS.ProcessEnv = process.env): void {
  if (!isMinimalPath(env.PATH)) return;
  void loginShellPath({ env }).catch(() => undefined);
}

/** Tests: forget every answer. */
export function resetLoginPathCache(): void {
  cache.clear();
  forgetLoginPath();
}
