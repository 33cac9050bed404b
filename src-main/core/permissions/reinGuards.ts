/**
 * The guards that keep a run from acting as Rein itself (docs/permissions.md, *Threat model*): no tool
 * may read or change Rein's own secrets (the daemon token, the stored API key, webhook and OAuth
 * secrets: core/secrets/reinSecrets.ts), and no tool may talk to Rein's own daemon. Both are hard blocks:
 * denied in every mode, with `--yes`, `auto_approve` and `bypassPermissions` too, because a run that
 * holds the token or reaches the daemon could create an agent with more permissions, or answer its own
 * questions.
 *
 * For shell lines the guard works on the shell analysis (core/permissions/shell): every simple command
 * at any depth (after `;`, in `$( )`, behind wrappers, in `sh -c` strings, `find -exec`, inline code,
 * heredocs), every reading of every word (brace expansion, variables set in the line, `~`, relative to
 * the working folder and to every `cd` target, symlinks resolved), globs matched against the secret
 * paths as bash would expand them, recursive readers and archivers over a folder that holds the
 * secrets, and listings of that folder fed to `xargs` or a shell.
 */
import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { isLoopbackHost } from '../util/loopback.js';
import { realpathLoose } from '../util/realpath.js';
import {
  containsReinSecrets,
  reinHomeForms,
  reinSecretPaths,
  reinSecretReason,
  REIN_SECRET_FILES,
} from '../secrets/reinSecrets.js';
import { pathCandidates, type PathContext } from './shell/normalize.js';
import { UNKNOWN, UNKNOWN_NONEMPTY, type ShellAnalysis, type SimpleCommand } from './shell/types.js';

/** `daemon.port`'s default (config/schema.ts). */
export const DEFAULT_DAEMON_PORT = 7533;

export interface ReinGuardHit {
  rule: 'rein-secrets' | 'rein-daemon';
  reason: string;
}

// ---- the daemon's port ------------------------------------------------------------------------------

interface PortEntry {
  stamp: string;
  port: number | undefined;
}
const portCache = new Map<string, PortEntry>();

/** The port in `$REIN_HOME/daemon.json` (the daemon running for this home), re-read when the file changes. */
export function runningDaemonPort(reinHome: string): number | undefined {
  const file = path.join(reinHome, 'daemon.json');
  let stamp: string;
  try {
    const st = statSync(file);
    stamp = `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    portCache.delete(file);
    return undefined;
  }
  const hit = portCache.get(file);
  if (hit && hit.stamp === stamp) return hit.port;
  let port: number | undefined;
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as { port?: unknown };
    port =
      typeof raw.port === 'number' && Number.isInteger(raw.port) && raw.port > 0 && raw.port < 65_536
        ? raw.port
        : undefined;
  } catch {
    port = undefined;
  }
  if (portCache.size > 64) portCache.clear();
  portCache.set(file, { stamp, port });
  return port;
}

/** The ports Rein's daemon listens on or will: the configured ones plus the one daemon.json names now. */
export function reinPorts(reinHome: string, configured: readonly number[]): number[] {
  const running = runningDaemonPort(reinHome);
  const all = new Set(configured.filter((p) => p > 0));
  if (running !== undefined) all.add(running);
  return [...all];
}

const bareHost = (host: string): string =>
  host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');

let interfaceCache: { at: number; addresses: Set<string> } | undefined;
/** This machine's own addresses (every interface), refreshed every few seconds. */
function localAddresses(): Set<string> {
  const now = Date.now();
  if (!interfaceCache || now - interfaceCache.at > 5_000) {
    const addresses = new Set<string>();
    try {
      for (const list of Object.values(os.networkInterfaces()))
        for (const a of list ?? []) addresses.add(a.address.toLowerCase());
    } catch {
      // No interfaces to list: only the names below count.
    }
    interfaceCache = { at: now, addresses };
  }
  return interfaceCache.addresses;
}

/** An address or name that reaches this machine: loopback, a wildcard, one of its interface addresses. */
export function isThisMachine(host: string): boolean {
  const h = bareHost(host);
  if (h === '' || isLoopbackHost(h)) return true;
  if (
    h === '0.0.0.0' ||
    h === '::' ||
    h === '0' ||
    /^::ffff:0(\.0\.0\.0|:0)$/.test(h) ||
    /^::ffff:(0\.|0{1,4}:)/.test(h)
  )
    return true;
  if (localAddresses().has(h)) return true;
  const name = os.hostname().toLowerCase();
  return h === name || h === `${name}.local` || h === name.replace(/\.local$/, '');
}

/**
 * Why a request to this URL would reach Rein's daemon, or undefined. The port decides: any host on a
 * Rein port is refused unless it is the IP address of another machine, because a name (`localhost`,
 * `lvh.me`, an /etc/hosts entry, the machine's own name) may resolve to this one.
 */
export function daemonUrlReason(url: URL, ports: readonly number[]): string | undefined {
  const defaultPort = url.protocol === 'https:' || url.protocol === 'wss:' ? 443 : 80;
  const port = url.port === '' ? defaultPort : Number(url.port);
  if (!ports.includes(port)) return undefined;
  const host = bareHost(url.hostname);
  if (isIP(host) !== 0 && !isThisMachine(host)) return undefined;
  return `${url.hostname}:${port} is Rein's own daemon (port ${port}); tools may not use Rein's API`;
}

// ---- shell lines ------------------------------------------------------------------------------------

export interface ShellGuardContext {
  home: string;
  cwd: string;
  reinHome: string;
  ports: readonly number[];
}

/** Commands that only show names or metadata, never contents: harmless on a secret path when their output is only shown. */
const NAMES_ONLY = new Set([
  'ls',
  'stat',
  'du',
  'file',
  'test',
  '[',
  '[[',
  'echo',
  'printf',
  'realpath',
  'readlink',
  'basename',
  'dirname',
  'cd',
  'pushd',
  'popd',
  'tree',
  'type',
  'which',
  'true',
  'false',
  ':',
  'exa',
  'eza',
  'lsd',
]);
/** Listing commands whose output names the files of the folders they are given; `recursive`: of every folder below. */
const LISTERS: ReadonlyMap<string, 'recursive' | 'flat'> = new Map([
  ['ls', 'flat'],
  ['exa', 'flat'],
  ['eza', 'flat'],
  ['lsd', 'flat'],
  ['find', 'recursive'],
  ['fd', 'recursive'],
  ['fdfind', 'recursive'],
  ['tree', 'recursive'],
  ['du', 'recursive'],
]);
/** Stages that take file names on stdin and act on the files (or run them). */
const PATH_CONSUMERS = new Set([
  'xargs',
  'parallel',
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'read',
  'tar',
  'cpio',
  'zip',
  'rsync',
  'pax',
  'source',
  '.',
  'eval',
]);
/** Searchers that read every file below a folder. */
const GREP_FAMILY = new Set(['grep', 'egrep', 'fgrep', 'ggrep', 'zgrep']);
/** Recursive by nature; they skip hidden folders (such as `.rein`) unless told otherwise. */
const HIDDEN_SKIPPING_SEARCHERS = new Set(['rg', 'ag', 'pt', 'sift']);
const ALWAYS_RECURSIVE_SEARCHERS = new Set(['ack', 'ugrep', 'ug']);
/** Archivers and copiers that take a whole folder. */
const ARCHIVERS = new Set([
  'tar',
  'gtar',
  'bsdtar',
  'zip',
  '7z',
  '7za',
  '7zz',
  'pax',
  'ditto',
  'rclone',
  'restic',
  'borg',
  'duplicity',
  'rar',
  'xar',
  'aa',
  'hdiutil',
  'mkisofs',
  'genisoimage',
]);
/** Copiers and walkers that are recursive only with a flag. */
const FLAG_RECURSIVE = new Set([
  'cp',
  'gcp',
  'scp',
  'rsync',
  'diff',
  'chmod',
  'chown',
  'chgrp',
  'setfacl',
  'xattr',
  'zip',
  'sftp',
]);

const isOption = (v: string): boolean => v.startsWith('-') && v !== '-';

/** `-r`, `-R`, `-a` (archive), `--recursive`, a cluster holding one (`-rn`), `-d recurse`. */
function hasRecursiveFlag(cmd: SimpleCommand): boolean {
  const values = cmd.args.map((a) => a.value);
  return values.some((v, i) => {
    if (/^--(recursive|dereference-recursive|archive|directories=recurse|recurse)$/.test(v)) return true;
    if (/^-[a-zA-Z]+$/.test(v) && /[rRa]/.test(v.slice(1)))
      return !(cmd.name === 'diff' && /a/.test(v.slice(1)) && !/[rR]/.test(v.slice(1)));
    return (v === '-d' || v === '--directories') && values[i + 1] === 'recurse';
  });
}

const showsHidden = (cmd: SimpleCommand): boolean =>
  cmd.args.some(
    (a) =>
      /^(--hidden|--unrestricted|-uu+|-\.|-[a-zA-Z]*u[a-zA-Z]*u[a-zA-Z]*|--no-ignore-hidden)$/.test(a.value) ||
      (/^-[a-zA-Z]+$/.test(a.value) && /H/.test(a.value.slice(1))),
  );

/** The operands of a searcher: its positional arguments after the pattern (unless `-e`/`-f` gave it). */
function searchRoots(cmd: SimpleCommand): string[] {
  const values = cmd.args.map((a) => a.value);
  const patternGiven = values.some((v) => /^(-e|-f|--regexp(=.*)?|--file(=.*)?|-[a-zA-Z]*[ef])$/.test(v));
  const positional: string[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v === '--') {
      positional.push(...values.slice(i + 1));
      break;
    }
    if (isOption(v)) {
      // Options that take the next word as their value.
      if (
        /^(-e|-f|--regexp|--file|-g|--glob|-t|--type|-T|--type-not|-m|--max-count|-A|-B|-C|--context|-d|--directories|--include|--exclude)$/.test(
          v,
        )
      )
        i++;
      continue;
    }
    positional.push(v);
  }
  const roots = patternGiven ? positional : positional.slice(1);
  return roots.length > 0 ? roots : ['.'];
}

/** The starting folders of `find` (its operands before the first expression). */
function findRoots(cmd: SimpleCommand): string[] {
  const roots: string[] = [];
  for (const a of cmd.args) {
    const v = a.value;
    if (v === '-H' || v === '-L' || v === '-P' || v === '-E' || v === '-X' || v === '-s' || v === '-x') continue;
    if (v.startsWith('-') || v === '(' || v === '!' || v === ')') break;
    roots.push(v);
  }
  return roots.length > 0 ? roots : ['.'];
}

/** find actions that hand each file to a program (which may read it); -delete and -fprint do not show contents. */
const FIND_ACTIONS = /^-(exec|execdir|ok|okdir)$/;

/** Every value a word may take, and `$REIN_HOME` read as the folder it names. */
function readingsOf(word: { value: string; alternatives: string[]; display: string }, reinHome: string): string[] {
  const out = new Set([word.value, ...word.alternatives]);
  if (/\$\{?REIN_HOME\}?/.test(word.display)) out.add(word.display.replace(/\$\{?REIN_HOME\}?/g, reinHome));
  return [...out];
}

/** Path-like parts of a word: the word, what follows `=` (`--file=…`, `if=…`), a short option's glued value, and every `/…` or `~/…` inside it. */
function pathTokens(value: string): string[] {
  const out = new Set<string>();
  const pathLike = (t: string) => /[/~.]/.test(t);
  if (value !== '' && !isOption(value)) out.add(value);
  const eq = value.indexOf('=');
  if (eq >= 0 && eq < value.length - 1 && pathLike(value.slice(eq + 1))) out.add(value.slice(eq + 1));
  if (/^-[a-zA-Z]./.test(value) && !value.startsWith('--') && pathLike(value.slice(2))) out.add(value.slice(2));
  for (const m of value.matchAll(/(?:~|\/)[^\s'"`()<>|&;,=:@]*/g)) if (m[0] !== '/' && m[0] !== '~') out.add(m[0]);
  return [...out].filter((t) => t !== '');
}

const GLOBBY = new RegExp(`[*?[${UNKNOWN}${UNKNOWN_NONEMPTY}]`);

interface SecretTargets {
  /** Secret files and the secrets folder, lower-cased. */
  paths: string[];
  /** Samples inside the secrets folder, so a glob like `secrets/*` is seen to reach it. */
  samples: string[];
  /** REIN_HOME in each form and every folder above it. */
  covering: string[];
}

const targetsCache = new Map<string, SecretTargets>();
function secretTargets(reinHome: string): SecretTargets {
  let t = targetsCache.get(reinHome);
  if (!t) {
    const paths = reinSecretPaths(reinHome);
    const samples = paths.filter((p) => p.endsWith('/secrets')).flatMap((p) => [`${p}/x`, `${p}/x/y.json`]);
    const covering = new Set<string>();
    for (const h of reinHomeForms(reinHome)) {
      for (let d = h; ; d = path.posix.dirname(d)) {
        covering.add(d);
        if (d === '/' || d === '.') break;
      }
    }
    t = { paths, samples, covering: [...covering] };
    if (targetsCache.size > 32) targetsCache.clear();
    targetsCache.set(reinHome, t);
  }
  return t;
}

const globMatchers = new Map<string, picomatch.Matcher>();
function globMatcher(pattern: string, dot: boolean): picomatch.Matcher {
  const key = `${dot ? 1 : 0}${pattern}`;
  let m = globMatchers.get(key);
  if (!m) {
    // An unknown part (a variable only known at run time) may be anything within one path segment.
    const glob = pattern.replaceAll(UNKNOWN, '*').replaceAll(UNKNOWN_NONEMPTY, '*');
    m = picomatch(glob, { dot, nocase: true, strictBrackets: false });
    if (globMatchers.size > 500) globMatchers.clear();
    globMatchers.set(key, m);
  }
  return m;
}

/** The secret this absolute path (or glob) names, if any. */
function secretNamed(abs: string, reinHome: string, dot: boolean): string | undefined {
  if (GLOBBY.test(abs)) {
    // Everything below the secrets folder is secret: a glob whose fixed part is in there names secrets.
    const segs = abs.split('/');
    const fixed = segs
      .slice(
        0,
        segs.findIndex((seg) => GLOBBY.test(seg)),
      )
      .join('/');
    const inFixed = fixed
      ? (reinSecretReason(fixed, reinHome) ?? reinSecretReason(realpathLoose(fixed), reinHome))
      : undefined;
    if (inFixed) return `${showPath(abs)}: ${inFixed}`;
    const t = secretTargets(reinHome);
    const m = globMatcher(abs, dot);
    const hit = [...t.paths, ...t.samples].find((p) => m(p));
    return hit
      ? `${showPath(abs)} can expand to ${hit.endsWith('/x') || hit.endsWith('/y.json') ? "a file in Rein's secrets folder" : hit}, and ${reinSecretReason(hit, reinHome) ?? "it holds Rein's credentials"}`
      : undefined;
  }
  const why = reinSecretReason(abs, reinHome) ?? reinSecretReason(realpathLoose(abs), reinHome);
  return why ? `${showPath(abs)}: ${why}` : undefined;
}

/** This absolute path (or glob) is REIN_HOME or a folder above it, or can expand to one. */
function coversSecrets(abs: string, reinHome: string, dot: boolean): boolean {
  if (GLOBBY.test(abs)) {
    const m = globMatcher(abs, dot);
    const t = secretTargets(reinHome);
    return t.covering.some((d) => m(d)) || [...t.paths, ...t.samples].some((p) => m(p));
  }
  return (
    containsReinSecrets(abs, reinHome) ||
    containsReinSecrets(realpathLoose(abs), reinHome) ||
    reinSecretReason(abs, reinHome) !== undefined
  );
}

const showPath = (p: string): string => p.replaceAll(UNKNOWN, '$…').replaceAll(UNKNOWN_NONEMPTY, '$…');
const quote = (s: string, max = 120): string => `\`${s.length > max ? `${s.slice(0, max - 1)}…` : s}\``;

/** Code handed to an interpreter, and text fed on stdin, that names a secret file of REIN_HOME. */
function codeNamesSecret(code: string, ctx: ShellGuardContext, pathCtx: PathContext, dot: boolean): string | undefined {
  for (const token of pathTokens(code)) {
    for (const abs of pathCandidates(token, pathCtx)) {
      const why = secretNamed(abs, ctx.reinHome, dot);
      if (why) return why;
    }
  }
  // A path put together in code (`os.path.join(HOME, '.rein', 'daemon.json')`) still names both parts.
  const lower = code.toLowerCase();
  const homeNames = new Set(reinHomeForms(ctx.reinHome).map((h) => path.posix.basename(h)));
  homeNames.add('.rein');
  if ([...homeNames].some((n) => lower.includes(n))) {
    const file = REIN_SECRET_FILES.find((f) => lower.includes(f));
    if (file) return `it names ${file} in Rein's folder, which holds Rein's own credentials`;
  }
  return undefined;
}

/** The stages of the pipeline `cmd` runs in, and the index of its own stage. */
function pipelineOf(a: ShellAnalysis, cmd: SimpleCommand): { stages: SimpleCommand[][]; index: number } | undefined {
  for (const stages of a.pipelines) {
    for (const [index, stage] of stages.entries()) {
      if (stage.includes(cmd)) return { stages, index };
    }
  }
  return undefined;
}

/** Does what `cmd` prints go on to a stage that acts on file names (xargs, a shell, tar -T -…)? */
function feedsPathConsumer(a: ShellAnalysis, cmd: SimpleCommand): boolean {
  const p = pipelineOf(a, cmd);
  if (!p) return false;
  return p.stages
    .slice(p.index + 1)
    .some((stage) => stage.some((c) => PATH_CONSUMERS.has(c.name) || c.wrappers.some((w) => PATH_CONSUMERS.has(w))));
}

/** Why the line would touch Rein's secrets, or undefined. */
export function shellSecretReason(a: ShellAnalysis, ctx: ShellGuardContext): string | undefined {
  const pathCtx: PathContext = { home: ctx.home, cwd: ctx.cwd, extraHomes: a.homeValues, cdTargets: a.cdTargets };
  // bash leaves dot files out of `*` unless dotglob is on.
  const dot = /\bdotglob\b|\bGLOBIGNORE=/.test(a.line);
  const candidatesOf = (raw: string): string[] => pathTokens(raw).flatMap((t) => pathCandidates(t, pathCtx));

  // Redirections read or write files whatever the command is: `cat < ~/.rein/daemon.json`, `echo x > …/daemon.token`.
  for (const r of a.redirects) {
    if (r.kind !== 'read' && r.kind !== 'write') continue;
    for (const abs of pathCandidates(r.target, pathCtx)) {
      const why = secretNamed(abs, ctx.reinHome, dot);
      if (why) return `${quote(a.line)} ${r.kind === 'read' ? 'reads' : 'writes'} ${why}`;
    }
  }
  for (const cmd of [...a.commands, ...a.hidden]) {
    const label = quote(cmd.innerText || cmd.text);
    for (const r of cmd.redirects) {
      if (r.kind !== 'read' && r.kind !== 'write') continue;
      for (const abs of pathCandidates(r.target, pathCtx)) {
        const why = secretNamed(abs, ctx.reinHome, dot);
        if (why) return `${label} ${r.kind === 'read' ? 'reads' : 'writes'} ${why}`;
      }
    }
    for (const r of cmd.redirects) {
      if (r.kind !== 'heredoc' && r.kind !== 'herestring') continue;
      const why = codeNamesSecret(r.target, ctx, pathCtx, dot);
      if (why && !NAMES_ONLY.has(cmd.name)) return `${label} is given text that names Rein's secrets: ${why}`;
    }

    const feeds = feedsPathConsumer(a, cmd);
    const shownOnly = NAMES_ONLY.has(cmd.name) && cmd.via === 'line' && !feeds;
    const readings = cmd.args.flatMap((w) => readingsOf(w, ctx.reinHome));

    // 1. A command that reads, copies, changes or sends a secret file by name, glob or symlink.
    if (!shownOnly) {
      for (const v of readings) {
        for (const abs of candidatesOf(v)) {
          const why = secretNamed(abs, ctx.reinHome, dot);
          if (why) return `${label} touches ${why}`;
        }
      }
    }

    // 2. Recursive readers, archivers and copiers over a folder that holds the secrets.
    // The folder is walked: REIN_HOME itself or a folder in it is always read; a folder above it only by walkers
    // that enter hidden folders (`.rein`): grep -r, find, tar, cp -r do; rg and fd only with --hidden.
    const walks = (abs: string, throughHidden: boolean) =>
      coversSecrets(abs, ctx.reinHome, dot) && (throughHidden || insideOrEqualHome(abs, ctx.reinHome, dot));
    const roots = recursiveRoots(cmd);
    if (roots) {
      for (const root of roots.roots) {
        for (const abs of candidatesOf(root)) {
          if (walks(abs, roots.throughHidden)) {
            return `${label} ${roots.verb} ${showPath(abs)}, which holds Rein's own credentials (${REIN_SECRET_FILES.slice(0, 2).join(', ')}…); use a folder that does not contain ${showPath(reinHomeForms(ctx.reinHome)[0]!)}`;
          }
        }
      }
    }

    // 3. A listing of such a folder handed to something that acts on the names (xargs, a shell), or used by a substitution.
    const lister = LISTERS.get(cmd.name);
    if (lister && (feeds || cmd.via !== 'line')) {
      const positional = cmd.args.map((w) => w.value).filter((v) => !isOption(v));
      const listed = cmd.name === 'find' ? findRoots(cmd) : positional.length > 0 ? positional : ['.'];
      const throughHidden =
        cmd.name === 'find' ||
        cmd.name === 'du' ||
        ((cmd.name === 'fd' || cmd.name === 'fdfind' || cmd.name === 'tree') && showsHidden(cmd)) ||
        (cmd.name === 'tree' && cmd.args.some((w) => w.value === '-a'));
      for (const root of listed) {
        for (const abs of candidatesOf(root)) {
          if (
            walks(abs, lister === 'recursive' ? throughHidden : false) ||
            (lister === 'flat' &&
              hasRecursiveFlag(cmd) &&
              walks(
                abs,
                cmd.args.some((w) => /^-[a-zA-Z]*a/.test(w.value)),
              ))
          ) {
            return `${label} lists ${showPath(abs)}, which holds Rein's own credentials, for another command to use`;
          }
        }
      }
    }

    // 4. Another process's environment (the daemon's holds the API key).
    if (!shownOnly) {
      for (const v of readings) {
        for (const abs of candidatesOf(v)) {
          if (/^\/proc\/(?!self\/|thread-self\/)[^/]+\/(task\/[^/]+\/)?(environ|mem)$/.test(abs)) {
            return `${label} reads ${showPath(abs)}: another process's environment may hold Rein's API key`;
          }
        }
      }
    }
    // 5. The stored API key in the system's secret store (core/secrets): an item `security` made trusts `security`.
    const fromStore = keyStoreReadReason(cmd);
    if (fromStore) return `${label} ${fromStore}`;

    const first = cmd.args[0]?.value ?? '';
    if (
      cmd.name === 'ps' &&
      (cmd.args.some((w) => /^-[a-zA-Z]*E/.test(w.value)) || (/^[a-zA-Z]+$/.test(first) && first.includes('e')))
    ) {
      return `${label} shows other processes' environments, which may hold Rein's API key`;
    }
  }

  for (const { command, code } of a.inlineCode) {
    const why = codeNamesSecret(code, ctx, pathCtx, dot);
    if (why) return `${quote(command.innerText || command.text)} runs code that names Rein's secrets: ${why}`;
  }
  return undefined;
}

/** Words that name Rein's entry in the Keychain or the Secret Service (core/secrets/keyStore.ts). */
const REIN_KEY_ITEM = /^(rein|anthropic-api-key(:.*)?|rein: anthropic api key)$/i;

/**
 * Reading Rein's API key out of the macOS Keychain or the Secret Service with their command-line tools:
 * `security find-generic-password … -w|-g` naming Rein's item (service `rein`, account
 * `anthropic-api-key`) or naming no item at all (the first one found may be Rein's), `security
 * dump-keychain -d`, and `secret-tool lookup|search` naming Rein's item or every generic item
 * (`xdg:schema`). Other Secret Service clients are out of reach of a shell check (docs/permissions.md,
 * *Not covered*).
 */
function keyStoreReadReason(cmd: SimpleCommand): string | undefined {
  const words = cmd.args.flatMap((w) => [w.value, ...w.alternatives]);
  const namesRein = words.some((v) => REIN_KEY_ITEM.test(v) || /^-[sal](rein|anthropic-api-key)/i.test(v));
  const sub = (cmd.args[0]?.value ?? '').toLowerCase();
  if (cmd.name === 'security') {
    if (
      (sub === 'find-generic-password' || sub === 'find-internet-password') &&
      words.some((v) => /^-[a-zA-Z]*[wg]/.test(v))
    ) {
      const selects = words.some((v) => /^-[a-zA-Z]*[salcCDjG]/.test(v));
      if (namesRein || !selects) return "reads Rein's API key out of the macOS Keychain (service rein)";
    }
    if (sub === 'dump-keychain' && words.some((v) => /^-[a-zA-Z]*d/.test(v)))
      return "prints every keychain password, Rein's API key among them";
  }
  if (cmd.name === 'secret-tool' && (sub === 'lookup' || sub === 'search')) {
    if (namesRein || words.some((v) => v.toLowerCase() === 'xdg:schema'))
      return "reads Rein's API key out of the Secret Service (service rein)";
  }
  return undefined;
}

function insideOrEqualHome(abs: string, reinHome: string, dot: boolean): boolean {
  if (GLOBBY.test(abs)) {
    const m = globMatcher(abs, dot);
    return reinHomeForms(reinHome).some((h) => m(h)) || secretTargets(reinHome).paths.some((p) => m(p));
  }
  const p = abs.toLowerCase();
  const real = realpathLoose(abs).toLowerCase();
  return reinHomeForms(reinHome).some(
    (h) => p === h || p.startsWith(`${h}/`) || real === h || real.startsWith(`${h}/`),
  );
}

/** The folders a recursive reader, archiver or copier would walk, and whether it walks hidden folders (`.rein`) below them. */
function recursiveRoots(cmd: SimpleCommand): { roots: string[]; throughHidden: boolean; verb: string } | undefined {
  const n = cmd.name;
  const positional = () => cmd.args.map((w) => w.value).filter((v) => !isOption(v));
  if (GREP_FAMILY.has(n))
    return hasRecursiveFlag(cmd) ? { roots: searchRoots(cmd), throughHidden: true, verb: 'searches' } : undefined;
  if (HIDDEN_SKIPPING_SEARCHERS.has(n))
    return { roots: searchRoots(cmd), throughHidden: showsHidden(cmd), verb: 'searches' };
  if (ALWAYS_RECURSIVE_SEARCHERS.has(n)) return { roots: searchRoots(cmd), throughHidden: true, verb: 'searches' };
  if (n === 'find' && cmd.args.some((w) => FIND_ACTIONS.test(w.value)))
    return { roots: findRoots(cmd), throughHidden: true, verb: 'runs commands on the files of' };
  if ((n === 'fd' || n === 'fdfind') && cmd.args.some((w) => /^(-x|--exec|-X|--exec-batch)$/.test(w.value))) {
    return { roots: positional().slice(1), throughHidden: showsHidden(cmd), verb: 'runs commands on the files of' };
  }
  if (ARCHIVERS.has(n) && (n !== 'zip' || hasRecursiveFlag(cmd))) {
    const values = cmd.args.map((w) => w.value);
    const base = values.findIndex((v) => v === '-C' || v === '--directory');
    const dir =
      base >= 0 ? values[base + 1] : values.find((v) => v.startsWith('--directory='))?.slice('--directory='.length);
    const roots = positional().filter((v) => v !== dir);
    return {
      roots: dir
        ? [...roots.map((r) => (r.startsWith('/') || r.startsWith('~') ? r : `${dir.replace(/\/+$/, '')}/${r}`)), dir]
        : roots,
      throughHidden: true,
      verb: 'copies',
    };
  }
  if (FLAG_RECURSIVE.has(n) && hasRecursiveFlag(cmd))
    return {
      roots: positional(),
      throughHidden: true,
      verb:
        n === 'diff' || n === 'cmp'
          ? 'reads'
          : n.startsWith('ch') || n === 'setfacl' || n === 'xattr'
            ? 'changes'
            : 'copies',
    };
  if (n === 'aws' && cmd.args.some((w) => w.value === 'sync' || w.value === '--recursive'))
    return { roots: positional(), throughHidden: true, verb: 'copies' };
  return undefined;
}

// ---- the daemon from the shell ----------------------------------------------------------------------

/** Programs that open network connections to a host and port given as separate words (`nc host 7533`). */
const NETWORK_TOOLS = new Set([
  'nc',
  'ncat',
  'netcat',
  'socat',
  'telnet',
  'curl',
  'wget',
  'http',
  'https',
  'xh',
  'httpie',
  'websocat',
  'wscat',
  'nmap',
  'openssl',
  'ssh',
  'grpcurl',
  'ab',
  'hey',
  'wrk',
  'aria2c',
  'lynx',
  'w3m',
  'links',
  'elinks',
]);

/** Why the line would talk to Rein's daemon, or undefined. */
export function shellDaemonReason(a: ShellAnalysis, ports: readonly number[]): string | undefined {
  if (ports.length === 0) return undefined;
  const portRe = ports.map(String).join('|');
  // `host:PORT` in any spelling of any host (URLs, `TCP:host:PORT`, `[::1]:PORT`, `-L 9000:localhost:PORT`).
  const hostPort = new RegExp(`:(?:0*)(${portRe})(?![0-9])`);
  const devTcp = new RegExp(`/dev/(?:tcp|udp)/[^/\\s]+/0*(${portRe})(?![0-9])`);
  const barePort = new RegExp(`^(?:--?[a-zA-Z-]*=?|-[pP])?0*(${portRe})$`);
  const codePort = new RegExp(`(?<![0-9])0*(${portRe})(?![0-9])`);
  const why = (what: string) =>
    `${what} reaches Rein's own daemon (port ${ports.join(', ')}); tools may not use Rein's API`;

  if (hostPort.test(a.line) || devTcp.test(a.line)) return why(quote(a.line));
  for (const cmd of [...a.commands, ...a.hidden]) {
    const words = cmd.args.flatMap((w) => [w.value, ...w.alternatives]);
    if (words.some((v) => hostPort.test(v) || devTcp.test(v))) return why(quote(cmd.innerText || cmd.text));
    for (const r of cmd.redirects) if (devTcp.test(r.target)) return why(quote(cmd.innerText || cmd.text));
    if (
      (NETWORK_TOOLS.has(cmd.name) || cmd.wrappers.some((w) => NETWORK_TOOLS.has(w))) &&
      words.some((v) => barePort.test(v))
    )
      return why(quote(cmd.innerText || cmd.text));
  }
  const networky = /\b(connect|socket|http|urlopen|fetch|request|curl|wget|localhost|127\.|::1|0\.0\.0\.0)/i;
  for (const { command, code } of a.inlineCode) {
    if (codePort.test(code) && networky.test(code))
      return why(`${quote(command.innerText || command.text)} runs code that names port ${ports.join(', ')}: it`);
  }
  for (const r of a.redirects) {
    if ((r.kind === 'heredoc' || r.kind === 'herestring') && codePort.test(r.target) && networky.test(r.target)) {
      return why('text fed to a program');
    }
  }
  return undefined;
}

/** Both shell guards: secrets first, then the daemon's port. */
export function shellReinGuard(a: ShellAnalysis, ctx: ShellGuardContext): ReinGuardHit | undefined {
  const secret = shellSecretReason(a, ctx);
  if (secret) return { rule: 'rein-secrets', reason: secret };
  const daemon = shellDaemonReason(a, ctx.ports);
  if (daemon) return { rule: 'rein-daemon', reason: daemon };
  return undefined;
}
