/**
 * The memory text that goes into an agent's prompt: the head of MEMORY.md, with the files its lines
 * link to (the overflow files behind pointer lines, or notes the user linked) inlined where the link
 * was, so the model sees the detail and not just a reference to it. Bounded twice, by lines and by
 * characters, because it is paid for on every request.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MEMORY_FILE, memoryFile } from './files.js';

export const MEMORY_LOAD_LINES = 200;
export const MEMORY_LOAD_CHARS = 2_000;
export const TRUNCATION_NOTE = '[truncated]';

/** `](name.md)`: a Markdown link to a file. Only bare names in the same folder are followed. */
const LINK_RE = /\]\(([^)\s]+\.md)\)/i;

export interface LoadMemoryOptions {
  maxLines?: number;
  maxChars?: number;
}

/** The text for the prompt, or '' when the agent has no memory yet. */
export async function loadMemory(dir: string, opts: LoadMemoryOptions = {}): Promise<string> {
  const maxLines = opts.maxLines ?? MEMORY_LOAD_LINES;
  const maxChars = opts.maxChars ?? MEMORY_LOAD_CHARS;
  const main = await readIfPresent(memoryFile(dir));
  if (main === undefined) return '';

  const out: string[] = [];
  for (const line of splitLines(main)) {
    if (out.length >= maxLines) break;
    const linked = linkedFile(line);
    const inlined = linked === undefined ? undefined : await readIfPresent(join(dir, linked));
    if (inlined === undefined) {
      out.push(line);
      continue;
    }
    for (const l of splitLines(inlined.trim())) {
      if (out.length >= maxLines) break;
      out.push(l);
    }
  }
  const text = out.join('\n').trim();
  return capChars(text, maxChars);
}

/** The local file a line links to, when it is safe to read: a plain name in this folder, not MEMORY.md. */
function linkedFile(line: string): string | undefined {
  const m = LINK_RE.exec(line);
  const name = m?.[1];
  if (!name) return undefined;
  if (name.includes('/') || name.includes('\\') || name.includes('..')) return undefined;
  if (name.toLowerCase() === MEMORY_FILE.toLowerCase()) return undefined;
  return name;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Cut at a character (code point) count, never inside a surrogate pair, and say that it was cut. */
function capChars(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, max).join('')}\n${TRUNCATION_NOTE}`;
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // A linked file may vanish under us (consolidation deletes overflow files); a folder is not a note.
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}
