/**
 * Path reasoning for command arguments: `~`, `$HOME`, `.`/`..`, `//`, trailing slashes and relative paths
 * all reduce to one absolute form, compared case-insensitively (macOS volumes usually are), and checked
 * against the folders whose loss would wreck the system or the user's data.
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
}

const GLOB_OR_UNKNOWN = new RegExp(`[*?[${UNKNOWN}${UNKNOWN_NONEMPTY}]`);

/** Top-level folders whose own sub-folders are also system or user roots. */
const DEEP_SYSTEM_PARENTS = new Set([
  'system', 'usr', 'bin', 'sbin', 'etc', 'var', 'private', 'library', 'users', 'volumes', 'home', 'cores', 'dev',
  'lib', 'lib64', 'boot', 'proc', 'sys', 'root', 'snap', 'nix',
]);

/** Folders directly in the home folder that hold the user's data or identity. */
const HOME_FOLDERS = new Set([
  'documents', 'desktop', 'downloads', 'library', 'pictures', 'movies', 'music', 'applications', 'public', 'sites',
  '.ssh', '.gnupg', '.aws', '.config', '.kube', '.local', '.rein', 'icloud drive', 'dropbox', 'google drive',
]);

/** Scratch folders: deleting one is bad, but deleting what is inside is routine. */
const SCRATCH = new Set(['/tmp', '/private/tmp', '/var/tmp', '/private/var/tmp', '/var/folders', '/private/var/folders']);

const norm = (p: string): string => {
  const n = path.posix.normalize(p);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
};

function homes(ctx: PathContext): string[] {
  return [ctx.home, ...(ctx.extraHomes ?? [])].map((h) => norm(h || '/'));
}

function expandTilde(raw: string, ctx: PathContext): string[] {
  if (!raw.startsWith('~')) return [raw];
  const slash = raw.indexOf('/');
  const head = slash === -1 ? raw : raw.slice(0, slash);
  const rest = slash === -1 ? '' : raw.slice(slash);
  if (head === '~') return homes(ctx).map((h) => h + rest);
  if (head === '~+') return [ctx.cwd + rest];
  if (head === '~-') return [UNKNOWN + rest];
  // `~alice` is alice's home, next to ours.
  return [path.posix.join(path.posix.dirname(ctx.home), head.slice(1)) + rest];
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
  return [...out];
}

/** Why deleting (or recursively re-owning) this exact folder would be catastrophic, or undefined. */
export function protectedFolder(abs: string, ctx: PathContext): string | undefined {
  const p = abs.toLowerCase();
  if (p === '/') return 'the root folder /';
  for (const h of homes(ctx).map((x) => x.toLowerCase())) {
    if (h === '/') continue;
    if (p === h) return 'your home folder';
    if (p.startsWith(`${h}/`)) {
      const rel = p.slice(h.length + 1).split('/');
      if (rel.length === 1 && HOME_FOLDERS.has(rel[0]!)) return `~/${abs.slice(abs.length - rel[0]!.length)}`;
    }
  }
  const segs = p.split('/').filter(Boolean);
  if (segs.length === 1) return `the top-level folder ${abs}`;
  if (segs.length === 2 && DEEP_SYSTEM_PARENTS.has(segs[0]!)) {
    return segs[0] === 'users' || segs[0] === 'home' ? `the home folder ${abs}` : `the system folder ${abs}`;
  }
  return undefined;
}

/** A glob (or unknown part) whose expansion covers everything inside a protected folder (`/*`, `~/*`). */
export function protectedGlob(abs: string, ctx: PathContext): string | undefined {
  const segs = abs.split('/');
  const first = segs.findIndex((s) => GLOB_OR_UNKNOWN.test(s));
  if (first === -1) return undefined;
  const parent = norm(segs.slice(0, first).join('/') || '/');
  if (SCRATCH.has(parent.toLowerCase())) return undefined;
  const label = protectedFolder(parent, ctx);
  return label ? `everything in ${label}` : undefined;
}

/** Readable form of a value with placeholders. */
export const showValue = (v: string): string => v.replaceAll(UNKNOWN, '$…').replaceAll(UNKNOWN_NONEMPTY, '$…');

/**
 * The protected folder a path argument would hit, considering every reading of it; also the "variable may be
 * empty" case (`rm -rf "$DIR/"` is `rm -rf /` when DIR is unset).
 */
export function protectedTarget(raw: string, ctx: PathContext): string | undefined {
  for (const abs of pathCandidates(raw, ctx)) {
    const hit = protectedFolder(abs, ctx) ?? protectedGlob(abs, ctx);
    if (hit) return hit;
  }
  if (raw.includes(UNKNOWN)) {
    const erased = raw.replaceAll(UNKNOWN, '');
    if (erased && !erased.includes(UNKNOWN_NONEMPTY)) {
      const roots = new Set(['/', ...homes(ctx).map((h) => h.toLowerCase())]);
      for (const abs of pathCandidates(erased, ctx)) {
        const lower = abs.toLowerCase();
        const globParent = GLOB_OR_UNKNOWN.test(abs) ? norm(abs.split('/').slice(0, abs.split('/').findIndex((s) => GLOB_OR_UNKNOWN.test(s))).join('/') || '/').toLowerCase() : undefined;
        if (roots.has(lower) || (globParent !== undefined && roots.has(globParent))) {
          return `${lower === '/' || globParent === '/' ? 'the root folder /' : 'your home folder'} when a variable in ${showValue(raw)} is empty`;
        }
      }
    }
  }
  return undefined;
}

const BENIGN_DEVICES = /^\/dev\/(null|zero|random|urandom|stdin|stdout|stderr|tty|ptmx|fd\/[0-9]+|pts\/[0-9]+|tcp\/.*|udp\/.*)$/;

/** A device file that is a disk, partition or memory (writing to it destroys data). */
export function isRawDevice(raw: string, ctx: PathContext): boolean {
  return pathCandidates(raw, ctx).some((abs) => {
    const p = abs.toLowerCase();
    return p.startsWith('/dev/') && !BENIGN_DEVICES.test(p);
  });
}
