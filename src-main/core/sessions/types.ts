/**
 * The on-disk shape of one session (`<sessions-dir>/<id>.json`), validated on every load and save.
 * Messages are the Anthropic SDK's own param types; their content blocks are checked only for a `type`
 * so new block kinds from newer SDKs pass through untouched.
 */
import type { AssistantMessageParam, ContentBlockParam, UserMessageParam } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { UsageTotals } from '../api/events.js';
import { isSessionId } from './id.js';

/** A conversation turn as sent to the API (system text is never stored in the history). */
export type SessionMessage = UserMessageParam | AssistantMessageParam;
export type SessionContentBlock = ContentBlockParam;

export interface MessageMeta {
  /** Where the message came from: `local`, `slack`, `schedule`, `heartbeat`, `watcher`, `webhook`, … */
  source: string;
  /** ISO-8601 time the message was added. */
  timestamp: string;
  /** Added by Rein rather than typed by a person (mid-run injections, nudges). */
  injected?: boolean;
}

export interface SessionFile {
  version: 1;
  id: string;
  /** Agent the session belongs to (`default` or a named agent). */
  agent: string;
  title: string;
  cwd: string;
  /** Where the session started (see MessageMeta.source). */
  source: string;
  /** Channel or conversation id within `source`, for routed sessions. */
  channel?: string;
  created_at: string;
  updated_at: string;
  messages: SessionMessage[];
  /** Index-aligned with `messages`: one entry per message. */
  message_meta: MessageMeta[];
  usage: UsageTotals;
  /** The compaction checkpoint (core/context/checkpoint.ts); kept exactly as found. */
  checkpoint?: unknown;
  /** Context-discipline state: deferred tools loaded, housekeeping decisions, compaction back-off. */
  context?: unknown;
}

/** A session without its messages, for listings. */
export interface SessionSummary extends Pick<
  SessionFile,
  'id' | 'agent' | 'title' | 'cwd' | 'source' | 'channel' | 'created_at' | 'updated_at'
> {
  messageCount: number;
}

/**
 * A `<id>.json` that is not a readable session (cut short, not JSON, failing validation): listed so a
 * person sees it and its problem, never loaded. The envelope fields are what could be read from the
 * file's first lines, when anything could; `updated_at` falls back to the file's modification time.
 */
export interface DamagedSessionSummary {
  id: string;
  file: string;
  damaged: true;
  /** What is wrong, without the file's path (`not valid JSON: Unterminated string…`). */
  problem: string;
  agent?: string;
  title?: string;
  cwd?: string;
  source?: string;
  channel?: string;
  created_at?: string;
  updated_at: string;
}

export type ListedSession = SessionSummary | DamagedSessionSummary;

export const isDamaged = (s: ListedSession): s is DamagedSessionSummary =>
  (s as DamagedSessionSummary).damaged === true;

const IsoTime = z.iso.datetime({ offset: true });

// Blocks keep every field (tool inputs, images, citations…): only `type` is required.
const ContentBlockShape = z.looseObject({ type: z.string().min(1) });

// Extra keys on a message are dropped: the API rejects them, and old formats carried some (`name`).
const MessageShape = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(ContentBlockShape)]),
});

const MessageMetaShape = z.looseObject({
  source: z.string().min(1),
  timestamp: IsoTime,
  injected: z.boolean().optional(),
});

/** Files written before the JSON API went snake_case keep `usage` in camelCase (`inputTokens`…): read them as they are. */
function snakeCaseUsage(v: unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v) || !('inputTokens' in v)) return v;
  const u = v as Record<string, unknown>;
  return {
    input_tokens: u.inputTokens,
    output_tokens: u.outputTokens,
    cache_read_tokens: u.cacheReadTokens,
    cache_creation_tokens: u.cacheCreationTokens,
    cost_usd: u.costUsd,
    requests: u.requests,
  };
}

// Loose at the top level so a field written by a newer Rein survives a load/save round trip.
const SessionFileShape = z
  .looseObject({
    version: z.literal(1),
    id: z.string().refine(isSessionId, 'expected a session id (YYYY-MM-DD-<12 hex>)'),
    agent: z.string().min(1),
    title: z.string(),
    cwd: z.string(),
    source: z.string().min(1),
    channel: z.string().optional(),
    created_at: IsoTime,
    updated_at: IsoTime,
    messages: z.array(MessageShape),
    message_meta: z.array(MessageMetaShape),
    usage: z.preprocess(snakeCaseUsage, UsageTotals),
    checkpoint: z.unknown().optional(),
    context: z.unknown().optional(),
  })
  .refine((s) => s.message_meta.length === s.messages.length, {
    path: ['message_meta'],
    message: 'must have one entry per message',
  });

/**
 * The item schemas and key order of SessionFile, for checking a history one message at a time
 * (validatedHistory.ts): the same schema objects, so an item passes here exactly when it passes there.
 */
export const SessionMessageShape = MessageShape;
export const SessionMessageMetaShape = MessageMetaShape;
export const SESSION_FILE_KEYS: readonly string[] = Object.keys(SessionFileShape.shape);

/**
 * Validator for session files. Its output is typed with the SDK's message types; the loose block check
 * above is the runtime half of that promise.
 */
export const SessionFile = SessionFileShape as unknown as z.ZodType<SessionFile>;

export { emptyUsage } from '../api/events.js';
