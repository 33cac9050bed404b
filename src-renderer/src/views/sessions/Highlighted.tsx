/**
 * A search snippet with its matches marked. The index marks them with `>>>` and `<<<` (see
 * core/search/snippet.ts; a test keeps these in step); they become <mark> elements, and the rest stays
 * text, so a snippet can never inject markup.
 */
export const MATCH_OPEN = '>>>';
export const MATCH_CLOSE = '<<<';

export type SnippetPart = { text: string; match: boolean };

export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let rest = snippet;
  while (rest) {
    const open = rest.indexOf(MATCH_OPEN);
    if (open < 0) break;
    const close = rest.indexOf(MATCH_CLOSE, open + MATCH_OPEN.length);
    if (close < 0) break;
    if (open > 0) parts.push({ text: rest.slice(0, open), match: false });
    parts.push({ text: rest.slice(open + MATCH_OPEN.length, close), match: true });
    rest = rest.slice(close + MATCH_CLOSE.length);
  }
  if (rest) parts.push({ text: rest, match: false });
  return parts;
}

export function Highlighted({ snippet }: { snippet: string }) {
  return (
    <>
      {snippetParts(snippet).map((p, i) => (p.match ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
    </>
  );
}
