/**
 * Consolidation: every so often the small model folds the automatically saved parts of memory (the
 * auto sections of MEMORY.md and the overflow files) into one compact, deduplicated list, so memory
 * keeps fitting the prompt. What the user wrote outside those sections is never given to the model and
 * is kept byte for byte. Nothing changes unless the model's answer is usable: MEMORY.md is replaced
 * atomically first, and only then are the files it absorbed deleted.
 */
import { readdir, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { ReinError } from '../errors.js';
import type { LlmClient } from '../llm/client.js';
import { completeText } from '../llm/complete.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { withFileLock } from '../util/fileLock.js';
import { AUTO_FILE_RE, GC_MARKER, isAutoHeading, isPointerLine, localDateTime, memoryFile } from './files.js';

export const CONSOLIDATE_MIN_AUTO_FILES = 12;
export const CONSOLIDATE_COOLDOWN_MS = 7 * 24 * 60 * 60 * 1000;
/** Input beyond this is left for the next consolidation rather than sent in one oversized request. */
export const CONSOLIDATE_MAX_INPUT_CHARS = 150_000;

const SYSTEM = [
  "You maintain the long-term memory of a person's AI assistant. You are given memory entries that were",
  'saved automatically over time, oldest first. Merge them into one compact list:',
  '- one fact per line, each line a Markdown bullet starting with "- ", at most about 100 characters;',
  '- about 100 lines in total at most;',
  '- remove duplicates; when two entries conflict, the newer one wins;',
  '- drop what is stale or ephemeral: task progress, one-off command output, temporary states;',
  '- keep decisions, preferences and corrections, recurring patterns, gotchas, references (paths, URLs,',
  '  commands, settings), contacts and people.',
  'Reply with the bullet list only: no headings, no introduction, no code fences.',
  'If nothing is worth keeping, reply with exactly NONE.',
].join('\n');

/** Due: at least 12 overflow files, and the last consolidation (`.memory_gc`'s mtime) ≥ 7 days ago. */
export async function shouldConsolidate(dir: string, now: Date = new Date()): Promise<boolean> {
  return consolidationDue(await consolidationFacts(dir), now);
}

/** What the decision to consolidate rests on; it changes only when the memory folder does. */
export interface ConsolidationFacts {
  autoFiles: number;
  /** When the last consolidation ran (`.memory_gc`'s mtime, ms), if ever. */
  lastMs?: number;
}

export async function consolidationFacts(dir: string): Promise<ConsolidationFacts> {
  const autos = await listAutoFiles(dir);
  if (autos.length < CONSOLIDATE_MIN_AUTO_FILES) return { autoFiles: autos.length };
  const last = await lastConsolidated(dir);
  return { autoFiles: autos.length, ...(last ? { lastMs: last.getTime() } : {}) };
}

export function consolidationDue(facts: ConsolidationFacts, now: Date): boolean {
  if (facts.autoFiles < CONSOLIDATE_MIN_AUTO_FILES) return false;
  return facts.lastMs === undefined || now.getTime() - facts.lastMs >= CONSOLIDATE_COOLDOWN_MS;
}

export interface MemoryParts {
  /** Every line outside auto sections and pointer lines, in order, unchanged. */
  user: string;
  /** Auto sections (heading included) and pointer lines. */
  auto: string;
}

/**
 * An auto section runs from a `## Auto-persisted` / `## Auto-consolidated` heading to the next other
 * `## ` heading; pointer lines are auto wherever they are. Everything else belongs to the user.
 */
export function splitMemory(text: string): MemoryParts {
  const user: string[] = [];
  const auto: string[] = [];
  let inAuto = false;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) {
    if (line.startsWith('## ')) inAuto = isAutoHeading(line);
    if (inAuto || isPointerLine(line)) auto.push(line);
    else user.push(line);
  }
  return { user: joinLines(user), auto: joinLines(auto) };
}

const joinLines = (lines: string[]): string => (lines.length === 0 ? '' : `${lines.join('\n')}\n`);

export interface ConsolidateOptions {
  llm: LlmClient;
  /** The small model. */
  model: string;
  now?: Date;
  signal: AbortSignal;
  /** Run even when not due (an explicit `rein memory consolidate`). */
  force?: boolean;
  lockWaitMs?: number;
  maxInputChars?: number;
}

export type ConsolidationOutcome =
  | { status: 'skipped'; reason: string }
  | {
      status: 'consolidated';
      /** Overflow files absorbed (and deleted, except those in `leftover`). */
      consumedFiles: string[];
      /** Lines in the new Auto-consolidated section (0 when the model kept nothing). */
      lines: number;
      /** Absorbed files that could not be deleted (they will be absorbed again next time). */
      leftover: string[];
    };

/**
 * Runs a consolidation when due (or forced). Returns what happened; throws a ReinError (and changes
 * nothing on disk) when the model fails or gives an empty answer. Callers at the start of a run should
 * catch and log: a failed consolidation must not fail the run.
 */
export async function consolidateMemory(dir: string, opts: ConsolidateOptions): Promise<ConsolidationOutcome> {
  const now = opts.now ?? new Date();
  const due = () => (opts.force ? true : shouldConsolidate(dir, now));
  if (!(await due())) return { status: 'skipped', reason: 'not due' };
  if (!(await exists(dir))) return { status: 'skipped', reason: 'no memory yet' };
  const file = memoryFile(dir);
  return withFileLock(
    file,
    async (): Promise<ConsolidationOutcome> => {
      // Another process may have consolidated while this one waited for the lock.
      if (!(await due())) return { status: 'skipped', reason: 'not due' };
      const current = await readIfPresent(file);
      const { user, auto } = splitMemory(current ?? '');
      const parts: string[] = [];
      let size = 0;
      if (auto.trim() !== '') {
        parts.push(`### From MEMORY.md\n\n${auto.trim()}`);
        size += auto.length;
      }
      const consumed: string[] = [];
      for (const name of await listAutoFiles(dir)) {
        // An unreadable file is still consumed: it cannot be merged, and keeping it would block every run.
        const text = ((await readIfPresent(join(dir, name)).catch(() => undefined)) ?? '').trim();
        if (consumed.length > 0 && size + text.length > (opts.maxInputChars ?? CONSOLIDATE_MAX_INPUT_CHARS)) break;
        consumed.push(name);
        size += text.length;
        if (text !== '') parts.push(`### From ${name}\n\n${text}`);
      }
      if (parts.length === 0 && consumed.length === 0) return { status: 'skipped', reason: 'nothing to consolidate' };

      // Only empty or unreadable overflow files: nothing to ask the model about, just clear them away.
      const answer =
        parts.length === 0
          ? 'NONE'
          : await completeText(
              opts.llm,
              {
                model: opts.model,
                system: SYSTEM,
                prompt: `Memory entries, oldest first:\n\n${parts.join('\n\n')}\n`,
                maxTokens: 2000,
                temperature: 0.2,
                // A list cut short would silently drop facts whose sources are about to be deleted.
                rejectTruncated: true,
              },
              opts.signal,
            );
      const bullets = cleanAnswer(answer);
      if (bullets === '')
        throw new ReinError('llm_failed', 'memory consolidation: the model gave an empty answer; memory is unchanged');
      const keepNothing = bullets === 'NONE';
      const section = keepNothing ? '' : `## Auto-consolidated (${localDateTime(now)})\n\n${bullets}\n`;
      const userPart = user.replace(/\s+$/, '');
      const next = userPart === '' ? section : section === '' ? `${userPart}\n` : `${userPart}\n\n${section}`;
      await atomicWriteFile(file, next);

      const leftover: string[] = [];
      for (const name of consumed) {
        await unlink(join(dir, name)).catch((e: NodeJS.ErrnoException) => {
          if (e.code !== 'ENOENT') leftover.push(name);
        });
      }
      await atomicWriteFile(join(dir, GC_MARKER), `${now.toISOString()}\n`);
      // The marker's mtime is the cooldown clock; pin it to the same clock the trigger reads.
      await utimes(join(dir, GC_MARKER), now, now);
      return {
        status: 'consolidated',
        consumedFiles: consumed,
        lines: keepNothing ? 0 : bullets.split('\n').length,
        leftover,
      };
    },
    opts.lockWaitMs !== undefined ? { waitMs: opts.lockWaitMs } : {},
  );
}

/**
 * The model's list, made safe to store: no code fences, no `#`/`##` headings (a `## ` line would end the
 * auto section and turn the rest into "user" lines forever), no copies of pointer lines (their files are
 * about to be deleted).
 */
function cleanAnswer(answer: string): string {
  return answer
    .replace(/\r\n?/g, '\n')
    .replace(/\0/g, '')
    .split('\n')
    .filter((l) => !/^\s*```/.test(l) && !/^#{1,2}(\s|$)/.test(l) && !isPointerLine(l))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Overflow files, oldest first (by modification time, then name). */
export async function listAutoFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => AUTO_FILE_RE.test(n));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const withTimes = await Promise.all(
    names.map(async (name) => ({
      name,
      mtime: await stat(join(dir, name)).then(
        (s) => s.mtimeMs,
        () => 0,
      ),
    })),
  );
  return withTimes.sort((a, b) => a.mtime - b.mtime || a.name.localeCompare(b.name)).map((f) => f.name);
}

async function lastConsolidated(dir: string): Promise<Date | undefined> {
  try {
    return (await stat(join(dir, GC_MARKER))).mtime;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
