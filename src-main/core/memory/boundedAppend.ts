/**
 * BoundedAppend: the one way Rein adds to an agent's MEMORY.md (the memory_append tool, the CLI and
 * write-before-compact all come through here). MEMORY.md is kept to 150 lines so the part loaded into
 * every prompt stays small; once an append would pass that, the text goes to its own overflow file and
 * MEMORY.md only gains a one-line pointer to it.
 *
 * The whole read-decide-write runs under an inter-process lock on MEMORY.md (the app, the daemon and CLI
 * runs may append at once), and MEMORY.md is replaced atomically, so readers that take no lock (prompt
 * loading) always see a whole file and concurrent appenders never lose or interleave lines.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ReinError } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { describeWriteError } from '../util/diskErrors.js';
import { withFileLock } from '../util/fileLock.js';
import { autoFileName, countLines, localDate, memoryFile, pointerLine } from './files.js';

/** MEMORY.md may hold this many lines before appends overflow into auto files. */
export const MEMORY_LINE_BOUND = 150;

export interface BoundedAppendOptions {
  /** Clock for file names and headings (tests pin it). */
  now?: Date;
  /** How long to wait for another process's lock before failing (default 30 s). */
  lockWaitMs?: number;
  /** Source of the 6 hex digits in overflow names (tests force collisions). */
  randomHex?: () => string;
}

export interface BoundedAppendResult {
  /** Absolute path of the file that received the content: MEMORY.md or the new overflow file. */
  path: string;
  /** True when MEMORY.md was full and the content went to an overflow file. */
  overflowed: boolean;
}

/**
 * Text fit for a line-oriented file: Windows line ends become `\n`, NUL bytes are dropped, and it ends
 * with exactly the newline it needs. Throws `invalid_input` when nothing but whitespace is left.
 */
export function normalizeMemoryContent(content: string): string {
  const text = content.replace(/\r\n?/g, '\n').replace(/\0/g, '');
  if (text.trim() === '') throw new ReinError('invalid_input', 'memory content is empty');
  return text.endsWith('\n') ? text : `${text}\n`;
}

export async function boundedAppend(
  dir: string,
  content: string,
  opts: BoundedAppendOptions = {},
): Promise<BoundedAppendResult> {
  const body = normalizeMemoryContent(content);
  const now = opts.now ?? new Date();
  const file = memoryFile(dir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return withFileLock(
    file,
    async () => {
      const existing = await readExisting(file);
      // The reference prefixes a newline so the entry starts on its own line; since every entry here ends
      // with one, only a file someone left unterminated needs it (line counts then match the reference).
      const separator = existing.length > 0 && !existing.endsWith('\n') ? '\n' : '';
      if (countLines(existing + separator + body) <= MEMORY_LINE_BOUND) {
        await atomicWriteFile(file, existing + separator + body);
        return { path: file, overflowed: false };
      }
      const detail = await writeOverflowFile(dir, body, now, opts.randomHex ?? randomHex);
      await atomicWriteFile(file, `${existing}${separator}${pointerLine(now, detail.name)}\n`);
      return { path: detail.path, overflowed: true };
    },
    opts.lockWaitMs !== undefined ? { waitMs: opts.lockWaitMs } : {},
  );
}

async function readExisting(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  }
}

const randomHex = (): string => randomBytes(3).toString('hex');

/**
 * A new overflow file, created exclusively: 3 random bytes collide often enough over years of overflow
 * (about 1 in 10 by 1,600 files) that an existing file must never be overwritten, so a taken name is
 * simply drawn again. It is complete on disk before the pointer to it is written.
 */
async function writeOverflowFile(
  dir: string,
  body: string,
  now: Date,
  hex: () => string,
): Promise<{ name: string; path: string }> {
  const text = `# Auto-persisted Learnings (${localDate(now)})\n\n${body}`;
  for (let attempt = 0; attempt < 20; attempt++) {
    const name = autoFileName(now, hex());
    const path = join(dir, name);
    let handle;
    try {
      handle = await open(path, 'wx', 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw describeWriteError(e, path);
    }
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } catch (e) {
      await handle.close().catch(() => undefined);
      // No pointer will name it; a half-written file would only be swept up by consolidation later.
      await unlink(path).catch(() => undefined);
      throw describeWriteError(e, path);
    }
    await handle.close();
    return { name, path };
  }
  throw new ReinError('internal', `could not find a free overflow file name in ${dir}`);
}
