/**
 * Snippets: a short piece of the matching message with the matches marked. The markers are `>>>` and
 * `<<<` (rare in real text, unlike `[`/`]`, and readable by the model as well as a person); `…` marks
 * text cut at either end. The FTS stages get their snippets from SQLite's `snippet()`; the short-query
 * stage (LIKE) builds them here the same way.
 */
export const MATCH_OPEN = '>>>';
export const MATCH_CLOSE = '<<<';
export const ELLIPSIS = '…';

/** Characters of context shown before the first match in a snippet built here. */
const CONTEXT_BEFORE = 30;
const SNIPPET_CHARS = 100;

/** Snippets are shown on one line: newlines and runs of blanks become one space. */
export function compactSnippet(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * A window of `content` around the first occurrence of any term, with every occurrence of every term
 * in it marked. Case-insensitive as SQLite's LIKE is (ASCII letters only).
 */
export function snippetAround(content: string, terms: readonly string[]): string {
  const lower = asciiLower(content);
  const needles = terms.map(asciiLower).filter((t) => t.length > 0);
  let first = -1;
  for (const n of needles) {
    const at = lower.indexOf(n);
    if (at !== -1 && (first === -1 || at < first)) first = at;
  }
  if (first === -1)
    return compactSnippet(content.slice(0, SNIPPET_CHARS)) + (content.length > SNIPPET_CHARS ? ELLIPSIS : '');

  let start = Math.max(0, first - CONTEXT_BEFORE);
  let end = Math.min(content.length, start + SNIPPET_CHARS);
  start = codePointStart(content, start);
  end = codePointStart(content, end);

  // Mark occurrences inside the window, longest needle first so `ab` inside a marked `abc` is not split.
  const sorted = [...needles].sort((a, b) => b.length - a.length);
  const marks: Array<[number, number]> = [];
  for (const n of sorted) {
    for (let at = lower.indexOf(n, start); at !== -1 && at < end; at = lower.indexOf(n, at + n.length)) {
      const stop = Math.min(at + n.length, end);
      if (!marks.some(([a, b]) => at < b && stop > a)) marks.push([at, stop]);
    }
  }
  marks.sort((a, b) => a[0] - b[0]);
  let out = start > 0 ? ELLIPSIS : '';
  let pos = start;
  for (const [a, b] of marks) {
    out += content.slice(pos, a) + MATCH_OPEN + content.slice(a, b) + MATCH_CLOSE;
    pos = b;
  }
  out += content.slice(pos, end);
  if (end < content.length) out += ELLIPSIS;
  return compactSnippet(out);
}

// Only ASCII letters fold, like SQLite's built-in LIKE; the string length never changes, so indexes line up.
function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** Moves an index off the second half of a surrogate pair. */
function codePointStart(s: string, i: number): number {
  const code = s.charCodeAt(i);
  return i > 0 && i < s.length && code >= 0xdc00 && code <= 0xdfff ? i - 1 : i;
}
