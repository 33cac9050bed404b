/**
 * Where an agent's memory lives and the few text shapes the memory code writes and later recognises:
 * overflow file names, the pointer line that links one, and the auto-section headings. Writers and
 * readers share these definitions so that consolidation can always tell Rein's lines from the user's.
 */
import { realpathSync, statSync } from 'node:fs';
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

export const pointerLine = (now: Date, file: string): string =>
  `- [${localDate(now)}] See [${file}](${file}) for details`;

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

export interface ProtectedPathOptions {
  /**
   * Whether the file system matches names regardless of case. Normally probed (see isCaseInsensitiveAt);
   * set it to simulate one kind of file system on the other.
   */
  caseInsensitive?: boolean;
}

/**
 * The paths file_write and file_edit must refuse: MEMORY.md under its plain name and under its
 * symlink-free name (the tools look up both), so a symlinked REIN_HOME cannot be used to get around it.
 * Keys are also stored in NFC (APFS finds a folder by its NFC or NFD spelling alike), and, where the file
 * system ignores case (macOS's default APFS, Windows), under a case-folded key so `memory.md` or
 * `Memory.MD` is refused too. Look paths up with protectedPathReason, which tries the same key shapes.
 */
export function protectedMemoryPaths(dir: string, options: ProtectedPathOptions = {}): Map<string, string> {
  const plain = resolve(dir, MEMORY_FILE);
  const canonical = canonicalSync(plain);
  const anyCase = options.caseInsensitive ?? isCaseInsensitiveAt(canonical);
  const map = new Map<string, string>();
  for (const p of [plain, canonical]) {
    map.set(p, PROTECTED_MEMORY_REASON);
    map.set(p.normalize('NFC'), PROTECTED_MEMORY_REASON);
    if (anyCase) map.set(anyCaseKey(p), PROTECTED_MEMORY_REASON);
  }
  return map;
}

// NUL cannot occur in a path, so a case-folded key never equals a real path that some caller put in the map.
const ANY_CASE_PREFIX = '\0any-case:';

/**
 * The key under which a path matches every spelling a case- and normalisation-insensitive file system treats
 * as the same name. Upper-then-lower approximates Unicode case folding (`ſ` → `s`, Kelvin sign → `k`);
 * folding a little too much only refuses more, never less.
 */
export function anyCaseKey(p: string): string {
  return ANY_CASE_PREFIX + p.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC');
}

/**
 * The reason a protected-path map gives for a path: by exact name, by its NFC spelling, or by its case-folded
 * key (present only for paths on case-insensitive file systems). A few Map lookups and string
 * normalisations, no I/O: the file tools call it on every write.
 */
export function protectedPathReason(paths: ReadonlyMap<string, string>, p: string): string | undefined {
  return paths.get(p) ?? paths.get(p.normalize('NFC')) ?? paths.get(anyCaseKey(p));
}

/** Identity of a file, or undefined when nothing is there. */
export type FileIdentity = (p: string) => { dev: bigint; ino: bigint } | undefined;

export interface CaseProbe {
  /** Decides when nothing on the path can be probed (default: the running platform). */
  platform?: NodeJS.Platform;
  /** Stats a path (default: statSync with bigint ids, so Windows' 64-bit file ids compare exactly). */
  identity?: FileIdentity;
}

const statIdentity: FileIdentity = (p) => statSync(p, { bigint: true, throwIfNoEntry: false });

/**
 * Whether names on the file system holding `abs` match regardless of case. Asks the file system itself:
 * the nearest existing entry on the path whose name has an ASCII letter is looked up again with its letters'
 * case flipped, and the same file answering both means case-insensitive (macOS lets each volume choose, and
 * Linux can fold case per folder, so the platform alone cannot tell). The file itself is tried first
 * because a folder's case rules apply to the names inside it. When nothing can be probed, macOS and
 * Windows count as case-insensitive (their defaults).
 */
export function isCaseInsensitiveAt(abs: string, probe: CaseProbe = {}): boolean {
  const identity = probe.identity ?? statIdentity;
  for (let p = abs; ; p = dirname(p)) {
    const name = basename(p);
    const flipped = flipAsciiCase(name);
    if (flipped !== name) {
      const verdict = sameFileUnderOtherCase(identity, p, join(dirname(p), flipped));
      if (verdict !== undefined) return verdict;
    }
    if (dirname(p) === p) break;
  }
  const platform = probe.platform ?? process.platform;
  return platform === 'darwin' || platform === 'win32';
}

/** undefined when `p` is missing or cannot be statted: the caller then tries the parent. */
function sameFileUnderOtherCase(identity: FileIdentity, p: string, flipped: string): boolean | undefined {
  try {
    const here = identity(p);
    if (!here) return undefined;
    const other = identity(flipped);
    // Missing, or a different file: two names that differ only in case are two names here.
    return other !== undefined && other.dev === here.dev && other.ino === here.ino;
  } catch {
    return undefined;
  }
}

function flipAsciiCase(name: string): string {
  return name.replace(/[A-Za-z]/g, (c) => (c <= 'Z' ? c.toLowerCase() : c.toUpperCase()));
}

/**
 * realpath of the file, or of its nearest existing ancestor with the rest appended. The native realpath,
 * as the file tools use: on macOS it also gives the on-disk case, so both sides agree on one spelling.
 */
function canonicalSync(abs: string): string {
  try {
    return realpathSync.native(abs);
  } catch {
    const parent = dirname(abs);
    if (parent === abs) return abs;
    return join(canonicalSync(parent), basename(abs));
  }
}
