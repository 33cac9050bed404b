/**
 * Splits a markdown file into its YAML front matter and body. Shared by SKILL.md and slash-command
 * files: both are "YAML between `---` lines, then markdown". The YAML is parsed with the `yaml`
 * library; a syntax error is returned as a value (with its line) so the caller can name the file.
 */
import { LineCounter, parseDocument } from 'yaml';

export type FrontMatterResult =
  | { kind: 'none'; body: string }
  | { kind: 'ok'; data: unknown; body: string }
  | { kind: 'error'; message: string; line?: number };

// The closing fence is `---` (or YAML's document end `...`) on a line of its own.
const OPENING = /^---[ \t]*\r?\n/;
const CLOSING = /^(?:---|\.\.\.)[ \t]*$/m;

export function splitFrontMatter(text: string): FrontMatterResult {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const open = OPENING.exec(src);
  if (!open) return { kind: 'none', body: src };
  const rest = src.slice(open[0].length);
  const close = CLOSING.exec(rest);
  if (!close) return { kind: 'error', message: 'front matter is not closed (no line with only "---" after it)' };

  const yamlText = rest.slice(0, close.index);
  const afterClose = rest.slice(close.index + close[0].length).replace(/^\r?\n/, '');
  const lineCounter = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter, prettyErrors: false });
  const err = doc.errors[0];
  if (err) {
    // +1: the opening `---` is line 1 of the file.
    const line = lineCounter.linePos(err.pos[0]).line + 1;
    return { kind: 'error', message: `YAML syntax error: ${err.message.split('\n', 1)[0]}`, line };
  }
  const data: unknown = doc.toJS();
  return { kind: 'ok', data: data ?? {}, body: afterClose };
}
