/**
 * Whether a repository's own settings make git run programs. `git status`, `git diff`, `git log -p`,
 * `git grep` and friends only look — unless the repository says otherwise: `core.fsmonitor` and
 * `diff.external` name programs, `diff.<driver>.textconv` and `filter.<driver>.clean` run one per file,
 * `core.pager` and `gpg.program` run on output or signatures, and a `post-index-change` hook runs when
 * `git status` refreshes the index. A repository unpacked from an archive can carry any of these, so the
 * read-only git commands are allowed only in a repository whose settings name none of them.
 *
 * The check finds the repository the way git does (walking up from the folder to a `.git` folder or file,
 * a worktree's `commondir`, a bare repository), reads its `config` and `config.worktree`, follows
 * `include.path` / `includeIf.*.path` (every condition counts as met), the configs of submodules (under
 * `.git/modules` and those `.gitmodules` names), and looks for the hook. Anything it cannot read or parse
 * counts as naming a program. Results are kept while the files they came from are unchanged (their
 * inode, size and times: core/util/stampCache.ts), so a decision costs a few `stat` calls.
 *
 * Settings in your own ~/.gitconfig and /etc/gitconfig are yours and are not looked at.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { currentTurn, stampOf } from '../util/stampCache.js';

export interface GitRepoRisk {
  /** Why git may run a program the repository names (person-readable), or undefined when it names none. */
  reason?: string;
}

interface Cached {
  deps: string[];
  stamp: string;
  reason: string | undefined;
  /** The turn of the event loop in which the stamp was last found unchanged (files are checked once per turn). */
  checked: number;
}

const cache = new Map<string, Cached>();
const MAX_CACHE = 256;
const MAX_FILES = 48;

/** Environment variables that move git to another repository or config: what it would read is not this one's. */
const REDIRECTING_ENV = [
  'GIT_DIR',
  'GIT_COMMON_DIR',
  'GIT_WORK_TREE',
  'GIT_CONFIG',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG_PARAMETERS',
  'GIT_EXEC_PATH',
];

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};
const isFile = (p: string): boolean => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

class Unsure extends Error {}

/** A config value with quotes, escapes and trailing comments handled as git does. */
function configValue(raw: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (!quoted && (c === '#' || c === ';')) break;
    if (c === '\\') {
      const n = raw[++i];
      if (n === undefined) break;
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'b' ? '\b' : n;
      continue;
    }
    out += c;
  }
  if (quoted) throw new Unsure('an unterminated quote');
  return out.trim();
}

interface Entry {
  key: string;
  value: string | undefined;
}

/** Parses a git config file strictly: a line it does not understand makes the whole file "unsure". */
export function parseGitConfig(text: string): Entry[] {
  const entries: Entry[] = [];
  let section = '';
  // Join continuation lines (a backslash at the very end of a line).
  const lines = text.replace(/\r\n/g, '\n').replace(/\\\n/g, '').split('\n');
  for (const raw of lines) {
    let line = raw.replace(/^\uFEFF/, '').trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[')) {
      const m = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:\\.|[^"\\])*)")?\s*\]\s*(.*)$/.exec(line);
      if (!m) throw new Unsure(`the section header ${line.slice(0, 40)}`);
      section = m[2] !== undefined ? `${m[1]!.toLowerCase()}.${m[2].replace(/\\(.)/g, '$1')}` : m[1]!.toLowerCase();
      line = m[3]!.trim();
      if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    }
    const m = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=([\s\S]*))?$/.exec(line);
    if (!m || section === '') throw new Unsure(`the line ${line.slice(0, 40)}`);
    entries.push({
      key: `${section}.${m[1]!.toLowerCase()}`,
      value: m[2] === undefined ? undefined : configValue(m[2]),
    });
  }
  return entries;
}

const BOOLEAN = /^(true|false|yes|no|on|off|1|0|)$/i;

/** The setting names a program git would run for a read-only command, or undefined. */
function programKey(e: Entry): string | undefined {
  const k = e.key;
  const dot = k.indexOf('.');
  const section = k.slice(0, dot);
  const name = k.slice(k.lastIndexOf('.') + 1);
  const value = e.value ?? '';
  const sub = k.lastIndexOf('.') > dot;
  switch (section) {
    case 'core':
      if (name === 'fsmonitor') return BOOLEAN.test(value) ? undefined : k;
      if (name === 'pager') return value === '' || /^(less|cat|more)( -[A-Za-z]+)*$/.test(value) ? undefined : k;
      if (['sshcommand', 'gitproxy', 'askpass'].includes(name)) return k;
      return undefined;
    case 'pager':
      return BOOLEAN.test(value) || /^(less|cat|more)( -[A-Za-z]+)*$/.test(value) ? undefined : k;
    case 'diff':
      if (!sub) return name === 'external' ? k : undefined;
      return name === 'textconv' || name === 'command' ? k : undefined;
    case 'filter':
      return sub && ['clean', 'smudge', 'process'].includes(name) ? k : undefined;
    case 'gpg':
      return name === 'program' ? k : undefined;
    case 'man':
      return sub && (name === 'cmd' || name === 'path') ? k : name === 'viewer' ? k : undefined;
    case 'web':
    case 'help':
      return name === 'browser' ? k : undefined;
    case 'browser':
      return sub && (name === 'cmd' || name === 'path') ? k : undefined;
    default:
      return undefined;
  }
}

interface Scan {
  deps: string[];
  stamp: string;
  programs: Array<{ key: string; file: string }>;
  files: number;
}

function readText(file: string, scan: Scan): string | undefined {
  scan.deps.push(file);
  scan.stamp += `${stampOf([file])}`;
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new Unsure(`${file} could not be read (${code ?? 'error'})`);
  }
}

function scanConfig(
  file: string,
  scan: Scan,
  home: string,
  depth = 0,
): { hooksPath?: string; worktreeConfig: boolean } {
  let hooksPath: string | undefined;
  let worktreeConfig = false;
  if (++scan.files > MAX_FILES) throw new Unsure('there are too many configuration files to read');
  const text = readText(file, scan);
  if (text === undefined) return { worktreeConfig };
  let entries: Entry[];
  try {
    entries = parseGitConfig(text);
  } catch (e) {
    throw e instanceof Unsure ? new Unsure(`${file} has ${e.message} that this check does not understand`) : e;
  }
  for (const e of entries) {
    const program = programKey(e);
    if (program) scan.programs.push({ key: program, file });
    if (e.key === 'core.hookspath' && e.value) hooksPath = e.value;
    if (e.key === 'extensions.worktreeconfig' && /^(true|yes|on|1)$/i.test(e.value ?? '')) worktreeConfig = true;
    if ((e.key === 'include.path' || (e.key.startsWith('includeif.') && e.key.endsWith('.path'))) && e.value) {
      if (depth >= 8) throw new Unsure('includes are nested too deeply');
      const target = e.value.startsWith('~/')
        ? path.join(home, e.value.slice(2))
        : path.resolve(path.dirname(file), e.value);
      const inner = scanConfig(target, scan, home, depth + 1);
      hooksPath = inner.hooksPath ?? hooksPath;
      worktreeConfig ||= inner.worktreeConfig;
    }
  }
  return { ...(hooksPath !== undefined ? { hooksPath } : {}), worktreeConfig };
}

interface Found {
  /** The repository's own git dir (a worktree's), and the common one holding `config`. */
  gitDir: string;
  commonDir: string;
  /** The top of the working tree (undefined for a bare repository). */
  top?: string;
}

/** `gitdir: PATH` in a `.git` file. */
function gitFileTarget(file: string, scan: Scan): string {
  const text = readText(file, scan);
  const m = text === undefined ? null : /^gitdir:\s*(.+?)\s*$/m.exec(text);
  if (!m) throw new Unsure(`${file} is a .git file this check does not understand`);
  return path.resolve(path.dirname(file), m[1]!);
}

function commonDirOf(gitDir: string, scan: Scan): string {
  const text = readText(path.join(gitDir, 'commondir'), scan);
  return text === undefined ? gitDir : path.resolve(gitDir, text.trim());
}

const looksLikeGitDir = (d: string): boolean =>
  isFile(path.join(d, 'HEAD')) && isDir(path.join(d, 'objects')) && isDir(path.join(d, 'refs'));

/** Finds the repository git would use from `dir`, as git's discovery does. */
function discover(dir: string, scan: Scan): Found | undefined {
  let d = path.resolve(dir);
  for (let guard = 0; guard < 128; guard++) {
    const dotGit = path.join(d, '.git');
    scan.deps.push(dotGit);
    scan.stamp += stampOf([dotGit]);
    if (isDir(dotGit) && isFile(path.join(dotGit, 'HEAD')))
      return { gitDir: dotGit, commonDir: commonDirOf(dotGit, scan), top: d };
    if (isFile(dotGit)) {
      const gitDir = gitFileTarget(dotGit, scan);
      return { gitDir, commonDir: commonDirOf(gitDir, scan), top: d };
    }
    const head = path.join(d, 'HEAD');
    scan.deps.push(head);
    scan.stamp += stampOf([head]);
    if (looksLikeGitDir(d)) return { gitDir: d, commonDir: commonDirOf(d, scan) };
    const parent = path.dirname(d);
    if (parent === d) return undefined;
    d = parent;
  }
  throw new Unsure('the folder is nested too deeply');
}

/** Everything a repository's settings make git run; throws Unsure when that cannot be told. */
function scanRepository(found: Found, scan: Scan, home: string): void {
  const main = scanConfig(path.join(found.commonDir, 'config'), scan, home);
  let hooksPath = main.hooksPath;
  if (main.worktreeConfig && found.gitDir !== found.commonDir) {
    hooksPath = scanConfig(path.join(found.gitDir, 'config.worktree'), scan, home).hooksPath ?? hooksPath;
  }
  const hooks = hooksPath
    ? hooksPath.startsWith('~/')
      ? path.join(home, hooksPath.slice(2))
      : path.resolve(found.top ?? found.commonDir, hooksPath)
    : path.join(found.commonDir, 'hooks');
  const hook = path.join(hooks, 'post-index-change');
  scan.deps.push(hook);
  scan.stamp += stampOf([hook]);
  if (isFile(hook)) scan.programs.push({ key: 'the post-index-change hook', file: hook });
  // Submodules: git status runs git inside each one, with that one's settings.
  const modules = path.join(found.commonDir, 'modules');
  scan.deps.push(modules);
  scan.stamp += stampOf([modules]);
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    if (names.includes('config')) scanConfig(path.join(dir, 'config'), scan, home);
    if (depth >= 4) return;
    for (const n of names) {
      if (n === 'objects' || n === 'refs' || n === 'logs' || n === 'hooks' || n === 'info') continue;
      const child = path.join(dir, n);
      if (isDir(child)) walk(child, depth + 1);
    }
  };
  if (isDir(modules)) walk(modules, 0);
  if (found.top) {
    const text = readText(path.join(found.top, '.gitmodules'), scan);
    if (text !== undefined) {
      const paths = [...text.matchAll(/^\s*path\s*=\s*(.+?)\s*$/gm)].map((m) => m[1]!);
      if (paths.length > 16) throw new Unsure('the repository has too many submodules to check');
      for (const p of paths) {
        const dotGit = path.join(found.top, p, '.git');
        scan.deps.push(dotGit);
        scan.stamp += stampOf([dotGit]);
        if (isFile(dotGit)) scanConfig(path.join(commonDirOf(gitFileTarget(dotGit, scan), scan), 'config'), scan, home);
        else if (isDir(dotGit)) scanConfig(path.join(dotGit, 'config'), scan, home);
      }
    }
  }
}

export interface GitRepoQuery {
  /** The folder git runs in (after `cd` and `-C`). */
  dir: string;
  /** `--git-dir=…`, resolved against dir. */
  gitDir?: string;
  home: string;
  /** The environment git will get (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

/** Why git may run a program the repository at `dir` names, or undefined when its settings name none. */
export function gitRepoRisk(q: GitRepoQuery): string | undefined {
  const env = q.env ?? process.env;
  const moved = REDIRECTING_ENV.find((k) => env[k] !== undefined && env[k] !== '');
  if (moved) return `the environment sets ${moved}, so it is not clear which repository settings git reads`;
  const key = `${q.home}\0${q.dir}\0${q.gitDir ?? ''}`;
  const hit = cache.get(key);
  const now = currentTurn();
  if (hit && (hit.checked === now || stampOf(hit.deps) === hit.stamp)) {
    hit.checked = now;
    return hit.reason;
  }
  const scan: Scan = { deps: [], stamp: '', programs: [], files: 0 };
  let reason: string | undefined;
  try {
    const found =
      q.gitDir !== undefined
        ? { gitDir: path.resolve(q.dir, q.gitDir), commonDir: commonDirOf(path.resolve(q.dir, q.gitDir), scan) }
        : discover(q.dir, scan);
    if (found) scanRepository(found, scan, q.home);
    if (scan.programs.length > 0) {
      const first = scan.programs[0]!;
      const keys = [...new Set(scan.programs.map((p) => p.key))].slice(0, 3).join(', ');
      reason = `the repository's settings (${first.file}) name programs git would run: ${keys}`;
    }
  } catch (e) {
    if (!(e instanceof Unsure)) throw e;
    reason = `the repository's settings could not be checked (${e.message}), so git might run a program they name`;
  }
  if (cache.size >= MAX_CACHE) cache.delete(cache.keys().next().value!);
  cache.set(key, { deps: scan.deps, stamp: scan.stamp, reason, checked: now });
  return reason;
}

/** Forgets every cached answer (tests). */
export function clearGitRepoCache(): void {
  cache.clear();
}
