/**
 * How file tools turn the model's path into a real one: `~` is the user's home, relative paths hang off the
 * run's cwd, and symlinks are resolved when the target exists so the read tracker and protected-path checks
 * see one name per file.
 */
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, resolve, sep } from 'node:path';
import { protectedPathReason } from '../../../memory/files.js';
import type { ToolContext } from '../../tool.js';

export function expandHome(p: string): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return homedir() + p.slice(1);
  return p;
}

/** Absolute, cleaned path (no symlink resolution). */
export function resolveToolPath(p: string, cwd: string): string {
  const expanded = expandHome(p.trim());
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
}

/** The symlink-free path when the file (or, for a new file, its nearest existing parent) exists. */
export async function canonicalPath(abs: string): Promise<string> {
  try {
    return await realpath(abs);
  } catch {
    const parent = resolve(abs, '..');
    if (parent === abs) return abs;
    const realParent = await canonicalPath(parent);
    return resolve(realParent, abs.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
  }
}

/** Device files block forever (/dev/zero, /dev/tty) or never end; no file tool has a reason to touch them. */
export function isDevicePath(abs: string): boolean {
  return abs === '/dev' || abs.startsWith('/dev/');
}

/**
 * The reason a path must not be written, when either of its names is protected. Matching goes through
 * protectedPathReason so that, on a case-insensitive file system, `memory.md` cannot reach MEMORY.md.
 */
export function protectedReason(ctx: ToolContext, ...candidates: string[]): string | undefined {
  if (!ctx.protectedPaths || ctx.protectedPaths.size === 0) return undefined;
  for (const c of candidates) {
    const reason = protectedPathReason(ctx.protectedPaths, c);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

/** Node error code, if any. */
export function errnoCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : undefined;
}
