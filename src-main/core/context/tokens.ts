/**
 * Token estimates for when no real count is at hand (a resumed session, choosing what fits after
 * compaction). The rule is deliberately simple and a little pessimistic: 3.5 characters per token,
 * 4 tokens of framing per message, about 1000 tokens per image whatever its size. Real usage from the
 * API always wins over these numbers when there is one.
 */
import type {
  ContentBlockParam,
  MessageParam,
  TextBlockParam,
  Tool as ApiTool,
} from '@anthropic-ai/sdk/resources/messages';

export const CHARS_PER_TOKEN = 3.5;
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** An image is billed by its pixels, not its base64 length: count it as 3500 characters (≈1000 tokens). */
export const IMAGE_CHARS = 3500;

/** One tool result takes at most this share of the context window before it is saved to a file. */
export const RESULT_WINDOW_SHARE = 0.1;
/** ...but a window-derived cap never goes below this many characters. */
export const MIN_WINDOW_RESULT_CHARS = 4_000;

/**
 * The most characters of one tool result a run with this window sends (the tool's own budget and
 * `tools.result_budget` still apply below it). With the usual 200,000-token window the cap is 70,000
 * characters, above every budget; in a small window (a local model, a 32k one) it keeps one result
 * from filling an eighth of it, so compaction, which resends what it keeps uncached, comes far less often.
 * `share` 0 = no cap.
 */
export function resultCapForWindow(contextWindow: number, share = RESULT_WINDOW_SHARE): number {
  if (!(share > 0) || !(contextWindow > 0)) return Number.POSITIVE_INFINITY;
  return Math.max(MIN_WINDOW_RESULT_CHARS, Math.floor(contextWindow * share * CHARS_PER_TOKEN));
}

/** Characters counted as code points, so a CJK or emoji text is not counted double. */
export function countChars(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

export const charsToTokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

/** Characters one content block weighs (text, tool call name + JSON input, tool result body, images). */
export function blockChars(block: ContentBlockParam | { type: string; [k: string]: unknown }): number {
  const b = block as { type: string; [k: string]: unknown };
  switch (b.type) {
    case 'text':
      return countChars(String(b.text ?? ''));
    case 'image':
      return IMAGE_CHARS;
    case 'tool_use':
      return countChars(String(b.name ?? '')) + countChars(JSON.stringify(b.input ?? {}));
    case 'tool_result': {
      const content = b.content as string | Array<{ type: string; [k: string]: unknown }> | undefined;
      if (content === undefined) return 0;
      if (typeof content === 'string') return countChars(content);
      return content.reduce((n, c) => n + blockChars(c), 0);
    }
    case 'thinking':
      return countChars(String(b.thinking ?? ''));
    case 'document':
      // PDFs and other documents: like an image per block; their text is what the model mostly reads.
      return IMAGE_CHARS;
    default:
      return countChars(JSON.stringify(b));
  }
}

export function estimateMessageTokens(message: MessageParam): number {
  const chars =
    typeof message.content === 'string'
      ? countChars(message.content)
      : message.content.reduce((n, b) => n + blockChars(b), 0);
  return charsToTokens(chars) + MESSAGE_OVERHEAD_TOKENS;
}

export function estimateMessagesTokens(messages: readonly MessageParam[]): number {
  let total = 0;
  for (const m of messages) total += estimateMessageTokens(m);
  return total;
}

/**
 * Character counts per system block object, with the text they were taken of: the loop sends the same
 * blocks with every request of a run; a block whose text was replaced is counted again.
 */
const BLOCK_CHARS = new WeakMap<TextBlockParam, { text: string; chars: number }>();

export function estimateSystemTokens(system: readonly TextBlockParam[] | string): number {
  if (typeof system === 'string') return charsToTokens(countChars(system));
  let chars = 0;
  for (const b of system) {
    let known = BLOCK_CHARS.get(b);
    if (known?.text !== b.text) BLOCK_CHARS.set(b, (known = { text: b.text, chars: countChars(b.text) }));
    chars += known.chars;
  }
  return charsToTokens(chars);
}

/** Tool definitions are sent as JSON; their serialised length is what the model reads. */
/** Characters per tool definition object: definitions are cached and never change (see ToolRegistry). */
const TOOL_CHARS = new WeakMap<ApiTool, number>();

export function estimateToolsTokens(tools: readonly ApiTool[]): number {
  let chars = 0;
  for (const t of tools) {
    let n = TOOL_CHARS.get(t);
    if (n === undefined) TOOL_CHARS.set(t, (n = countChars(JSON.stringify(t))));
    chars += n;
  }
  return charsToTokens(chars);
}

export interface EstimatableRequest {
  system: readonly TextBlockParam[] | string;
  tools: readonly ApiTool[];
  messages: readonly MessageParam[];
}

export function estimateRequestTokens(req: EstimatableRequest): number {
  return estimateSystemTokens(req.system) + estimateToolsTokens(req.tools) + estimateMessagesTokens(req.messages);
}
