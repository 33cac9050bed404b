/**
 * Path reasoning for command arguments: `~`, `~user`, `$HOME`, `.`/`..`, `//`, trailing slashes, relative
 * paths and symbolic links made earlier in the line all reduce to absolute forms, compared
 * case-insensitively where the volume is (macOS volumes usually are: `caseInsensitive`), and checked
 * against the folders whose loss would wreck the system or the user's data, and the places that run code
 * at login or on a schedule.
 */
import path from 'node:path';
import { UNKNOWN, UNKNOWN_NONEMPTY } from './types.js';

export interface PathContext {
  home: string;
  cwd: string;
  /** Other values HOME takes inside the line (`HOME=/ rm -rf ~`). */
  extraHomes?: readonly string[];
  /** Folders the line changes into before running commands (`cd / && rm -rf *`). */
  cdTargets?: readonly string[];
  /** Symbolic links made earlier in the line (`ln -s ~ h; rm -rf h/`), as written. */
  links?: ReadonlyArray<{ link: string; target: string }>;
  /** Paths compare case-insensitively (default: as macOS and Windows volumes do; Linux ones do not). */
  caseInsensitive?: boolean;
}

/** Whether this machine's volumes compare names case-insensitively by default. */
export const PLATFORM_CASE_INSENSITIVE = process.platform === 'darwin' || process.platform === 'win32';

const folded = (ctx: PathContext) =>
  (ctx.caseInsensitive ?? PLATFORM_CASE_INSENSITIVE) ? (s: string) => s.toLowerCase() : (s: string) => s;

const GLOB_OR_UNKNOWN = new RegExp(`[*?[${UNKNOWN}${UNKNOWN_NONEMPTY}]`);

/** Top-level folders whose own sub-folders are also system or user roots (names as the system spells them). */
const DEEP_SYSTEM_PARENTS = [
  'System',
  'usr',
  'bin',
  'sbin',
  'etc',
  'var',
  'private',
  'Library',
  'Users',
  'Volumes',
  'home',
  'cores',
  'dev',
  'lib',
  'lib64',
  'boot',
  'proc',
  'sys',
  'root',
  'snap',
  'nix',
];

/** Folders directly in a home folder that hold the user's data or identity. */
const HOME_FOLDERS = [
  'Documents',
  'Desktop',
  'Downloads',
  'Library',
  'Pictures',
  'Movies',
  'Music',
  'Applications',
  'Public',
  'Sites',
  '.ssh',
  '.gnupg',
  '.aws',
  '.config',
  '.kube',
  '.local',
  '.rein',
  'iCloud Drive',
  'Dropbox',
  'Google Drive',
];
/** Deeper folders of a home whose loss is as bad (the keychains, every app's data, iCloud Drive). */
const HOME_DEEP_FOLDERS = [
  'Library/Keychains',
  'Library/Application Support',
  'Library/Mobile Documents',
  'Library/Mail',
  'Library/Messages',
  'Library/Containers',
  'Library/Group Containers',
  'Library/Preferences',
  'Library/CloudStorage',
  'Library/LaunchAgents',
  '.local/share',
  '.config/gh',
];

const isCi = (ctx: PathContext): boolean => ctx.caseInsensitive ?? PLATFORM_CASE_INSENSITIVE;

/** `name` is one of `table` — in any case where the volume ignores case, else as spelled or in lower case. */
function named(name: string, table: readonly string[], ctx: PathContext): string | undefined {
  if (isCi(ctx)) return table.find((t) => t.toLowerCase() === name.toLowerCase());
  return table.find((t) => t === name || t.toLowerCase() === name);
}

/** Scratch folders: deleting one is bad, and so is emptying it (other programs' sockets and locks live there). */
const SCRATCH = new Set([
  '/tmp',
  '/private/tmp',
  '/var/tmp',
  '/private/var/tmp',
  '/var/folders',
  '/private/var/folders',
]);

const norm = (p: string): string => {
  const n = path.posix.normalize(p);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
};

function homes(ctx: PathContext): string[] {
  return [ctx.home, ...(ctx.extraHomes ?? [])].map((h) => norm(h || '/'));
}

/** Root's home folder: `/var/root` on macOS, `/root` on Linux (this platform's first; both are read). */
const ROOT_HOMES = process.platform === 'darwin' ? ['/var/root', '/root'] : ['/root', '/var/root'];

/**
 * Where `~name` may be: next to our home, and where the systems keep homes (`/Users/name` on macOS,
 * `/home/name` on Linux); root's is `/var/root` or `/root`. Every reading counts, so `rm -rf ~nobody`
 * is a home folder's deletion wherever the accounts' homes really are.
 */
function userHomes(name: string, ctx: PathContext): string[] {
  if (name === 'root') return ROOT_HOMES;
  return [...new Set([path.posix.join(path.posix.dirname(ctx.home || '/'), name), `/Users/${name}`, `/home/${name}`])];
}

function expandTilde(raw: string, ctx: PathContext): string[] {
  if (!raw.startsWith('~')) return [raw];
  const slash = raw.indexOf('/');
  const head = slash === -1 ? raw : raw.slice(0, slash);
  const rest = slash === -1 ? '' : raw.slice(slash);
  if (head === '~') return homes(ctx).map((h) => h + rest);
  if (head === '~+') return [ctx.cwd + rest];
  if (head === '~-') return [UNKNOWN + rest];
  return userHomes(head.slice(1), ctx).map((h) => h + rest);
}

/** The absolute readings of a path argument: relative ones against the working folder and every `cd` target. */
export function pathCandidates(raw: string, ctx: PathContext): string[] {
  if (raw === '') return [];
  const out = new Set<string>();
  const bases = [ctx.cwd];
  for (const t of ctx.cdTargets ?? []) {
    for (const abs of expandTilde(t, ctx)) {
      if (abs.startsWith(UNKNOWN) || abs.startsWith(UNKNOWN_NONEMPTY)) continue;
      bases.push(abs.startsWith('/') ? norm(abs) : norm(path.posix.join(ctx.cwd, abs)));
    }
  }
  for (const p of expandTilde(raw, ctx)) {
    // A path that starts with an unknown part is not relative: we cannot say where it points.
    if (p.startsWith(UNKNOWN) || p.startsWith(UNKNOWN_NONEMPTY)) continue;
    if (p.startsWith('/')) out.add(norm(p));
    else for (const b of bases) out.add(norm(path.posix.join(b, p)));
  }
  if (ctx.links?.length) {
    // Through a link made in the line: `h/…` (or `h/`, which follows it) is the link's target.
    const plain: PathContext = { ...ctx, links: [] };
    const fold = folded(ctx);
    const followsLink = /\/\.?$/.test(raw);
    for (const { link, target } of ctx.links.slice(0, 8)) {
      const targets = pathCandidates(target, plain);
      for (const l of pathCandidates(link, plain)) {
        for (const abs of [...out]) {
          const a = fold(abs);
          const fl = fold(l);
          if (a.startsWith(`${fl}/`)) for (const t of targets) out.add(norm(t + abs.slice(l.length)));
          else if (a === fl && followsLink) for (const t of targets) out.add(t);
        }
      }
    }
  }
  return [...out];
}

/** The user folder a path is in: `/Users/alice`, `/home/alice`, root's `/var/root` or `/root`, when it is one. */
function otherHome(p: string): string | undefined {
  const m = /^\/(users|home)\/[^/]+|^\/root(?=\/|$)|^\/(private\/)?var\/root(?=\/|$)/i.exec(p);
  return m && m[0].toLowerCase() !== '/users/shared' ? m[0] : undefined;
}

/** Why deleting (or recursively re-owning) this exact folder would be catastrophic, or undefined. */
export function protectedFolder(abs: string, ctx: PathContext): string | undefined {
  const fold = folded(ctx);
  const p = fold(abs);
  if (p === '/') return 'the root folder /';
  const ours = homes(ctx)
    .map(fold)
    .filter((h) => h !== '/');
  // `~/..`, `"$HOME/../.."`: a folder our home is in goes with it, however deep the home is.
  if (ours.some((h) => h.startsWith(`${p}/`))) return `the folder ${abs}, which holds your home`;
  const other = otherHome(p);
  for (const h of other && !ours.includes(other) ? [...ours, other] : ours) {
    if (p === h) return ours.includes(h) ? 'your home folder' : `the home folder ${abs}`;
    if (!p.startsWith(`${h}/`)) continue;
    const rel = abs.slice(h.length + 1);
    const parts = rel.split('/');
    const where = ours.includes(h) ? '~' : abs.slice(0, h.length);
    if (parts.length === 1 && named(rel, HOME_FOLDERS, ctx)) return `${where}/${rel}`;
    if (parts.length === 2 && named(rel, HOME_DEEP_FOLDERS, ctx)) return `${where}/${rel}`;
  }
  const segs = abs.split('/').filter(Boolean);
  if (segs.length === 1) return `the top-level folder ${abs}`;
  if (segs.length === 2) {
    const parent = named(segs[0]!, DEEP_SYSTEM_PARENTS, ctx);
    if (parent) return parent === 'Users' || parent === 'home' ? `the home folder ${abs}` : `the system folder ${abs}`;
  }
  return undefined;
}

/** Top-level names a glob in `/` may reach (any glob there is refused, these only name the example). */
const matchesAll = (re: RegExp): boolean =>
  ['a', 'Zq', 'x.y'].every((n) => re.test(n)) || ['.a', '.Zq'].every((n) => re.test(n));

function segmentRegex(seg: string): RegExp | undefined {
  let body = '';
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === '*' || c === UNKNOWN) body += '[^/]*';
    else if (c === UNKNOWN_NONEMPTY) body += '[^/]+';
    else if (c === '?') body += '[^/]';
    else if (c === '[') {
      const close = seg.indexOf(']', i + 2);
      if (close === -1) return undefined;
      const inner = seg.slice(i + 1, close);
      body += `[${inner.startsWith('!') ? `^${inner.slice(1)}` : inner}]`.replace(/\\/g, '\\\\');
      i = close;
    } else body += c.replace(/[.+^${}()|[\]\\/-]/g, '\\$&');
  }
  try {
    return new RegExp(`^${body}$`, 'i');
  } catch {
    return undefined;
  }
}

/**
 * A glob (or unknown part) whose expansion covers a protected folder or everything inside one: any glob in
 * `/` or a system folder (`/U*`, `/usr/*`), a glob over everything in a home or scratch folder (`~/*`,
 * `/tmp/*`), or one that matches a home's main folders (`~/D*`). `~/*.log` and `/tmp/*.o` are not.
 */
export function protectedGlob(abs: string, ctx: PathContext): string | undefined {
  const segs = abs.split('/');
  const first = segs.findIndex((s) => GLOB_OR_UNKNOWN.test(s));
  if (first === -1) return undefined;
  const parent = norm(segs.slice(0, first).join('/') || '/');
  const fold = folded(ctx);
  const scratch = SCRATCH.has(fold(parent)) || SCRATCH.has(parent.toLowerCase());
  const label = protectedFolder(parent, ctx) ?? (scratch ? `the scratch folder ${parent}` : undefined);
  if (!label) return undefined;
  const re = segmentRegex(segs[first]!);
  const depth = parent.split('/').filter(Boolean).length;
  const parentIsHome = /home folder/.test(label) || homes(ctx).some((h) => fold(h) === fold(parent));
  // `/` and the system folders directly in it: any glob may reach a folder the system needs.
  if (!re || (!parentIsHome && !scratch && depth <= 1)) return `everything in ${label}`;
  if (matchesAll(re)) return `everything in ${label}`;
  if (parentIsHome) {
    const hit = HOME_FOLDERS.find((n) => re.test(n));
    if (hit) return `${label}'s ${hit} folder (the pattern ${showValue(segs[first]!)} matches it)`;
  }
  // `~/../h*`: a glob beside our home that matches it.
  const home = homes(ctx).find(
    (h) => h !== '/' && fold(path.posix.dirname(h)) === fold(parent) && re.test(path.posix.basename(h)),
  );
  if (home) return `your home folder ${home} (the pattern ${showValue(segs[first]!)} matches it)`;
  return undefined;
}

/** Readable form of a value with placeholders. */
export const showValue = (v: string): string => v.replaceAll(UNKNOWN, '$…').replaceAll(UNKNOWN_NONEMPTY, '$…');

/**
 * The protected folder a path argument would hit, considering every reading of it; also the "variable may be
 * empty" case (`rm -rf "$DIR/"` is `rm -rf /` when DIR is unset).
 */
export function protectedTarget(raw: string, ctx: PathContext): string | undefined {
  for (const abs of pathCandidates(raw, ctx)) {
    const hit = GLOB_OR_UNKNOWN.test(abs)
      ? (protectedGlob(abs, ctx) ?? protectedFolder(abs, ctx))
      : protectedFolder(abs, ctx);
    if (hit) return hit;
  }
  if (raw.includes(UNKNOWN)) {
    const erased = raw.replaceAll(UNKNOWN, '');
    if (erased && !erased.includes(UNKNOWN_NONEMPTY)) {
      const roots = new Set(['/', ...homes(ctx).map((h) => h.toLowerCase())]);
      for (const abs of pathCandidates(erased, ctx)) {
        const lower = abs.toLowerCase();
        const globParent = GLOB_OR_UNKNOWN.test(abs)
          ? norm(
              abs
                .split('/')
                .slice(
                  0,
                  abs.split('/').findIndex((s) => GLOB_OR_UNKNOWN.test(s)),
                )
                .join('/') || '/',
            ).toLowerCase()
          : undefined;
        if (roots.has(lower) || (globParent !== undefined && roots.has(globParent))) {
          return `${lower === '/' || globParent === '/' ? 'the root folder /' : 'your home folder'} when a variable in ${showValue(raw)} is empty`;
        }
      }
    }
  }
  return undefined;
}

const BENIGN_DEVICES =
  /^\/dev\/(null|zero|random|urandom|stdin|stdout|stderr|tty|ptmx|fd\/[0-9]+|pts\/[0-9]+|tcp\/.*|udp\/.*)$/;

/** A device file that is a disk, partition or memory (writing to it destroys data). */
export function isRawDevice(raw: string, ctx: PathContext): boolean {
  return pathCandidates(raw, ctx).some((abs) => {
    const p = abs.toLowerCase();
    return p.startsWith('/dev/') && !BENIGN_DEVICES.test(p);
  });
}

export type PersistenceKind = 'shell-startup' | 'launch-agent' | 'cron' | 'ssh-access' | 'git-config' | 'login-item';

/** Home-relative files and folders that make code run at login, in every shell, or on a schedule. */
const HOME_PERSISTENCE: Array<[RegExp, PersistenceKind, string]> = [
  [
    /^\.(zshrc|zshenv|zprofile|zlogin|zlogout|bashrc|bash_profile|bash_login|bash_logout|profile|kshrc|mkshrc|cshrc|tcshrc|login|logout)$/,
    'shell-startup',
    'a shell startup file',
  ],
  [/^\.config\/fish\/(config\.fish|conf\.d\/.+|functions\/.+)$/, 'shell-startup', 'a shell startup file'],
  [/^\.(zshrc\.d|bashrc\.d|oh-my-zsh\/custom)\/.+$|^\.config\/zsh\/.+$/, 'shell-startup', 'a shell startup file'],
  [/^library\/launchagents(\/.*)?$/, 'launch-agent', 'a launch agent (it runs at login)'],
  [/^library\/application support\/com\.apple\.backgroundtaskmanagementagent(\/.*)?$/, 'login-item', 'the login items'],
  [/^\.config\/autostart(\/.*)?$|^\.config\/systemd\/user(\/.*)?$/, 'launch-agent', 'an autostart entry'],
  [
    /^\.ssh\/(authorized_keys2?|rc|environment)$/,
    'ssh-access',
    'the SSH login settings (who may log in, what runs when they do)',
  ],
  [
    /^\.gitconfig$|^\.config\/git\/config$/,
    'git-config',
    'your git settings (they can name programs every git command runs)',
  ],
];
/** System-wide ones. */
const SYSTEM_PERSISTENCE: Array<[RegExp, PersistenceKind, string]> = [
  [
    /^\/(private\/)?etc\/(profile|profile\.d\/.+|bashrc|bash\.bashrc|zshrc|zshenv|zprofile|zlogin|zlogout|zsh\/.+|paths|paths\.d\/.+)$/,
    'shell-startup',
    'a system shell startup file',
  ],
  [
    /^\/library\/(launchagents|launchdaemons)(\/.*)?$|^\/system\/library\/(launchagents|launchdaemons)(\/.*)?$/,
    'launch-agent',
    'a system launch agent or daemon',
  ],
  [
    /^\/(private\/)?etc\/(crontab|anacrontab|cron\.d(\/.*)?|cron\.(hourly|daily|weekly|monthly)(\/.*)?|periodic(\/.*)?)$/,
    'cron',
    'the system crontab',
  ],
  [/^\/(private\/)?var\/(at\/tabs|spool\/cron)(\/.*)?$|^\/usr\/lib\/cron\/tabs(\/.*)?$/, 'cron', 'a crontab'],
  [
    /^\/(private\/)?etc\/(rc\.local|rc\.common|systemd\/system(\/.*)?|sudoers|sudoers\.d(\/.*)?|launchd\.conf)$/,
    'launch-agent',
    'a system start-up or sudo file',
  ],
];

/** What kind of persistence location a path is (`~/.zshrc`, `~/Library/LaunchAgents/x.plist`, cron tables). */
export function persistenceKind(raw: string, ctx: PathContext): PersistenceKind | undefined {
  return persistencePlace(raw, ctx)?.kind;
}

export function persistencePlace(
  raw: string,
  ctx: PathContext,
): { kind: PersistenceKind; what: string; path: string } | undefined {
  for (const abs of pathCandidates(raw, ctx)) {
    // Persistence paths are matched case-insensitively everywhere: a miss costs a run, a match only a question.
    const p = abs.toLowerCase();
    for (const h of homes(ctx)) {
      const hl = h.toLowerCase();
      if (!p.startsWith(`${hl}/`)) continue;
      const rel = p.slice(hl.length + 1);
      for (const [re, kind, what] of HOME_PERSISTENCE)
        if (re.test(rel)) return { kind, what, path: `~/${abs.slice(h.length + 1)}` };
    }
    for (const [re, kind, what] of SYSTEM_PERSISTENCE) if (re.test(p)) return { kind, what, path: abs };
  }
  return undefined;
}

/** Shell and REPL history files: wiping them hides what was done. */
const HISTORY_FILES =
  /^(\.(bash|zsh|sh|ksh|fish|python|node_repl|mysql|psql|sqlite|irb|pry|rediscli|lesshst|r)_?history|\.zhistory|\.history|\.zsh_sessions(\/.*)?|\.bash_sessions(\/.*)?|\.local\/share\/fish\/fish_history|\.lesshst|\.viminfo|\.rhistory)$/;

/** The history file a path names, or undefined. `$HISTFILE` in the written word counts too. */
export function historyFile(raw: string, ctx: PathContext, display = raw): string | undefined {
  if (/\$\{?HISTFILE\b/.test(display)) return '$HISTFILE';
  for (const abs of pathCandidates(raw, ctx)) {
    const p = abs.toLowerCase();
    for (const h of homes(ctx)) {
      const hl = h.toLowerCase();
      if (p.startsWith(`${hl}/`) && HISTORY_FILES.test(p.slice(hl.length + 1))) return `~/${abs.slice(h.length + 1)}`;
    }
  }
  return undefined;
}

/** A keychain file or folder (`~/Library/Keychains/login.keychain-db`, `*.keychain`). */
export function keychainPath(raw: string, ctx: PathContext): string | undefined {
  for (const abs of pathCandidates(raw, ctx)) {
    const p = abs.toLowerCase();
    if (/\/library\/keychains(\/|$)/.test(p) || /\.keychain(-db)?$/.test(p)) return abs;
  }
  return undefined;
}
