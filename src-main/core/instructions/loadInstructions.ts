/**
 * The standing instructions a run starts with: AGENTS.md, CLAUDE.md, instructions.md and rule files,
 * global and per project (see `discover.ts` for where). The nearer a file is to the working folder,
 * the more it matters; project files matter more than global ones. Higher-priority files come later
 * in the text (the last word wins when two disagree), a repeated line survives only in the
 * highest-priority file, each part names the file it came from, and when the whole is longer than
 * `maxChars` the lowest-priority parts are left out first and a note says what was cut.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { errorMessage } from '../errors.js';
import { dedupeLines, hasContent } from './dedupe.js';
import { discoverInstructionFiles } from './discover.js';

export interface LoadInstructionsOptions {
  /** Rein's home folder: the global files live here. */
  home: string;
  /** Working folder of the run. */
  cwd: string;
  /** Upper bound on `text.length`, the note included. */
  maxChars?: number;
}

export interface InstructionProblem {
  file: string;
  message: string;
}

export interface LoadedInstructions {
  /** Ready for the prompt; empty when there are no instruction files. */
  text: string;
  /** Files whose text is (at least partly) in `text`, in the order they appear. */
  sources: string[];
  /** True when something was left out or cut short to respect `maxChars`. */
  truncated: boolean;
  /** Files that exist but could not be used (unreadable, not UTF-8, too large). */
  problems: InstructionProblem[];
}

export const DEFAULT_INSTRUCTIONS_MAX_CHARS = 16_000;
/** A single instruction file larger than this is surely not meant for the prompt. */
const MAX_FILE_BYTES = 1024 * 1024;
const SEPARATOR = '\n\n';

interface Part {
  file: string;
  content: string;
}

export async function loadInstructions(opts: LoadInstructionsOptions): Promise<LoadedInstructions> {
  const maxChars = opts.maxChars ?? DEFAULT_INSTRUCTIONS_MAX_CHARS;
  const problems: InstructionProblem[] = [];

  // Ascending priority. A file reached twice (a symlinked CLAUDE.md, cwd inside the home folder) is
  // read once, at its highest-priority position.
  const candidates = await discoverInstructionFiles(opts.home, opts.cwd);
  const real = await Promise.all(candidates.map((c) => realpath(c.file).catch(() => c.file)));
  const lastIndexOf = new Map<string, number>();
  real.forEach((r, i) => lastIndexOf.set(r, i));
  const files = candidates.filter((_, i) => lastIndexOf.get(real[i]!) === i).map((c) => c.file);

  const read: Part[] = [];
  for (const file of files) {
    const content = await readInstructionFile(file, problems);
    if (content !== undefined && content.trim() !== '') read.push({ file, content });
  }

  // Dedupe walks from the highest priority down, so the copy that stays is the one that matters most.
  const deduped = dedupeLines([...read].reverse().map((p) => p.content)).reverse();
  const parts = read.map((p, i) => ({ file: p.file, content: deduped[i]! })).filter((p) => hasContent(p.content));

  return { ...fitToBudget(parts, maxChars), problems };
}

async function readInstructionFile(file: string, problems: InstructionProblem[]): Promise<string | undefined> {
  try {
    const info = await stat(file);
    if (info.size > MAX_FILE_BYTES) {
      problems.push({
        file,
        message: `is ${info.size} bytes; instruction files over ${MAX_FILE_BYTES} bytes are ignored`,
      });
      return undefined;
    }
    const bytes = await readFile(file);
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch (e) {
    const message = e instanceof TypeError ? 'is not valid UTF-8 text; ignored' : `cannot read: ${errorMessage(e)}`;
    problems.push({ file, message });
    return undefined;
  }
}

function render(part: Part): string {
  return `<!-- from ${part.file} -->\n${part.content}`;
}

function fitToBudget(parts: Part[], maxChars: number): Omit<LoadedInstructions, 'problems'> {
  const whole = parts.map(render).join(SEPARATOR);
  if (whole.length <= maxChars) return { text: whole, sources: parts.map((p) => p.file), truncated: false };

  // Reserve room for the note, which depends on what is cut; the reserve only grows, so this settles
  // within a few passes (the note lists at most a handful of names).
  let reserve = 0;
  for (let pass = 0; pass < 8; pass++) {
    const fit = selectParts(parts, Math.max(0, maxChars - reserve));
    const note = truncationNote(maxChars, fit.dropped, fit.cut);
    const body = fit.kept.map(render).join(SEPARATOR);
    const text = body === '' ? note : `${note}${SEPARATOR}${body}`;
    if (text.length <= maxChars) return { text, sources: fit.kept.map((p) => p.file), truncated: true };
    reserve = Math.max(reserve + 1, note.length + SEPARATOR.length);
  }
  // Only reachable when maxChars is smaller than the note itself.
  return {
    text: truncationNote(
      maxChars,
      parts.map((p) => p.file),
      undefined,
    ).slice(0, maxChars),
    sources: [],
    truncated: true,
  };
}

interface Selection {
  /** In ascending priority, like `parts`. */
  kept: Part[];
  dropped: string[];
  cut?: { file: string; keptChars: number; totalChars: number };
}

/** Keeps the highest-priority parts that fit; the first one that does not is cut at a line break. */
function selectParts(parts: Part[], budget: number): Selection {
  const kept: Part[] = [];
  const dropped: string[] = [];
  let cut: Selection['cut'];
  let used = 0;
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]!;
    const cost = render(part).length + (kept.length > 0 ? SEPARATOR.length : 0);
    if (cut === undefined && dropped.length === 0 && used + cost <= budget) {
      kept.unshift(part);
      used += cost;
      continue;
    }
    if (cut === undefined && dropped.length === 0) {
      const room = budget - used - (cost - part.content.length);
      const head = headByLines(part.content, room);
      if (head !== '') {
        kept.unshift({ file: part.file, content: head });
        used += cost - part.content.length + head.length;
        cut = { file: part.file, keptChars: head.length, totalChars: part.content.length };
        continue;
      }
    }
    dropped.unshift(part.file);
  }
  return cut ? { kept, dropped, cut } : { kept, dropped };
}

/** The longest run of whole lines from the top that fits in `room` characters. */
function headByLines(content: string, room: number): string {
  if (room <= 0) return '';
  const lines = content.split('\n');
  let out = '';
  for (const line of lines) {
    const next = out === '' ? line : `${out}\n${line}`;
    if (next.length > room) break;
    out = next;
  }
  return out.trimEnd();
}

function truncationNote(maxChars: number, dropped: string[], cut: Selection['cut']): string {
  const said: string[] = [];
  if (dropped.length > 0) {
    const shown = dropped.slice(0, 6).join(', ');
    said.push(`left out ${shown}${dropped.length > 6 ? ` and ${dropped.length - 6} more` : ''}`);
  }
  if (cut) said.push(`cut ${cut.file} after ${cut.keptChars} of ${cut.totalChars} characters`);
  return `<!-- instructions exceed ${maxChars} characters: ${said.join('; ')}. Lower-priority files are cut first; shorten them to keep them whole. -->`;
}
