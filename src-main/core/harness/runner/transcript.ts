/**
 * How a run writes its session's messages: user blocks merged into a trailing user message (the API
 * wants alternating roles), assistant blocks as one message, each with its meta; and the corrective
 * user messages (nudges) the stop checks send.
 */
import type { ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { ReinEvent } from '../../api/events.js';
import type { AssistantBlock } from '../../llm/client.js';
import type { RunState } from '../runState.js';

const metaOf = (state: RunState, injected: boolean) => ({
  source: state.input.source,
  timestamp: state.now().toISOString(),
  ...(injected ? { injected: true } : {}),
});

export function appendUser(state: RunState, blocks: ContentBlockParam[], injected = false): void {
  const { session } = state;
  const last = session.messages[session.messages.length - 1];
  if (last && last.role === 'user') {
    // Two user messages in a row are merged: the API wants alternating roles.
    const prev: ContentBlockParam[] =
      typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...last.content];
    last.content = [...prev, ...blocks];
    return;
  }
  session.messages.push({ role: 'user', content: blocks });
  session.message_meta.push(metaOf(state, injected));
}

export function appendAssistant(state: RunState, blocks: ContentBlockParam[], injected = false): void {
  if (blocks.length === 0) return;
  state.session.messages.push({ role: 'assistant', content: blocks });
  state.session.message_meta.push(metaOf(state, injected));
}

/** The assistant's text as one block, or nothing for an empty text. */
export const textBlocks = (text: string): ContentBlockParam[] => (text ? [{ type: 'text', text }] : []);

/** A corrective user message the model reads next, and the `loop_nudge` event that tells it. */
export function nudgeModel(
  state: RunState,
  detector: string,
  action: 'nudge' | 'force_stop',
  message: string,
): ReinEvent {
  appendUser(state, [{ type: 'text', text: message }], true);
  return state.stamp({ type: 'loop_nudge', detector, action, message });
}

export function textOf(blocks: readonly AssistantBlock[]): string {
  return blocks
    .filter((b): b is Extract<AssistantBlock, { type: 'text' }> => b.type === 'text')
    .map((b) => b.text)
    .join('');
}

export function toParam(b: AssistantBlock): ContentBlockParam {
  return b.type === 'text'
    ? { type: 'text', text: b.text }
    : { type: 'tool_use', id: b.id, name: b.name, input: b.input as Record<string, unknown> };
}
