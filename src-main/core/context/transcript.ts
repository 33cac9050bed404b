/**
 * The plain-text transcript the small model reads when it summarises or extracts learnings:
 * `[role]: text` blocks, tool calls as `[tool_call: name {args}]`, results as their first 500
 * characters. Volatile context blocks (clock, memory) are left out: they say nothing about the work.
 */
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { SessionMessage } from '../sessions/types.js';
import { argsSummary, resultText } from './houseKeep.js';
import type { WeightedText } from './identifiers.js';
import { isVolatileBlock } from './promptAssembly.js';
import { groupDigits } from '../util/groupDigits.js';

export const RESULT_EXCERPT_CHARS = 500;
/** About 100K tokens: the most the small model is given at once; the middle goes first. */
export const MAX_TRANSCRIPT_CHARS = 350_000;

export function renderTranscript(messages: readonly SessionMessage[], maxChars = MAX_TRANSCRIPT_CHARS): string {
  const parts = messages.map(renderMessage).filter((p) => p !== '');
  const text = parts.join('\n\n');
  if (text.length <= maxChars) return text;
  // Keep the start (how the task began) and more of the end (where it stands now).
  const head = Math.floor(maxChars * 0.25);
  const tail = maxChars - head;
  return `${text.slice(0, head)}\n\n[… ${groupDigits(text.length - head - tail)} characters of the conversation left out here …]\n\n${text.slice(text.length - tail)}`;
}

function renderMessage(m: SessionMessage): string {
  const blocks: ContentBlockParam[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
  const lines = blocks.map(renderBlock).filter((l) => l !== '');
  return lines.length === 0 ? '' : `[${m.role}]: ${lines.join('\n')}`;
}

function renderBlock(b: ContentBlockParam): string {
  if (isVolatileBlock(b)) return '';
  switch (b.type) {
    case 'text':
      return b.text.trim();
    case 'tool_use':
      return `[tool_call: ${b.name} ${argsSummary(b.input)}]`;
    case 'tool_result': {
      const text = resultText(b);
      const excerpt = text.length > RESULT_EXCERPT_CHARS ? `${text.slice(0, RESULT_EXCERPT_CHARS)}…` : text;
      return `[tool_result${b.is_error ? ' (error)' : ''}: ${excerpt}]`;
    }
    case 'image':
      return '[image]';
    default:
      return `[${b.type}]`;
  }
}

/**
 * The texts identifiers are collected from, weighted by who wrote them: the user 3, the model's prose
 * 2, tool arguments and tool output 1 (a long run of file reads should not crowd out the host the user
 * named). Full texts, not excerpts: an identifier deep in a result still counts.
 */
export function identifierSources(messages: readonly SessionMessage[]): WeightedText[] {
  const out: WeightedText[] = [];
  for (const m of messages) {
    const blocks: ContentBlockParam[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of blocks) {
      if (isVolatileBlock(b)) continue;
      if (b.type === 'text') out.push({ text: b.text, weight: m.role === 'user' ? 3 : 2 });
      else if (b.type === 'tool_use') out.push({ text: JSON.stringify(b.input ?? {}), weight: 1 });
      else if (b.type === 'tool_result') out.push({ text: resultText(b), weight: 1 });
    }
  }
  return out;
}
