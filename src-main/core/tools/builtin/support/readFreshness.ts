/**
 * Read-before-write: the model may only change a file whose current content it has seen. Editing from a stale
 * picture silently drops whatever changed on disk since (another editor, a formatter, a git checkout).
 */
import type { Stats } from 'node:fs';
import { errorResult, type ToolContext, type ToolResult } from '../../tool.js';

/** A refusal the model can act on, or undefined when the session's picture of the file is current. */
export function staleReadRefusal(
  ctx: ToolContext,
  canonical: string,
  shownPath: string,
  st: Stats,
): ToolResult | undefined {
  const seen = ctx.readTracker.lastRead(canonical);
  if (!seen) {
    return errorResult(
      'validation',
      `${shownPath} exists but has not been read in this session; call file_read on it first`,
    );
  }
  if (seen.mtimeMs !== st.mtimeMs || seen.size !== st.size) {
    return errorResult(
      'validation',
      `${shownPath} has changed on disk since you last read it at ${seen.at}; call file_read again before changing it`,
    );
  }
  return undefined;
}
