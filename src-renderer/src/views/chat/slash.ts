/**
 * Slash commands in the composer. The daemon expands `/name args` into the agent's command template
 * (core/commands), for this page, Slack and scripts alike, so the page sends what was typed. The page
 * only offers the agent's commands while the first word is typed (the list comes with the agent from
 * `getAgent`), and keeps three of its own: `/new`, `/clear` and `/help`, names the daemon never
 * expands (core/commands RESERVED_COMMAND_NAMES; a test keeps the two in step).
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

/** The page's own command in `typed`, if it is one. */
export function pageCommand(typed: string): 'new' | 'clear' | 'help' | undefined {
  const slash = parseSlash(typed);
  return slash && slash.name in PAGE_COMMANDS ? (slash.name as 'new' | 'clear' | 'help') : undefined;
}
