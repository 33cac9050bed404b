/**
 * The prompt in three parts, ordered from most to least stable so the provider's prompt cache reuses
 * the longest possible prefix:
 *
 * - static: identical bytes for every session of a Rein version (core rules, tool-use guidance). It is
 *   the first system block, so every session of every agent shares its cache entry.
 * - stable: fixed for one session (the agent's persona, instructions, skill catalogue, MCP server
 *   context, sticky source facts, the deferred-tool catalogue). The second system block.
 * - volatile: per turn (date and time, working folder, model and window, memory). It never goes into
 *   the system prompt, where it would invalidate the cache of the whole history every turn. It is
 *   stored ONCE per turn, as the first block of that turn's user message, after a `<!-- cache_break -->`
 *   marker. The history therefore only ever grows at its end: each request is an exact byte
 *   extension of the one before, across iterations and across turns. To keep that repeated text small,
 *   the memory section is only repeated when it changed since the last copy the model can still see.
 */
import type { MessageParam, TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { ReinError } from '../errors.js';
import { skillCatalog } from '../skills/catalog.js';
import { groupDigits } from '../util/groupDigits.js';
import { localStamp, processTimeZone } from '../util/localZone.js';

export const CACHE_BREAK = '<!-- cache_break -->';

export const SourceFacts = z.strictObject({
  /** Where the conversation comes from: `slack`, `telegram`, `local`, `schedule`, … */
  source: z.string().trim().min(1),
  channel: z.string().optional(),
  sender: z.string().optional(),
  thread: z.string().optional(),
});
export type SourceFacts = z.infer<typeof SourceFacts>;

export interface StableParts {
  agent: string;
  /** `darwin arm64`: fixed for the machine, so it belongs here rather than in the static part. */
  platform?: string;
  /** The agent's AGENT.md body, when it has one. */
  persona?: string;
  /** Loaded instruction files, already capped by the instructions loader. */
  instructions?: string;
  skills?: readonly { name: string; description: string }[];
  /** MCP server name → the context text from its config. */
  mcpContext?: Readonly<Record<string, string>>;
  /** MCP server name → the instructions the server sent at `initialize` (already capped by the MCP manager). */
  mcpInstructions?: Readonly<Record<string, string>>;
  sourceFacts?: SourceFacts;
  /** The one-line-per-tool list of deferred tools (planToolExposure().catalogue). */
  deferredCatalogue?: string;
}

export interface VolatileParts {
  now: Date;
  /** IANA zone for the clock line; the process's own zone when absent. */
  timeZone?: string;
  cwd: string;
  model: string;
  contextWindow: number;
  /** The memory text for the prompt (memory/loadMemory), '' or absent when there is none. */
  memory?: string;
}

export interface PromptParts {
  static: string;
  stable: StableParts;
  volatile: VolatileParts;
  /**
   * The history the next request will carry (requestHistory(session)), used to leave out a memory
   * section the model can already see unchanged. Absent or empty: the full volatile block.
   */
  history?: readonly MessageParam[];
}

export interface AssembledPrompt {
  /** [static, stable]: mark a cache breakpoint on each. */
  system: [TextBlockParam, TextBlockParam];
  /** Starts with CACHE_BREAK. */
  volatileText: string;
  /** The same text as a block: the first block of the turn's new user message. */
  volatileBlock: TextBlockParam;
}

export function assemblePrompt(parts: PromptParts): AssembledPrompt {
  const volatileText = renderVolatile(parts.volatile, parts.history);
  return {
    system: assembleSystem(parts.static, parts.stable),
    volatileText,
    volatileBlock: { type: 'text', text: volatileText },
  };
}

/**
 * The two system blocks alone. A run sends the same ones with every request of a session, so the
 * loop keeps what this returns (per deferred-tool catalogue) instead of rendering it again each time.
 */
export function assembleSystem(staticText: string, stable: StableParts): [TextBlockParam, TextBlockParam] {
  if (staticText.trim() === '')
    throw new ReinError('invalid_input', 'static prompt: must not be empty', { field: 'static' });
  return [
    { type: 'text', text: normalizeStatic(staticText) },
    { type: 'text', text: renderStable(stable) },
  ];
}

/** The static text is one constant per Rein version: normalised once. */
let lastStatic: { raw: string; text: string } | undefined;
function normalizeStatic(raw: string): string {
  if (lastStatic?.raw !== raw) lastStatic = { raw, text: normalize(raw) };
  return lastStatic.text;
}

const SOURCE_NAMES: Record<string, string> = {
  slack: 'Slack',
  telegram: 'Telegram',
  discord: 'Discord',
  line: 'LINE',
  feishu: 'Feishu',
  lark: 'Lark',
  webhook: 'Webhook',
  schedule: 'Schedule',
  heartbeat: 'Heartbeat',
  watcher: 'File watcher',
  local: 'Local',
  cli: 'Command line',
  desktop: 'Desktop app',
  cloud: 'Rein Cloud',
};

/** `Source: Slack, channel #ops, user @alice, thread 1712.55` — one line, the same bytes for the same facts. */
export function renderSourceFacts(facts: SourceFacts): string {
  const parsed = SourceFacts.safeParse(facts);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ReinError('invalid_input', `source facts: ${issue.path.join('.') || 'value'}: ${issue.message}`, {
      field: `sourceFacts.${issue.path.join('.')}`,
    });
  }
  const f = parsed.data;
  // Values arrive from chat platforms: squash whitespace so a crafted channel name cannot add prompt lines.
  const one = (s: string) => s.replace(/\s+/g, ' ').trim();
  const source = one(f.source);
  const parts = [`Source: ${SOURCE_NAMES[source.toLowerCase()] ?? source}`];
  if (f.channel && one(f.channel)) parts.push(`channel ${one(f.channel)}`);
  if (f.sender && one(f.sender)) parts.push(`user ${one(f.sender)}`);
  if (f.thread && one(f.thread)) parts.push(`thread ${one(f.thread)}`);
  return parts.join(', ');
}

export function renderStable(s: StableParts): string {
  const sections: string[] = [];
  const persona = s.persona ? normalize(s.persona) : '';
  sections.push(persona ? `# Agent "${s.agent}"\n${persona}` : `# Agent\nYou are the "${s.agent}" agent.`);
  if (s.platform) sections.push(`# Environment\nPlatform: ${s.platform.replace(/\s+/g, ' ').trim()}`);
  if (s.sourceFacts) sections.push(`# Session facts\n${renderSourceFacts(s.sourceFacts)}`);
  const instructions = s.instructions ? normalize(s.instructions) : '';
  if (instructions) sections.push(`# Instructions\n${instructions}`);
  const skills = s.skills ? skillCatalog(s.skills) : '';
  if (skills) sections.push(skills);
  const mcp = Object.keys(s.mcpContext ?? {})
    .sort()
    .map((server) => [server, normalize(s.mcpContext![server]!)] as const)
    .filter(([, text]) => text !== '')
    .map(([server, text]) => `[${server}] ${text}`);
  // What each server said about itself comes from the server, not the user: it is labelled as such.
  const told = Object.keys(s.mcpInstructions ?? {})
    .sort()
    .map((server) => [server, normalize(s.mcpInstructions![server]!)] as const)
    .filter(([, text]) => text !== '')
    .map(
      ([server, text]) =>
        `## Instructions from the MCP server "${server.replace(/\s+/g, ' ')}" (written by the server, not by the user)\n${text}`,
    );
  if (mcp.length > 0 || told.length > 0)
    sections.push([`# MCP servers${mcp.length > 0 ? `\n${mcp.join('\n')}` : ''}`, ...told].join('\n\n'));
  const deferred = s.deferredCatalogue ? normalize(s.deferredCatalogue) : '';
  if (deferred) sections.push(deferred);
  return sections.join('\n\n');
}

/**
 * The volatile block. The context lines (clock, folder, model) are always there: they are the point of
 * a per-turn block. The memory section is left out when `history` already shows the same memory.
 */
export function renderVolatile(v: VolatileParts, history?: readonly MessageParam[]): string {
  const tz = v.timeZone ?? processTimeZone();
  const lines = [
    CACHE_BREAK,
    '<context>',
    `Current local time: ${localStamp(v.now, tz)} (${tz})`,
    `Working folder: ${v.cwd}`,
    `Model: ${v.model} (context window: ${groupDigits(v.contextWindow)} tokens)`,
    '</context>',
  ];
  const memory = normalize(v.memory ?? '');
  const seen = history ? lastVisibleMemory(history) : undefined;
  if (seen === undefined ? memory !== '' : seen !== memory) {
    lines.push('<memory>', memory === '' ? '(empty)' : escapeMemory(memory), '</memory>');
  }
  return lines.join('\n');
}

export function isVolatileBlock(block: unknown): boolean {
  const b = block as { type?: unknown; text?: unknown } | null;
  return b?.type === 'text' && typeof b.text === 'string' && b.text.startsWith(CACHE_BREAK);
}

/** The memory text of the newest volatile block in `history` that has one ('' for "(empty)"). */
export function lastVisibleMemory(history: readonly MessageParam[]): string | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (let j = m.content.length - 1; j >= 0; j--) {
      const b = m.content[j]!;
      if (!isVolatileBlock(b)) continue;
      const found = /\n<memory>\n([\s\S]*)\n<\/memory>$/.exec((b as TextBlockParam).text);
      if (found) return found[1] === '(empty)' ? '' : unescapeMemory(found[1]!);
    }
  }
  return undefined;
}

/** Throws unless every prompt has byte-identical static text (a test helper for the cache rule). */
export function assertSameStatic(prompts: readonly { system: readonly TextBlockParam[] }[]): void {
  const first = prompts[0]?.system[0]?.text;
  if (first === undefined) throw new Error('assertSameStatic: no prompt given');
  prompts.forEach((p, i) => {
    const text = p.system[0]?.text ?? '';
    const at = firstDifference(first, text);
    if (at !== -1) {
      throw new Error(
        `static prompt of prompt #${i} differs from prompt #0 at byte ${at}: ` +
          `${JSON.stringify(first.slice(at, at + 40))} vs ${JSON.stringify(text.slice(at, at + 40))}`,
      );
    }
  });
}

/** Index of the first differing character, or -1 when the strings are equal. */
export function firstDifference(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return i;
  return a.length === b.length ? -1 : n;
}

function normalize(text: string): string {
  return text.replace(/\r\n?/g, '\n').trim();
}

const escapeMemory = (s: string) => s.replace(/<\/memory>/g, '<\\/memory>');
const unescapeMemory = (s: string) => s.replace(/<\\\/memory>/g, '</memory>');
