/**
 * Slash commands in the composer: `/name args` runs the agent's `commands/<name>.md` template. The
 * daemon takes messages as they are, so the page fills the template itself, by the same rules as
 * core/commands/expand.ts (a test keeps the two in step): `$ARGUMENTS` is everything after the
 * name, `$1`, `$2`… its words (quotes group words), and a template without placeholders gets the
 * arguments appended. `/new`, `/clear` and `/help` belong to the page.
 */

export const PAGE_COMMANDS: Record<string, string> = {
  new: 'start a new conversation',
  clear: 'start a new conversation',
  help: 'list the commands',
};

export interface SlashInput {
  name: string;
  rest: string;
}

/** `/review a b` → {name: 'review', rest: 'a b'}; null when the text is not a command. */
export function parseSlash(input: string): SlashInput | null {
  const text = input.replace(/^\s+/, '');
  const m = /^\/([a-z0-9][a-z0-9_-]{0,63})(?=\s|$)/i.exec(text);
  if (!m) return null;
  return { name: m[1]!.toLowerCase(), rest: text.slice(m[0].length).trim() };
}

/** Command names to offer while the user types the first word after `/`. */
export function suggestCommands(input: string, names: readonly string[]): string[] {
  const m = /^\/([a-z0-9_-]*)$/i.exec(input);
  if (!m) return [];
  const typed = m[1]!.toLowerCase();
  return names.filter((n) => n.startsWith(typed)).sort();
}

const PLACEHOLDER = /\$(ARGUMENTS|[1-9]\d*)/g;

export function fillTemplate(template: string, rest: string): string {
  let words: string[] | undefined;
  let used = false;
  const filled = template.replace(PLACEHOLDER, (_all, key: string) => {
    used = true;
    if (key === 'ARGUMENTS') return rest;
    words ??= splitArgs(rest);
    return words[Number(key) - 1] ?? '';
  });
  if (!used && rest !== '') return `${filled}\n\nARGUMENTS: ${rest}`;
  return filled;
}

/** Words as a shell splits plain words: whitespace separates, quotes group, `\` escapes. */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && (s[i + 1] === '"' || s[i + 1] === '\\')) cur += s[++i];
      else cur += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < s.length) {
      cur += s[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += ch;
      inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

/** A command file's template: the text after an optional front matter block. */
export function commandTemplate(file: string): string {
  const m = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/.exec(file);
  return (m ? file.slice(m[0].length) : file).trim();
}

/** A command file's description: front matter `description:`, else its first line. */
export function commandDescription(file: string): string {
  const fm = /^---\r?\n([\s\S]*?)\r?\n---/.exec(file);
  const d = fm && /^description:\s*(.+)$/m.exec(fm[1]!);
  if (d) return d[1]!.trim().replace(/^["']|["']$/g, '');
  const first = commandTemplate(file).split('\n')[0] ?? '';
  return first.length > 80 ? `${first.slice(0, 79)}…` : first;
}
