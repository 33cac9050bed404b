/**
 * A compaction checkpoint: what replaces the older part of a session's history in requests. The
 * session file keeps every message (so `rein sessions show` shows everything); the checkpoint only
 * says where the retained part starts and holds the summary of what came before it.
 *
 * A request built from a checkpoint is: the session's first user message with the summary appended
 * as a clearly marked block (one user message, so roles still alternate), then every message from
 * `firstKeptIndex` on. `firstKeptIndex` always points at an assistant message, so no tool_use /
 * tool_result pair is ever split.
 */
import { createHash } from 'node:crypto';
import type { ContentBlockParam, TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { sortKeys } from '../tools/registry.js';
import type { SessionMessage } from '../sessions/types.js';
import { isVolatileBlock } from './promptAssembly.js';
import { groupDigits } from '../util/groupDigits.js';

export const CompactionCheckpointShape = z.strictObject({
  version: z.literal(1),
  summary: z.string().min(1),
  /** Index in the session's messages of the first message kept after the summary (an assistant message). */
  firstKeptIndex: z.number().int().min(1),
  /** Hash of that message: finds it again if a repair of the transcript shifted the indexes. */
  anchor: z.string().min(8),
  createdAt: z.iso.datetime({ offset: true }),
  tokensBefore: z.number().int().nonnegative(),
  tokensAfter: z.number().int().nonnegative(),
  reason: z.enum(['proactive', 'reactive']),
  /** False when the summary could not be written and the older turns were dropped with a note. */
  summarised: z.boolean(),
  /** Text blocks of the first message longer than this are cut to head + tail in requests. */
  firstMessageMaxChars: z.number().int().positive().optional(),
});
export type CompactionCheckpoint = z.infer<typeof CompactionCheckpointShape>;

export const SUMMARY_OPEN = '<conversation_summary>';
export const SUMMARY_CLOSE = '</conversation_summary>';

/** The checkpoint stored in a session, or undefined when there is none or it is unusable. */
export function readCheckpoint(raw: unknown): CompactionCheckpoint | undefined {
  if (raw === undefined || raw === null) return undefined;
  const parsed = CompactionCheckpointShape.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

export function messageAnchor(m: SessionMessage): string {
  return createHash('sha256')
    .update(JSON.stringify(sortKeys(m)))
    .digest('hex')
    .slice(0, 16);
}

/**
 * Where the retained part starts in `messages` for this checkpoint: its index when the anchor still
 * matches there, else the nearest assistant message with the anchor, else undefined (the checkpoint
 * no longer fits this transcript and must be ignored).
 */
export function locateKept(messages: readonly SessionMessage[], cp: CompactionCheckpoint): number | undefined {
  const at = cp.firstKeptIndex;
  const ok = (i: number) =>
    i >= 1 && i < messages.length && messages[i]!.role === 'assistant' && messageAnchor(messages[i]!) === cp.anchor;
  if (ok(at)) return at;
  for (let d = 1; d < messages.length; d++) {
    if (ok(at - d)) return at - d;
    if (ok(at + d)) return at + d;
  }
  return undefined;
}

/**
 * What requests carry of a session: its full history without a (usable) checkpoint, else the first
 * message with the summary, then the messages from the checkpoint on. Never modifies the session.
 */
export function requestHistory(session: {
  messages: readonly SessionMessage[];
  checkpoint?: unknown;
}): SessionMessage[] {
  const messages = session.messages;
  const cp = readCheckpoint(session.checkpoint);
  if (!cp || messages.length === 0 || messages[0]!.role !== 'user') return [...messages];
  const kept = locateKept(messages, cp);
  if (kept === undefined) return [...messages];
  return [withSummary(messages[0]!, cp.summary, cp.firstMessageMaxChars), ...messages.slice(kept)];
}

/** The first user message with the summary block appended (and long texts cut when asked). */
export function withSummary(first: SessionMessage, summary: string, maxChars?: number): SessionMessage {
  const blocks: ContentBlockParam[] =
    typeof first.content === 'string' ? [{ type: 'text', text: first.content }] : [...first.content];
  const cut =
    maxChars === undefined
      ? blocks
      : blocks.map((b) =>
          b.type === 'text' && !isVolatileBlock(b) && b.text.length > maxChars ? cutText(b, maxChars) : b,
        );
  return { role: 'user', content: [...cut, summaryBlock(summary)] };
}

// No counts or dates in the framing: the block must come out byte-identical from one request to the next.
export function summaryBlock(summary: string): TextBlockParam {
  return {
    type: 'text',
    text: [
      SUMMARY_OPEN,
      'The conversation between this first message and the messages below was compacted to save context; this is its summary. ' +
        'The conversation continues after it. (The full transcript is kept in the session file.)',
      '',
      summary.trim(),
      SUMMARY_CLOSE,
    ].join('\n'),
  };
}

function cutText(b: TextBlockParam, max: number): TextBlockParam {
  const head = Math.floor(max * 0.6);
  const tail = max - head;
  const omitted = b.text.length - head - tail;
  return {
    ...b,
    text: `${b.text.slice(0, head)}\n[… ${groupDigits(omitted)} characters omitted to save context …]\n${b.text.slice(b.text.length - tail)}`,
  };
}
