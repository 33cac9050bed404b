/**
 * Turns `/review src/app.ts "be strict"` into the prompt of the `review` command. `$ARGUMENTS` is
 * everything after the name; `$1`, `$2`… are the words of it (quotes group words, as in a shell).
 * A template without placeholders gets the arguments appended, so what the user typed is never lost.
 */
import { COMMAND_NAME_RE, RESERVED_COMMAND_NAMES, type Command } from './loadCommands.js';

export type SlashExpansion = { prompt: string; command: Command } | { error: string } | null;

/**
 * `null` when the input is not a custom command: it does not start with `/`, the word after `/` is
 * not a command name (`/usr/bin/env is broken` is a message), or it is a built-in the caller handles.
 * `{error}` for a well-formed name that no command has.
 */
export function expandSlashCommand(input: string, commands: readonly Command[]): SlashExpansion {
  const text = input.replace(/^\s+/, '');
  const m = /^\/(\S+)/.exec(text);
  if (!m) return null;
  const name = m[1]!.toLowerCase();
  if (!COMMAND_NAME_RE.test(name) || RESERVED_COMMAND_NAMES.includes(name)) return null;

  const command = commands.find((c) => c.name === name);
  if (!command) {
    const available = commands.map((c) => `/${c.name}`).join(', ');
    return {
      error: `unknown command /${name}. ${available ? `Available: ${available}` : 'No custom commands are defined.'}`,
    };
  }
  const rest = text.slice(m[0].length).trim();
  return { prompt: fillTemplate(command.template, rest), command };
}

const PLACEHOLDER = /\$(ARGUMENTS|[1-9]\d*)/g;

export function fillTemplate(template: string, rest: string): string {
  let words: string[] | undefined;
  let used = false;
  // One pass, so a `$1` inside the user's arguments is never expanded again.
  const filled = template.replace(PLACEHOLDER, (_all, key: string) => {
    used = true;
    if (key === 'ARGUMENTS') return rest;
    words ??= splitArgs(rest);
    return words[Number(key) - 1] ?? '';
  });
  if (!used && rest !== '') return `${filled}\n\nARGUMENTS: ${rest}`;
  return filled;
}

/** Splits like a shell would for plain words: whitespace separates, quotes group, `\` escapes. */
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
    if (/\s/.test(ch)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
      continue;
    }
    inWord = true;
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '\\' && i + 1 < s.length) cur += s[++i];
    else cur += ch;
  }
  if (inWord) out.push(cur);
  return out;
}
