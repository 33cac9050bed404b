/**
 * Marks cache breakpoints on a request without touching the caller's history: after the tool list,
 * after the system prompt, on the last message (so the next request, which extends this one, reads
 * everything up to here from the cache) and, when given, on the message that was last in the previous
 * request: keeping that marker where it was makes the previous request's bytes an exact prefix of this
 * one. The API allows at most 4 breakpoints; later ones are dropped first.
 *
 * Marks are the 5-minute kind unless the caller asks for the 1-hour TTL (`prefixTtl`): a cache entry
 * lives that long after its last use, so requests further apart than five minutes (heartbeat beats every
 * 30 min) read nothing from a 5-minute entry. With `1h` every mark is the 1-hour kind — the tools', the
 * system prompt's and the messages' — so one rule holds for the whole request (and the API's "longer TTLs
 * before shorter ones" cannot be broken). A 1-hour write costs 2× base input instead of 1.25×
 * (pricing.ts); on a beat's one short message that is a fraction of a cent.
 */
import type { MessageParam, TextBlockParam, Tool as ApiTool } from '@anthropic-ai/sdk/resources/messages';

export const MAX_BREAKPOINTS = 4;
export type CacheTtl = '5m' | '1h';
const EPHEMERAL = { type: 'ephemeral' } as const;
const EPHEMERAL_1H = { type: 'ephemeral', ttl: '1h' } as const;

export interface CacheableRequest {
  tools: ApiTool[];
  system: TextBlockParam[];
  messages: MessageParam[];
  /** Message indexes to mark (default: the last message). At most two are used. */
  messageBreakpoints?: number[];
  /** TTL of every mark. Default 5m: the mark without a `ttl` (the API's default). */
  prefixTtl?: CacheTtl;
}

export function withCacheBreakpoints(req: CacheableRequest): {
  tools: ApiTool[];
  system: TextBlockParam[];
  messages: MessageParam[];
} {
  let budget = MAX_BREAKPOINTS;
  const prefix = req.prefixTtl === '1h' ? EPHEMERAL_1H : EPHEMERAL;
  const tools = req.tools.map((t, i) =>
    i === req.tools.length - 1 && budget-- > 0 ? { ...t, cache_control: prefix } : t,
  );
  const system = req.system.map((b, i) =>
    i === req.system.length - 1 && budget-- > 0 ? { ...b, cache_control: prefix } : b,
  );
  const targets = new Set(
    (req.messageBreakpoints ?? [req.messages.length - 1]).filter((i) => i >= 0 && i < req.messages.length).slice(-2),
  );
  const messages = req.messages.map((m, i) => {
    if (!targets.has(i) || budget <= 0) return m;
    const marked = markLastBlock(m, prefix);
    if (marked !== m) budget--;
    return marked;
  });
  return { tools, system, messages };
}

function markLastBlock(m: MessageParam, mark: typeof EPHEMERAL | typeof EPHEMERAL_1H): MessageParam {
  if (typeof m.content === 'string') {
    if (m.content.length === 0) return m;
    return { ...m, content: [{ type: 'text', text: m.content, cache_control: mark }] };
  }
  if (m.content.length === 0) return m;
  const blocks = [...m.content];
  const last = blocks[blocks.length - 1]!;
  // Thinking blocks cannot carry cache_control; leave such a message unmarked.
  if (last.type === 'thinking' || last.type === 'redacted_thinking') return m;
  blocks[blocks.length - 1] = { ...last, cache_control: mark } as typeof last;
  return { ...m, content: blocks } as MessageParam;
}

export function countBreakpoints(req: { tools?: unknown[]; system?: unknown; messages: unknown[] }): number {
  return (JSON.stringify(req).match(/"cache_control"/g) ?? []).length;
}
