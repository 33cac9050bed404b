/** `file_edit`: replace an exact piece of text in a file the model has read. */
import { callSummaryOf } from '../../api/toolSummary.js';
import type { Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { writeFileAtomic } from './support/writeFileAtomic.js';
import { z } from 'zod';
import { errorResult, okResult, type Tool } from '../tool.js';
import { writeError } from './support/fsErrors.js';
import { numberedLine } from './support/numberedLines.js';
import { staleReadRefusal } from './support/readFreshness.js';
import { canonicalPath, errnoCode, isDevicePath, protectedReason, resolveToolPath } from './support/toolPaths.js';
import { FILE_EDIT_TRAITS } from './builtinTraits.js';

/** Lines of context shown before and after the first change. */
const CONTEXT_LINES = 3;
/** The snippet is a confirmation, not a re-read: long replacements are shown only in part. */
const MAX_SNIPPET_LINES = 30;

const input = z.strictObject({
  path: z.string().min(1).describe('File to edit: absolute, relative to the working folder, or starting with ~/.'),
  old_string: z
    .string()
    .min(1)
    .describe('The exact text to replace, including whitespace and indentation (without file_read line numbers).'),
  new_string: z.string().describe('The text to put in its place.'),
  replace_all: z
    .boolean()
    .optional()
    .describe('Replace every occurrence instead of requiring exactly one (default false).'),
});
export type FileEditInput = z.infer<typeof input>;

export const fileEditTool: Tool<FileEditInput> = {
  name: 'file_edit',
  traits: FILE_EDIT_TRAITS,
  source: 'local',
  description: [
    'Replace exact text in a file. The file must have been read with file_read in this session and not changed on disk since.',
    '`old_string` must match the file exactly (whitespace and indentation included, without the line-number prefix of file_read)',
    'and must occur exactly once unless `replace_all` is true; include a few surrounding lines to make it unique.',
    'The file keeps its permissions. The result shows a few lines around the first change.',
  ].join(' '),
  input,
  isReadOnly: () => false,
  isDestructive: () => false,
  summarize: (i) => callSummaryOf('file_edit', i),

  async call(i, ctx) {
    if (i.old_string === i.new_string)
      return errorResult('validation', 'old_string and new_string are the same; nothing to change');
    const abs = resolveToolPath(i.path, ctx.cwd);
    if (isDevicePath(abs))
      return errorResult('validation', `${i.path} is a device path; file_edit only edits regular files`);
    const real = await canonicalPath(abs);
    const reason = protectedReason(ctx, abs, real);
    if (reason !== undefined) return errorResult('permission', `refusing to edit ${i.path}: ${reason}`);

    let st: Stats;
    let content: string;
    try {
      st = await stat(real);
      if (!st.isFile()) return errorResult('validation', `${i.path} is not a regular file`);
      const stale = staleReadRefusal(ctx, real, i.path, st);
      if (stale) return stale;
      const raw = await readFile(real);
      if (raw.includes(0)) return errorResult('validation', `${i.path} is a binary file; file_edit only edits text`);
      content = raw.toString('utf8');
    } catch (e) {
      const code = errnoCode(e);
      if (code === 'ENOENT' || code === 'ENOTDIR')
        return errorResult('validation', `${i.path} does not exist; use file_write to create it`);
      if (code === 'EACCES' || code === 'EPERM') return errorResult('permission', `no permission to read ${i.path}`);
      return errorResult('transient', `could not read ${i.path}: ${e instanceof Error ? e.message : String(e)}`);
    }

    let oldString = i.old_string;
    let newString = i.new_string;
    let count = countOccurrences(content, oldString);
    // Models write \n; a file with Windows line endings has \r\n. Match what the model meant, keep the file's style.
    if (count === 0 && content.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r\n')) {
      oldString = oldString.replace(/\n/g, '\r\n');
      newString = newString.replace(/\r?\n/g, '\r\n');
      count = countOccurrences(content, oldString);
    }
    if (count === 0) {
      return errorResult(
        'validation',
        `old_string not found in ${i.path}; read the file again and copy the text exactly`,
      );
    }
    if (count > 1 && !i.replace_all) {
      return errorResult(
        'validation',
        `old_string found ${count} times in ${i.path}; add surrounding context to make it unique or set replace_all`,
      );
    }

    const firstIndex = content.indexOf(oldString);
    const updated = i.replace_all
      ? content.split(oldString).join(newString)
      : content.slice(0, firstIndex) + newString + content.slice(firstIndex + oldString.length);

    try {
      await writeFileAtomic(real, updated, { encoding: 'utf8', mode: st.mode & 0o7777 });
      const after = await stat(real);
      ctx.readTracker.markWritten(real, { mtimeMs: after.mtimeMs, size: after.size });
    } catch (e) {
      return writeError(e, i.path);
    }

    const replaced = i.replace_all ? count : 1;
    const summary = `replaced ${replaced} occurrence${replaced === 1 ? '' : 's'} in ${i.path}`;
    return okResult(`${summary}\n\n${snippetAround(updated, firstIndex, newString.length)}`);
  },
};

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Numbered lines around the replacement starting at `index` (in the updated text). */
function snippetAround(text: string, index: number, length: number): string {
  const lines = text.split(/\r?\n/);
  const firstLine = text.slice(0, index).split('\n').length - 1;
  const lastLine = firstLine + (text.slice(index, index + length).match(/\n/g)?.length ?? 0);
  const from = Math.max(0, firstLine - CONTEXT_LINES);
  const to = Math.min(lines.length - 1, lastLine + CONTEXT_LINES, from + MAX_SNIPPET_LINES - 1);
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(numberedLine(n + 1, lines[n] ?? ''));
  return out.join('\n');
}
