/**
 * Custom slash commands: each `*.md` file in `<home>/commands/` (global) or
 * `<home>/agents/<agent>/commands/` (that agent's; they win over global ones of the same name) is a
 * prompt template run as `/<file name> args`. An optional front matter gives a `description` (shown in
 * `/help`) and an `argument_hint`. Names of the built-in commands cannot be taken, so a file can never
 * change what `/quit` does.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { AGENT_NAME_RE, DEFAULT_AGENT, paths } from '../config/paths.js';
import { ReinError, errorMessage } from '../errors.js';
import { splitFrontMatter } from '../skills/frontMatter.js';
import { describeIssues } from '../util/zodIssues.js';
import { NAME_PATTERN } from '../api/patterns.js';

/** Commands the CLI and the UI implement themselves. */
export const RESERVED_COMMAND_NAMES: readonly string[] = [
  'help',
  'clear',
  'new',
  'agent',
  'agents',
  'sessions',
  'quit',
  'exit',
];
export const COMMAND_NAME_RE = NAME_PATTERN;
/** A command file longer than this is refused rather than cut: half a prompt template does harm. */
export const MAX_COMMAND_CHARS = 8_000;

export type CommandScope = 'agent' | 'global';

export interface Command {
  name: string;
  /** From the front matter, else the template's first line (shortened). */
  description: string;
  argumentHint?: string;
  /** The prompt with `$ARGUMENTS`, `$1`, `$2`… placeholders. */
  template: string;
  file: string;
  scope: CommandScope;
}

export interface CommandProblem {
  file: string;
  field?: string;
  message: string;
}

export interface LoadedCommands {
  /** Sorted by name; each name once (the agent's copy over the global one). */
  commands: Command[];
  problems: CommandProblem[];
}

const hint = z.string().min(1);
const CommandFrontMatter = z
  .strictObject({
    description: z.string().trim().min(1, { message: 'must not be empty' }).optional(),
    argument_hint: hint.optional(),
    'argument-hint': hint.optional(),
  })
  .refine((fm) => fm.argument_hint === undefined || fm['argument-hint'] === undefined, {
    message: 'give argument_hint or argument-hint, not both',
    path: ['argument-hint'],
  });

export const commandPaths = {
  globalCommandsDir: (home: string) => join(home, 'commands'),
  agentCommandsDir: (home: string, agent: string) => join(paths.agentDir(home, agent), 'commands'),
};

export async function loadCommands(opts: { home: string; agent?: string }): Promise<LoadedCommands> {
  const agent = opts.agent ?? DEFAULT_AGENT;
  if (!AGENT_NAME_RE.test(agent)) {
    throw new ReinError('invalid_input', `agent name "${agent}" is not valid (${AGENT_NAME_RE.source})`, { agent });
  }
  const problems: CommandProblem[] = [];
  const agentCommands = await readCommandDir(
    resolve(commandPaths.agentCommandsDir(opts.home, agent)),
    'agent',
    problems,
  );
  const globalCommands = await readCommandDir(resolve(commandPaths.globalCommandsDir(opts.home)), 'global', problems);
  const byName = new Map<string, Command>();
  for (const c of [...agentCommands, ...globalCommands]) if (!byName.has(c.name)) byName.set(c.name, c);
  const commands = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { commands, problems };
}

async function readCommandDir(dir: string, scope: CommandScope, problems: CommandProblem[]): Promise<Command[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT')
      problems.push({ file: dir, message: code === 'ENOTDIR' ? 'is not a folder' : `cannot read: ${errorMessage(e)}` });
    return [];
  }
  const commands: Command[] = [];
  for (const fileName of names.filter((n) => n.endsWith('.md') && !n.startsWith('.')).sort()) {
    const file = join(dir, fileName);
    const result = await readCommand(file, fileName.slice(0, -'.md'.length), scope);
    if ('command' in result) commands.push(result.command);
    else if (result.problem) problems.push(result.problem);
  }
  return commands;
}

async function readCommand(
  file: string,
  name: string,
  scope: CommandScope,
): Promise<{ command: Command } | { problem?: CommandProblem }> {
  const fail = (message: string, field?: string) => ({
    problem: field === undefined ? { file, message } : { file, field, message },
  });
  if (!COMMAND_NAME_RE.test(name)) {
    return fail(`"${name}" is not a valid command name (lowercase letters, digits, "-" and "_", at most 64)`);
  }
  if (RESERVED_COMMAND_NAMES.includes(name)) {
    return fail(`/${name} is a built-in command and cannot be replaced; rename the file`);
  }
  let text: string;
  try {
    if (!(await stat(file)).isFile()) return {};
    text = await readFile(file, 'utf8');
  } catch (e) {
    return fail(`cannot read: ${errorMessage(e)}`);
  }
  if (text.length > MAX_COMMAND_CHARS) {
    return fail(`is ${text.length} characters; a command file may be at most ${MAX_COMMAND_CHARS}`);
  }

  const split = splitFrontMatter(text);
  if (split.kind === 'error')
    return fail(split.line !== undefined ? `line ${split.line}: ${split.message}` : split.message);
  let description: string | undefined;
  let argumentHint: string | undefined;
  if (split.kind === 'ok') {
    const data = split.data;
    if (data === null || typeof data !== 'object' || Array.isArray(data))
      return fail('front matter must be a YAML mapping');
    const parsed = CommandFrontMatter.safeParse(data);
    if (!parsed.success) {
      const first = describeIssues(parsed.error.issues, data)[0]!;
      return fail(first.message, first.field);
    }
    description = parsed.data.description;
    argumentHint = parsed.data.argument_hint ?? parsed.data['argument-hint'];
  }
  const template = split.body.trim();
  if (template === '') return fail('has no prompt text');

  const command: Command = { name, description: description ?? firstLineSummary(template), template, file, scope };
  if (argumentHint !== undefined) command.argumentHint = argumentHint;
  return { command };
}

function firstLineSummary(template: string): string {
  const line = template
    .split('\n')
    .find((l) => l.trim() !== '')!
    .replace(/^#+\s*/, '')
    .trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
