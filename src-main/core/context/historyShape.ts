/**
 * The Messages API's rules for a history, as a checker: tests (and debug assertions) run every
 * history Rein builds through it. Rules: starts with a user message; roles alternate; no empty
 * message or blank text block; each tool_use id is unique and answered by a tool_result in the very
 * next (user) message, whose tool results come before anything else in it; each tool_result answers a
 * tool_use of the message just before.
 */
import type { ContentBlockParam, MessageParam } from '@anthropic-ai/sdk/resources/messages';

/** Problems found, as readable sentences; empty when the history is valid. */
export function historyShapeProblems(messages: readonly MessageParam[]): string[] {
  const problems: string[] = [];
  if (messages.length === 0) return ['the history is empty'];
  if (messages[0]!.role !== 'user') problems.push('message 0: the history must start with a user message');
  const seenUses = new Set<string>();
  messages.forEach((m, i) => {
    const prev = messages[i - 1];
    if (prev && prev.role === m.role) problems.push(`message ${i}: two ${m.role} messages in a row`);
    const blocks: ContentBlockParam[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (blocks.length === 0) problems.push(`message ${i}: empty content`);
    blocks.forEach((b, j) => {
      if (b.type === 'text' && b.text.trim() === '') problems.push(`message ${i} block ${j}: blank text`);
    });

    if (m.role === 'assistant') {
      const next = messages[i + 1];
      const answered = new Set<string>();
      if (next && next.role === 'user' && typeof next.content !== 'string') {
        for (const b of next.content) if (b.type === 'tool_result') answered.add(b.tool_use_id);
      }
      for (const b of blocks) {
        if (b.type === 'tool_result') problems.push(`message ${i}: tool_result in an assistant message`);
        if (b.type !== 'tool_use') continue;
        if (seenUses.has(b.id)) problems.push(`message ${i}: tool_use id ${b.id} used twice`);
        seenUses.add(b.id);
        if (!answered.has(b.id)) problems.push(`message ${i}: tool_use ${b.id} has no tool_result in the next message`);
      }
    } else {
      const uses = new Set<string>();
      if (prev && prev.role === 'assistant' && typeof prev.content !== 'string') {
        for (const b of prev.content) if (b.type === 'tool_use') uses.add(b.id);
      }
      const answeredHere = new Set<string>();
      let sawOther = false;
      for (const b of blocks) {
        if (b.type === 'tool_use') problems.push(`message ${i}: tool_use in a user message`);
        if (b.type !== 'tool_result') {
          sawOther = true;
          continue;
        }
        if (sawOther) problems.push(`message ${i}: tool_result ${b.tool_use_id} comes after other content`);
        if (!uses.has(b.tool_use_id))
          problems.push(`message ${i}: tool_result ${b.tool_use_id} answers no tool_use of the previous message`);
        if (answeredHere.has(b.tool_use_id)) problems.push(`message ${i}: tool_result ${b.tool_use_id} given twice`);
        answeredHere.add(b.tool_use_id);
        if (b.content !== undefined && typeof b.content !== 'string' && b.content.length === 0) {
          problems.push(`message ${i}: tool_result ${b.tool_use_id} has empty content`);
        }
      }
    }
  });
  return problems;
}
