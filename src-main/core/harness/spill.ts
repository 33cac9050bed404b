/**
 * A tool result over its budget is saved whole to a file in the session folder; the model gets the
 * head and tail plus the path, and can page through the file with file_read or grep.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeWriteError } from '../util/diskErrors.js';

const HEAD = 2_000;
const TAIL = 1_000;

export async function spillIfOverBudget(
  content: string,
  budget: number,
  where: { sessionDir: string; callId: string; tool: string },
): Promise<{ content: string; savedTo?: string }> {
  if (content.length <= budget) return { content };
  const dir = join(where.sessionDir, 'tool-results');
  const safeId = where.callId.replace(/[^A-Za-z0-9_-]/g, '_');
  const file = join(dir, `${where.tool}-${safeId}.txt`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(file, content, { mode: 0o600 });
  } catch (e) {
    // A full disk leaves a partial file that no result would point to: gone, and the error names it.
    await rm(file, { force: true }).catch(() => undefined);
    throw describeWriteError(e, file, `save the tool result to ${file}`);
  }
  const head = content.slice(0, Math.min(HEAD, budget));
  // slice(-0) would be the whole content: a budget too small for a tail gets none.
  const tailLength = Math.min(TAIL, Math.max(0, budget - HEAD));
  const tail = tailLength > 0 ? content.slice(-tailLength) : '';
  const lines = content.split('\n').length;
  const preview =
    `${head}\n\n… [${content.length - head.length - tail.length} characters omitted] …\n\n${tail}\n\n` +
    `[The full result (${content.length} characters, ${lines} lines) was saved to ${file}. ` +
    `Read parts of it with file_read (offset/limit) or search it with grep instead of repeating the call.]`;
  return { content: preview, savedTo: file };
}
