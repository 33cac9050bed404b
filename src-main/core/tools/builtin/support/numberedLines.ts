/** The one line-numbering format shared by file_read and file_edit's context snippet: `   1 | text`. */

export const MAX_LINE_CHARS = 2_000;

export function numberedLine(lineNo: number, text: string): string {
  const shown =
    text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}... (line cut, ${text.length} chars)` : text;
  return `${String(lineNo).padStart(4)} | ${shown}`;
}
