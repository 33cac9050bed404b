/**
 * Marks cache breakpoints on a request without touching the caller's history: after the tool list,
 * after the system prompt, on the last message (so the next request, which extends this one, reads
 * everything up to here from the cache) and, when given, on the message that was last in the previous
 * request: keeping that marker where it was makes the previous request's bytes an exact prefix of this
 * one. The API allows at most 4 breakpoints; later ones are dropped first.
 */
import type { MessageParam, TextBlockParam, Tool as ApiTool } from '@anthropic-ai/sdk/resources/messages';

export const MAX_BREAKPOINTS = 4;
const EPHEMERAL = { type: 'ephemeral' } as const;

export interface CacheableRequest {
  tools: ApiTool[];
  system: TextBlockParam[];
  messages: MessageParam[];
  /** Message indexes to mark (default: the last message). At most two are used. */
  messageBreakpoints?: number[];
}

export function withCacheBreakpoints(req: CacheableRequest): { tools: ApiTool[]; system: TextBlockParam[]; messages: MessageParam[] } {
  let budget = MAX_BREAKPOINTS;
  const tools = req.tools.map((t, i) => (i === req.tools.length - 1 && budget-- > 0 ? { ...t, cache_control: EPHEMERAL } : t));
  const system = req.system.map((b, i) => (i === req.system.length - 1 && budget-- > 0 ? { ...b, cache_control: EPHEMERAL } : b));
  const targets = new Set(
    (req.messageBreakpoints ?? [req.messages.length - 1]).filter((i) => i >= 0 && i < req.messages.length).slice(-2),
  );
  const messages = req.messages.map((m, i) => {
    if (!targets.has(i) || budget <= 0) return m;
    const marked = markLastBlock(m);
    if (marked !== m) budget--;
    return marked;
  });
  return { tools, system, messages };
}

function markLastBlock(m: MessageParam): MessageParam {
  if (typeof m.content === 'string') {
    if (m.content.length === 0) return m;
    return { ...m, content: [{ type: 'text', text: m.content, cache_control: EPHEMERAL }] };
  }
  if (m.content.length === 0) return m;
  const blocks = [...m.content];
  const last = blocks[blocks.length - 1]!;
  // Thinking blocks cannot carry cache_control; leave such a message unmarked.
  if (last.type === 'thinking' || last.type === 'redacted_thinking') return m;
  blocks[blocks.length - 1] = { ...last, cache_control: EPHEMERAL } as typeof last;
  return { ...m, content: blocks } as MessageParam;
}

export function countBreakpoints(req: { tools?: unknown[]; system?: unknown; messages: unknown[] }): number {
  return (JSON.stringify(req).match(/"cache_control"/g) ?? []).length;
}
