/**
 * The PATH a program of the person's would see in their terminal, for processes that were not started
 * from one. An app opened from the Finder, a daemon or a job started by launchd get launchd's default
 * `/usr/bin:/bin:/usr/sbin:/sbin`, which has no Homebrew (`gh`, `brew`, its `python3`), no
 * `~/.local/bin`, nothing the person's shell profile adds. Terminal apps fix this by asking the login
 * shell once; so does Rein (loginPath.ts reads it and hands it to `rememberLoginPath`). This module is
 * the synchronous side that `childEnvironment` can use without waiting: is a PATH minimal, what the
 * login shell said (once it has), and otherwise a fallback of well-known folders.
 *
 * Kept free of child processes on purpose: childEnv.ts imports it, and the process runner imports
 * childEnv.ts.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** What launchd gives every job and every app it starts (launchd.plist(5), `launchctl getenv PATH`). */
export const LAUNCHD_DEFAULT_PATH = '/usr/bin:/bin:/usr/sbin:/sbin';
const LAUNCHD_ENTRIES: ReadonlySet<string> = new Set(LAUNCHD_DEFAULT_PATH.split(':'));

/**
 * A PATH that is launchd's default and nothing more (in any order), or none at all: the process was
 * not started from a terminal, and programs the person installed are not on it.
 */
export function isMinimalPath(path: string | undefined): boolean {
  const entries = pathEntries(path ?? '');
  if (entries.length === 0) return true;
  return entries.every((e) => LAUNCHD_ENTRIES.has(e)) && new Set(entries).size === LAUNCHD_ENTRIES.size;
}

/** A PATH's folders: absolute ones only (an empty or relative entry means "the current folder"), each once. */
export function pathEntries(path: string): string[] {
  const out: string[] = [];
  for (const raw of path.split(':')) {
    const t = raw.trim();
    if (t === '' || !isAbsolute(t)) continue;
    const e = t.length > 1 ? t.replace(/\/+$/, '') || '/' : t;
    if (!out.includes(e)) out.push(e);
  }
  return out;
}

/**
 * Folders where package managers put programs, in the order their setup adds them (Homebrew's
 * `shellenv` puts its own first). Only those that exist are used.
 */
export function wellKnownFolders(home: string): string[] {
  return [
    '/opt/homebrew/bin',
    '/opt/homebrew/sbin',
    '/usr/local/bin',
    '/usr/local/sbin',
    '/opt/local/bin', // MacPorts
    '/opt/local/sbin',
    join(home, '.local', 'bin'),
    join(home, 'bin'),
    join(home, '.cargo', 'bin'),
  ];
}

export interface FallbackOptions {
  /** Default: does the folder exist. */
  exists?: (dir: string) => boolean;
}

/**
 * When the login shell cannot be asked (it fails, hangs, prints no PATH): the well-known folders that
 * exist, then the PATH the process has, then launchd's default.
 */
export function fallbackPath(env: NodeJS.ProcessEnv, opts: FallbackOptions = {}): string {
  const exists = opts.exists ?? existsSync;
  const home = env.HOME?.trim() || homedir();
  const known = wellKnownFolders(home).filter((d) => exists(d));
  return pathEntries([...known, env.PATH ?? '', LAUNCHD_DEFAULT_PATH].join(':')).join(':');
}

let remembered: string | undefined;

/** What the login shell said (loginPath.ts), for this process's later children. */
export function rememberLoginPath(path: string): void {
  remembered = path;
}

/** The login shell's PATH once it has been read in this process. */
export function knownLoginPath(): string | undefined {
  return remembered;
}

/** Tests: forget what was read. */
export function forgetLoginPath(): void {
  remembered = undefined;
}

/**
 * The PATH a child should get: `path` itself unless it is minimal; then the login shell's when it is
 * known already, else the fallback. Never waits.
 */
export function terminalPath(env: NodeJS.ProcessEnv, opts: FallbackOptions = {}): string {
  if (!isMinimalPath(env.PATH)) return env.PATH!;
  return remembered ?? fallbackPath(env, opts);
}
