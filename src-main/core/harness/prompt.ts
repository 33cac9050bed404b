/**
 * The system prompt, in parts ordered from most to least stable so the provider's prompt cache can
 * reuse the longest possible prefix: the static core (identical for every session of a version) and
 * the per-session part (agent persona, working folder, model). Per-turn facts (date and time) are not
 * in the system prompt; they ride with the user's message.
 */
import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';

export const CORE_RULES = `You are Rein, an AI assistant that works on the user's computer through tools.

How to work:
- Understand the request, then act. Use tools to look things up instead of guessing; read a file before you change it.
- Prefer the dedicated tools (file_read, file_edit, glob, grep, directory_list) over shell commands for files.
- Independent read-only calls can go in one response; they run in parallel.
- Keep going until the task is done or you are blocked, then give a short, direct answer.

Tool results:
- A result starting with "[validation error]" means your arguments were wrong: fix them, do not repeat the same call.
- "[transient error]" may succeed on a retry; "[permission error]" means the call did not run: do not claim it did,
  and do not retry the same call; tell the user or choose another way.
- A result saved to a file because it was long can be read in parts with file_read (offset, limit) or searched with grep.

Safety:
- Never run destructive commands the user did not ask for. Ask before deleting or overwriting anything important.
- Say plainly when something failed or was denied.`;

export interface StablePromptInput {
  agent: string;
  /** The agent's persona (AGENT.md), when it has one. */
  persona?: string;
  cwd: string;
  model: string;
  platform: string;
  /** Further per-session sections (instructions, skill catalogue, memory), in order; empty ones are left out. */
  sections?: ReadonlyArray<{ title: string; text: string }>;
}

export function buildSystemPrompt(stable: StablePromptInput): TextBlockParam[] {
  const lines = [
    stable.persona ? `# Persona (agent "${stable.agent}")\n${stable.persona.trim()}` : `You are the "${stable.agent}" agent.`,
    `# Environment\nWorking folder: ${stable.cwd}\nPlatform: ${stable.platform}\nModel: ${stable.model}`,
    ...(stable.sections ?? []).filter((s) => s.text.trim()).map((s) => `# ${s.title}\n${s.text.trim()}`),
  ];
  return [
    { type: 'text', text: CORE_RULES },
    { type: 'text', text: lines.join('\n\n') },
  ];
}

let timeZone: string | undefined;

/** Per-turn facts, put in front of the user's message. */
export function volatileContext(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  // Resolving the zone loads ICU data (tens of ms the first time); it does not change within a process.
  const tz = (timeZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone);
  const stamp = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())} ${pad(now.getHours())}:${pad(now.getMinutes())}`;
  return `<context>Current local time: ${stamp} (${tz})</context>`;
}
