/** Session titles derived from the first prompt: one short line a list can show. */

export const DEFAULT_SESSION_TITLE = 'New session';

const MAX_TITLE_CHARS = 50;

/**
 * First non-empty line, trimmed. Up to 50 characters are kept as they are; a longer line is cut to 50
 * and, when its last space lies past the halfway point, cut back to that space so no word is split,
 * then `…` is appended. Characters are code points, so an emoji or accented letter is never split.
 */
export function titleFromPrompt(text: string): string {
  const line = text
    .split(/\r\n|\r|\n/)
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (line === undefined) return DEFAULT_SESSION_TITLE;
  const chars = Array.from(line);
  if (chars.length <= MAX_TITLE_CHARS) return line;
  let cut = chars.slice(0, MAX_TITLE_CHARS);
  const lastSpace = lastWhitespaceIndex(cut);
  if (lastSpace > MAX_TITLE_CHARS / 2) cut = cut.slice(0, lastSpace);
  return `${cut.join('').trimEnd()}…`;
}

function lastWhitespaceIndex(chars: readonly string[]): number {
  for (let i = chars.length - 1; i >= 0; i--) if (/\s/.test(chars[i]!)) return i;
  return -1;
}
