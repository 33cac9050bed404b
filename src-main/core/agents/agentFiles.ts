/**
 * Reads and checks each file of an agent folder on its own. Every checker returns what it could read
 * plus every problem it found, and never throws for a problem in the content (a missing, unreadable or
 * malformed file is a problem to report, not an exception), so `validate` can list everything at once.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { positionOf } from '../config/load.js';
import { configTooLarge, yamlDocToJs } from '../config/yamlLimits.js';
import { NAME_PATTERN } from '../api/patterns.js';
import { errorMessage } from '../errors.js';
import { describeIssues } from '../util/zodIssues.js';
import { AgentConfig } from './agentConfig.js';
import type { AgentProblem } from './problems.js';

/** Slash commands are pasted into the prompt whole; a longer one is almost surely a misplaced document. */
export { COMMAND_MAX_CHARS } from '../api/patterns.js';
import { COMMAND_MAX_CHARS } from '../api/patterns.js';
import { groupDigits } from '../util/groupDigits.js';
/** Names of commands and skills follow the agent-name rule: they become `/name` and folder names. */
export const ITEM_NAME_RE = NAME_PATTERN;

export type Checked<T> = { value: T; problems: AgentProblem[] };

/** `undefined` when the file does not exist; a read failure of any other kind becomes a problem. */
async function readText(file: string, problems: AgentProblem[]): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    problems.push({
      file,
      message: code === 'EISDIR' ? 'is a folder, expected a file' : `cannot read: ${errorMessage(e)}`,
    });
    return undefined;
  }
}

/** Entries of a folder, hidden ones (`.DS_Store`, editor swap files) left out; `[]` when it does not exist. */
async function listVisible(dir: string, problems: AgentProblem[]): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((n) => !n.startsWith('.')).sort();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    problems.push({
      file: dir,
      message: code === 'ENOTDIR' ? 'is a file, expected a folder' : `cannot read: ${errorMessage(e)}`,
    });
    return [];
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** AGENT.md: required and not blank. */
export async function checkPersona(file: string): Promise<Checked<string | undefined>> {
  const problems: AgentProblem[] = [];
  const text = await readText(file, problems);
  if (text === undefined) {
    if (problems.length === 0)
      problems.push({ file, message: 'missing: every agent needs an AGENT.md holding its persona' });
    return { value: undefined, problems };
  }
  if (text.trim() === '') {
    problems.push({ file, message: "empty: write the agent's persona (who it is, how it works) in this file" });
    return { value: undefined, problems };
  }
  return { value: text, problems };
}

/**
 * Parses YAML text and validates it with a schema; problems carry line, column and field. `ifEmpty` is
 * the value an empty or comments-only file stands for.
 */
export function parseYamlWith<S extends z.ZodType>(
  file: string,
  text: string,
  schema: S,
  ifEmpty: unknown,
): { ok: true; value: z.output<S> } | { ok: false; problems: AgentProblem[] } {
  const tooLarge = configTooLarge(text);
  if (tooLarge) return { ok: false, problems: [{ file, message: tooLarge }] };
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((err) => {
        const { line, col } = lineCounter.linePos(err.pos[0]);
        return { file, line, column: col, message: `YAML syntax error: ${err.message.split('\n', 1)[0]}` };
      }),
    };
  }
  // Aliases are limited: a few lines of them can stand for billions of values.
  const converted = yamlDocToJs(doc);
  if (!converted.ok) return { ok: false, problems: [{ file, message: converted.message }] };
  const js = converted.value;
  const raw = js === null || js === undefined ? ifEmpty : js;
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, value: result.data };
  const problems = describeIssues(result.error.issues, raw).map((p) => ({
    file,
    ...positionOf(doc, p.path, lineCounter),
    field: p.field,
    message: p.message,
  }));
  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  return { ok: false, problems };
}

/** Validates the text of an agent's config.yaml. Pure, so an editor can check a buffer before saving. */
export function parseAgentConfigText(file: string, text: string) {
  return parseYamlWith(file, text, AgentConfig, {});
}

/** config.yaml: optional; absent or empty means "inherit everything". `value` is `{}` when invalid. */
export async function checkAgentConfig(file: string): Promise<Checked<{ config: AgentConfig; exists: boolean }>> {
  const problems: AgentProblem[] = [];
  const text = await readText(file, problems);
  if (text === undefined) return { value: { config: {}, exists: problems.length > 0 }, problems };
  const parsed = parseAgentConfigText(file, text);
  if (!parsed.ok) return { value: { config: {}, exists: true }, problems: parsed.problems };
  return { value: { config: parsed.value, exists: true }, problems };
}

const AttachedSkills = z.array(
  z.string().regex(ITEM_NAME_RE, { message: 'not a skill name (lowercase letters, digits, - and _, at most 64)' }),
);

/** `_attached.yaml`: an optional YAML list of global skill names; duplicates are harmless and dropped. */
export async function checkAttachedSkills(file: string): Promise<Checked<string[]>> {
  const problems: AgentProblem[] = [];
  const text = await readText(file, problems);
  if (text === undefined) return { value: [], problems };
  const parsed = parseYamlWith(file, text, AttachedSkills, []);
  if (!parsed.ok) return { value: [], problems: parsed.problems };
  return { value: [...new Set(parsed.value)], problems };
}

/** `commands/*.md`: each a `.md` file with a usable name, not empty, at most COMMAND_MAX_CHARS characters. */
export async function checkCommands(dir: string): Promise<Checked<string[]>> {
  const problems: AgentProblem[] = [];
  const names: string[] = [];
  for (const entry of await listVisible(dir, problems)) {
    const file = join(dir, entry);
    if (!entry.endsWith('.md') || (await isDirectory(file))) {
      problems.push({ file, message: 'not a command: commands are files named commands/<name>.md' });
      continue;
    }
    const name = entry.slice(0, -'.md'.length);
    if (!ITEM_NAME_RE.test(name)) {
      problems.push({
        file,
        message: `"${name}" is not a usable command name (lowercase letters, digits, - and _, at most 64)`,
      });
    }
    const text = await readText(file, problems);
    if (text === undefined) continue;
    // Characters as a person counts them (code points), not UTF-16 units.
    const chars = Array.from(text).length;
    if (text.trim() === '')
      problems.push({ file, message: 'empty: a command file holds the prompt the command sends' });
    else if (chars > COMMAND_MAX_CHARS) {
      problems.push({
        file,
        message: `${groupDigits(chars)} characters; a command may have at most ${groupDigits(COMMAND_MAX_CHARS)}`,
      });
    } else if (ITEM_NAME_RE.test(name)) names.push(name);
  }
  return { value: names, problems };
}

/**
 * `skills/<skill>/SKILL.md`: here only that each skill folder has a SKILL.md that opens with a front
 * matter block; the front matter's fields are the skills loader's to check.
 */
export async function checkAgentSkills(dir: string): Promise<Checked<string[]>> {
  const problems: AgentProblem[] = [];
  const names: string[] = [];
  for (const entry of await listVisible(dir, problems)) {
    const folder = join(dir, entry);
    if (!(await isDirectory(folder))) {
      problems.push({ file: folder, message: 'not a skill: skills are folders, skills/<name>/SKILL.md' });
      continue;
    }
    const file = join(folder, 'SKILL.md');
    const before = problems.length;
    const text = await readText(file, problems);
    if (text === undefined) {
      if (problems.length === before) problems.push({ file, message: 'missing: a skill folder needs a SKILL.md' });
      continue;
    }
    if (!hasFrontMatter(text)) {
      problems.push({
        file,
        message: 'no front matter: SKILL.md must start with a --- block holding at least name and description',
      });
      continue;
    }
    if (!ITEM_NAME_RE.test(entry)) {
      problems.push({
        file: folder,
        message: `"${entry}" is not a usable skill folder name (lowercase letters, digits, - and _, at most 64)`,
      });
      continue;
    }
    names.push(entry);
  }
  return { value: names, problems };
}

/** A `---` line first (a BOM allowed before it) and a closing `---` line later. */
function hasFrontMatter(text: string): boolean {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') return false;
  return lines.slice(1).some((l) => l.trimEnd() === '---');
}
