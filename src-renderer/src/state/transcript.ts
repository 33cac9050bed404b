/**
 * A saved session as chat items, for reading an old conversation or continuing it. Messages are in
 * the Messages API's own shape: user turns carry text and tool results, assistant turns text and
 * tool calls; a tool result is folded into the card of the call it answers, and each card gets the
 * summary line the live chat showed (core/api/toolSummary.ts).
 */
import { savedCallSummary, type SessionRecord } from '../../../src-main/core/api/index.js';
import type { ChatItem } from './chat.js';

type Block = { type: string; [k: string]: unknown };

const PREVIEW_CHARS = 2_000;
/**
 * Per-turn scaffolding the harness adds to user turns, not something the person wrote: the volatile
 * block (core/context/promptAssembly.ts, starting with its cache-break marker: clock, folder, model,
 * memory) and the older bare `<context>` block. Tests keep these in step with the core.
 */
export const VOLATILE_MARKER = '<!-- cache_break -->';
const CONTEXT_BLOCK = /^\s*<context>[\s\S]*?<\/context>\s*/;
/** How the harness labels a message typed while a run was going (core/harness/inbox.ts). */
export const INJECTED_PREFIX = '[New message from user]';

/** What the person wrote in a user text block, or '' for scaffolding. */
export function personText(text: string): { text: string; injected: boolean } {
  if (text.startsWith(VOLATILE_MARKER)) return { text: '', injected: false };
  const bare = text.replace(CONTEXT_BLOCK, '');
  if (bare.startsWith(INJECTED_PREFIX)) return { text: bare.slice(INJECTED_PREFIX.length).trim(), injected: true };
  return { text: bare, injected: false };
}

export function sessionItems(session: SessionRecord): ChatItem[] {
  const items: ChatItem[] = [];
  const toolAt = new Map<string, number>();
  let n = 0;
  const id = (p: string) => `${p}h${++n}`;

  session.messages.forEach((message, index) => {
    const meta = session.message_meta?.[index];
    const blocks: Block[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as Block[]);
    for (const block of blocks) {
      if (block.type === 'text' && typeof block.text === 'string') {
        if (message.role === 'user') {
          const said = personText(block.text);
          if (!said.text.trim()) continue;
          items.push({
            kind: 'user',
            id: id('u'),
            text: said.text,
            ...(said.injected || meta?.injected ? { injected: true } : {}),
          });
        } else if (block.text.trim()) {
          items.push({ kind: 'assistant', id: id('a'), text: block.text, streaming: false });
        }
      } else if (block.type === 'tool_use' && message.role === 'assistant') {
        const call_id = typeof block.id === 'string' ? block.id : id('t');
        const tool = typeof block.name === 'string' ? block.name : 'tool';
        toolAt.set(call_id, items.length);
        // The line the live card had (`$ touch approved.txt`), made from the saved name and input.
        items.push({
          kind: 'tool',
          id: call_id,
          tool,
          input: block.input,
          summary: savedCallSummary(tool, block.input),
          status: 'ok',
        });
      } else if (block.type === 'tool_result') {
        const at = typeof block.tool_use_id === 'string' ? toolAt.get(block.tool_use_id) : undefined;
        if (at === undefined) continue;
        const card = items[at] as Extract<ChatItem, { kind: 'tool' }>;
        items[at] = {
          ...card,
          status: block.is_error === true ? 'error' : 'ok',
          preview: resultText(block.content).slice(0, PREVIEW_CHARS),
        };
      }
    }
  });
  return items;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b: Block) =>
        b && b.type === 'text' && typeof b.text === 'string'
          ? b.text
          : b && typeof b.type === 'string'
            ? `[${b.type}]`
            : '',
      )
      .join('\n');
  }
  return '';
}
