/**
 * Where an agent's memory lives and the few text shapes the memory code writes and later recognises:
 * overflow file names, the pointer line that links one, and the auto-section headings. Writers and
 * readers share these definitions so that consolidation can always tell Rein's lines from the user's.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { DEFAULT_AGENT } from '../config/paths.js';

export const MEMORY_FILE = 'MEMORY.md';
/** Touched after each consolidation; its mtime is the cooldown clock. */
export const GC_MARKER = '.memory_gc';

/** The default agent keeps memory in `<home>/memory/`; a named agent beside its AGENT.md. */
export function memoryDir(home: string, agent: string = DEFAULT_AGENT): string {
  return agent === DEFAULT_AGENT ? join(home, 'memory') : join(home, 'agents', agent);
}

export const memoryFile = (dir: string): string => join(dir, MEMORY_FILE);

/** `auto-YYYY-MM-DD-<6 hex>.md`: an overflow file written when MEMORY.md is full. */
export const AUTO_FILE_RE = /^auto-\d{4}-\d{2}-\d{2}-[0-9a-f]{6}\.md$/;

export const autoFileName = (now: Date, hex: string): string => `auto-${localDate(now)}-${hex}.md`;

export const pointerLine = (now: Date, file: string): string => `- [${localDate(now)}] See [${file}](${file}) for details`;

/** A line of the pointer shape BoundedAppend writes (`- [` … `See [auto-` … `for details`). */
export function isPointerLine(line: string): boolean {
  const t = line.trimEnd();
  return t.startsWith('- [') && t.includes('See [auto-') && t.endsWith('for details');
}

/** Headings that open a section Rein wrote (and consolidation may rewrite). */
export function isAutoHeading(line: string): boolean {
  return line.startsWith('## Auto-persisted') || line.startsWith('## Auto-consolidated');
}

/** Lines as the reference counts them: the newlines, plus one for an unterminated last line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** The user's calendar date (memory is read by people; UTC dates would look a day off in the evening). */
export function localDate(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

export function localDateTime(d: Date): string {
  return `${localDate(d)} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export const PROTECTED_MEMORY_REASON = 'use memory_append to change memory';

/**
 * The paths file_write and file_edit must refuse: MEMORY.md under its plain name and under its
 * symlink-free name (the tools look up both), so a symlinked REIN_HOME cannot be used to get around it.
 */
export function protectedMemoryPaths(dir: string): Map<string, string> {
  const plain = resolve(dir, MEMORY_FILE);
  const map = new Map<string, string>([[plain, PROTECTED_MEMORY_REASON]]);
  map.set(canonicalSync(plain), PROTECTED_MEMORY_REASON);
  return map;
}

/** realpath of the file, or of its nearest existing ancestor with the rest appended. */
function canonicalSync(abs: string): string {
  try {
    return realpathSync(abs);
  } catch {
    const parent = dirname(abs);
    if (parent === abs) return abs;
    return join(canonicalSync(parent), basename(abs));
  }
}
