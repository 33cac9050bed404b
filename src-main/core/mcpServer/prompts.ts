/**
 * The prompts `rein mcp serve` offers: the serving agent's slash commands and skills, so a client such
 * as Claude Desktop or Claude Code can use them as its own prompts (Claude Code: `/mcp__rein__<name>`).
 *
 * - A **command** (`<home>/commands/<name>.md`, `<home>/agents/<agent>/commands/<name>.md`; see
 *   core/commands) is the prompt `<name>` with one optional argument, `arguments`: what a person types
 *   after `/<name>`. It is expanded exactly as the CLI expands `/name args` (`fillTemplate`: `$ARGUMENTS`,
 *   `$1`, `$2`…, or appended when the template has no placeholder).
 * - A **skill** the agent may use (core/skills) is the prompt `skill-<name>` with an optional
 *   `arguments` (details of the request), expanded as `use_skill` returns it: the skill's instructions
 *   with absolute paths, and the details under "Request details". Skills are offered only when
 *   `use_skill` is on the agent's tool lists. A command of the same name wins.
 *
 * Getting a prompt only returns text for the client's model: nothing runs here, and the tools that
 * text may lead to are decided call by call as always.
 */
import { ErrorCode, McpError, type GetPromptResult, type Prompt } from '@modelcontextprotocol/sdk/types.js';
import { fillTemplate, loadCommands, type Command } from '../commands/index.js';
import type { Runtime } from '../runtime/runtime.js';
import { rewriteSkillPaths } from '../skills/rewritePaths.js';
import type { Skill } from '../skills/types.js';
import { exposedTools } from './toolList.js';

export const SKILL_PROMPT_PREFIX = 'skill-';
export const PROMPT_ARGUMENT = 'arguments';

type Entry = { kind: 'command'; command: Command } | { kind: 'skill'; skill: Skill };

export interface PromptDeps {
  home: string;
  runtime: () => Promise<Runtime>;
  warn: (message: string) => void;
}

export class ReinPrompts {
  readonly #deps: PromptDeps;
  /** Problems already told (each once per connection, not at every list). */
  readonly #told = new Set<string>();

  constructor(deps: PromptDeps) {
    this.#deps = deps;
  }

  async list(): Promise<Prompt[]> {
    return [...(await this.#entries()).entries()].map(([name, e]) => describe(name, e));
  }

  async get(name: string, args: Record<string, string> | undefined): Promise<GetPromptResult> {
    const entry = (await this.#entries()).get(name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `unknown prompt: ${name}`, { name });
    const unknown = Object.keys(args ?? {}).filter((k) => k !== PROMPT_ARGUMENT);
    if (unknown.length > 0)
      throw new McpError(
        ErrorCode.InvalidParams,
        `prompt ${name} has no argument ${unknown.map((k) => JSON.stringify(k)).join(', ')}; its only argument is "${PROMPT_ARGUMENT}"`,
      );
    const rest = (args?.[PROMPT_ARGUMENT] ?? '').trim();
    if (entry.kind === 'command') {
      return {
        description: entry.command.description,
        messages: [{ role: 'user', content: { type: 'text', text: fillTemplate(entry.command.template, rest) } }],
      };
    }
    const skill = entry.skill;
    const body = await rewriteSkillPaths(skill.body, skill.dir);
    const parts = [`# Skill: ${skill.name}`, `Skill folder: ${skill.dir}`, '', body];
    if (rest) parts.push('', '## Request details', rest);
    return {
      description: skill.description,
      messages: [{ role: 'user', content: { type: 'text', text: parts.join('\n') } }],
    };
  }

  /**
   * Completion of a prompt's `arguments`: the choices its argument hint spells out (`staging|production`
   * in `argument_hint: "<service> [staging|production]"`), for the word being typed.
   */
  async complete(name: string, argument: string, value: string): Promise<string[]> {
    const entry = (await this.#entries()).get(name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `unknown prompt: ${name}`, { name });
    if (argument !== PROMPT_ARGUMENT)
      throw new McpError(
        ErrorCode.InvalidParams,
        `prompt ${name} has no argument "${argument}"; its only argument is "${PROMPT_ARGUMENT}"`,
      );
    const hint = entry.kind === 'command' ? entry.command.argumentHint : undefined;
    if (!hint) return [];
    const cut = value.search(/\S*$/);
    const head = value.slice(0, cut);
    const word = value.slice(cut);
    return hintChoices(hint)
      .filter((c) => c.startsWith(word))
      .map((c) => head + c);
  }

  /** Prompt name → what it expands, in name order: commands, then the skills whose names are free. */
  async #entries(): Promise<Map<string, Entry>> {
    const rt = await this.#deps.runtime();
    const loaded = await loadCommands({ home: this.#deps.home, agent: rt.agent });
    for (const p of loaded.problems) {
      const line = `command ${p.file}${p.field ? ` (${p.field})` : ''}: ${p.message}`;
      if (!this.#told.has(line)) {
        this.#told.add(line);
        this.#deps.warn(line);
      }
    }
    const entries = new Map<string, Entry>();
    for (const command of loaded.commands) entries.set(command.name, { kind: 'command', command });
    if (exposedTools(rt.registry).some((t) => t.name === 'use_skill')) {
      for (const skill of rt.skills) {
        const name = `${SKILL_PROMPT_PREFIX}${skill.name}`;
        if (!entries.has(name)) entries.set(name, { kind: 'skill', skill });
      }
    }
    return entries;
  }
}

function describe(name: string, e: Entry): Prompt {
  if (e.kind === 'command') {
    const hint = e.command.argumentHint;
    return {
      name,
      title: `/${e.command.name}`,
      description: e.command.description,
      arguments: [
        {
          name: PROMPT_ARGUMENT,
          description: hint ? `What follows /${e.command.name}: ${hint}` : `What follows /${e.command.name} (optional)`,
          required: false,
        },
      ],
    };
  }
  return {
    name,
    title: `Skill: ${e.skill.name}`,
    description: e.skill.description,
    arguments: [
      {
        name: PROMPT_ARGUMENT,
        description: 'Details of the request the skill should work with (a folder, a date, a name); optional',
        required: false,
      },
    ],
  };
}

/** `a|b|c` groups of an argument hint, each alternative once, in order. */
export function hintChoices(hint: string): string[] {
  const out = new Set<string>();
  for (const m of hint.matchAll(/[^\s|[\]<>(){}]+(?:\|[^\s|[\]<>(){}]+)+/g))
    for (const c of m[0].split('|')) out.add(c);
  return [...out];
}
