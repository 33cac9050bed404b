/**
 * Text from a tool call, a model or another program, made safe to show to a person: every character
 * that a terminal, a dialog or a page would *interpret* instead of showing is written out as a visible
 * escape. A command line with `\x1b[1A\x1b[2K\r` could otherwise move the cursor and paint a harmless
 * command over the real one; a right-to-left override (U+202E) reorders what is displayed; zero-width
 * characters hide text between the letters a person reads. What a person approves must be what runs.
 *
 * Made visible: C0 controls (ESC, CR, backspace, NUL…), DEL and C1 controls (U+0080–U+009F), every
 * Unicode format character (bidi embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, the
 * marks U+200E/U+200F/U+061C, zero-width U+200B–U+200D and U+2060, U+FEFF, the invisible tag
 * characters U+E0000–U+E007F…), and the line and paragraph separators U+2028/U+2029. Tabs stay. A
 * newline stays a line break only with `keepNewlines` (a face showing a multi-line script); CR never does.
 *
 * Backslashes are left as they are: the escapes are for a person's eyes, not to be parsed back.
 * Pure TypeScript: the page bundles it (every face calls it, src-renderer included).
 */

export interface VisibleTextOptions {
  /** Keep `\n` as a real line break (multi-line text: a script, a form's message). Default: shown as `\n`. */
  keepNewlines?: boolean;
}

// Cc: C0, DEL, C1. Cf: format characters (bidi controls, zero-width, BOM, tags…). Zl/Zp: U+2028/U+2029.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r' };

/** One character as its escape: `\r`, `\n`, `\x1b` (up to U+00FF), `\u202e`, `\u{e0041}`. */
function escapeOne(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const cp = ch.codePointAt(0)!;
  if (cp <= 0xff) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\u{${cp.toString(16)}}`;
}

/** `text` with every control, format and separator character written out (see the file's comment). */
export function visibleText(text: string, opts: VisibleTextOptions = {}): string {
  return text.replace(INVISIBLE, (ch) => (ch === '\t' || (ch === '\n' && opts.keepNewlines) ? ch : escapeOne(ch)));
}
