/**
 * Per-iteration housekeeping: what the next request carries of old tool results and images. The
 * session keeps the full transcript; this only builds the request's copy.
 *
 * - Images: only the 5 newest image-bearing messages keep their images; older ones get a short note.
 * - Tool results, by age of the message that carries them: the newest 3 in full, the next 7 cut to
 *   head and tail (300 characters each), older ones a one-line record (tool, arguments, size, ok or
 *   error). A reactive compaction may clip results harder (100 characters).
 *   (With the default slack, "the newest 3" is "at least the newest 3": see below.)
 *
 * Cache rule: every change to an old message invalidates the provider's cache from that message on.
 * So every decision is recorded in `state` by tool_use_id and is one-way (full → trimmed → clipped →
 * meta, never back), rendering is a pure function of (content, tier), and demotions are batched
 * (`slack`): nothing changes until `keepFull + slack` results are full, then all due demotions happen
 * at once, so the cached prefix breaks once per batch instead of every iteration. A decision can never
 * be literally final (a result ages from full to trimmed to metadata), but it only ever moves one way
 * and only at those batch points.
 *
 * Pressure: the loop passes the request's budget, and then nothing is demoted at all until the
 * request as it stands would fill half the window. A session far from its window sends every request
 * as a pure append of the one before (the provider's cache reads all of it); only near the window do
 * old results get rewritten, in the batches above.
 */
import { createHash } from 'node:crypto';
import type {
  ContentBlockParam,
  ImageBlockParam,
  TextBlockParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { sortKeys } from '../tools/registry.js';
import { estimateMessageTokens } from './tokens.js';
import type { SessionMessage } from '../sessions/types.js';
import { groupDigits } from '../util/groupDigits.js';

export type ResultTier = 'full' | 'trimmed' | 'clipped' | 'meta';
export type CompressedTier = Exclude<ResultTier, 'full'>;
const TIER_ORDER: Record<ResultTier, number> = { full: 0, trimmed: 1, clipped: 2, meta: 3 };

export interface HouseKeepState {
  /** tool_use_id → tier applied (absent = full). Only ever moves toward `meta`. */
  results: Record<string, CompressedTier>;
  /** Keys of messages whose images were replaced by a note (see imageKey). */
  strippedImages: string[];
}

export const HouseKeepStateShape = z.strictObject({
  results: z.record(z.string(), z.enum(['trimmed', 'clipped', 'meta'])),
  strippedImages: z.array(z.string()),
});

export const newHouseKeepState = (): HouseKeepState => ({ results: {}, strippedImages: [] });

export interface HouseKeepOptions {
  /** Image-bearing messages that keep their images (default 5). */
  keepImages?: number;
  /** Newest tool-result messages sent in full (default 3). */
  keepFull?: number;
  /** Messages after those cut to head + tail (default 7); older ones become a metadata line. */
  keepTrimmed?: number;
  /** Characters kept at each end of a trimmed result (default 300). */
  headTailChars?: number;
  /** Characters a clipped result keeps (default 100). */
  clipChars?: number;
  /**
   * Extra full results tolerated before demoting, so demotions come in batches (default 3; 0 = exact
   * tiers on every call). Each demotion round rewrites everything after the oldest changed message,
   * so with 0 the newest results are re-sent uncached on every iteration: in a simulated 200-step
   * session this left 13–29% of input tokens cached, against 69–78% with 3.
   */
  slack?: number;
  /**
   * The request's budget. With it, nothing is demoted until the request as it stands would carry
   * `pressureRatio` of the window: far from the window every request is a pure append of the one
   * before, and under pressure all due demotions happen in one large step.
   */
  budget?: { contextWindow: number; fixedTokens: number };
  /** Share of the window at which old results are rewritten (default 0.5; needs `budget`). */
  pressureRatio?: number;
}

export const HOUSEKEEP_DEFAULTS = {
  keepImages: 5,
  keepFull: 3,
  keepTrimmed: 7,
  headTailChars: 300,
  clipChars: 100,
  slack: 3,
  pressureRatio: 0.5,
} as const;

export const IMAGE_NOTE = '[image removed to save context]';

interface ToolCallInfo {
  name: string;
  input: unknown;
}

/**
 * Returns the history to send. `messages` is never modified; unchanged messages are shared. `state`
 * records the decisions made (and forgets ids no longer in the history: compaction only moves forward).
 */
export function houseKeep(
  messages: readonly SessionMessage[],
  state: HouseKeepState,
  opts: HouseKeepOptions = {},
): SessionMessage[] {
  const o = { ...HOUSEKEEP_DEFAULTS, ...opts };
  const calls = toolCalls(messages);

  // Tool results: one tier per message (the tiers count messages, not individual results).
  const resultMessages: number[] = [];
  messages.forEach((m, i) => {
    if (resultIds(m).length > 0) resultMessages.push(i);
  });
  const recorded = (i: number): ResultTier => maxTier(resultIds(messages[i]!).map((id) => state.results[id] ?? 'full'));
  const fullCount = resultMessages.filter((i) => recorded(i) === 'full').length;
  const keepFull = o.keepFull;
  const demote =
    fullCount > keepFull + o.slack &&
    (!opts.budget || underPressure(messages, resultMessages, recorded, calls, o, opts.budget));
  const tierOf = new Map<number, ResultTier>();
  resultMessages.forEach((i, k) => {
    const rank = resultMessages.length - 1 - k; // 0 = newest
    const target: ResultTier = rank < keepFull ? 'full' : rank < keepFull + o.keepTrimmed ? 'trimmed' : 'meta';
    const tier = demote ? maxTier([recorded(i), target]) : recorded(i);
    tierOf.set(i, tier);
  });

  // Images: one decision per image-bearing message.
  const stripped = new Set(state.strippedImages);
  const imageMessages: number[] = [];
  messages.forEach((m, i) => {
    if (hasImage(m)) imageMessages.push(i);
  });
  const stripImages = new Set<number>();
  imageMessages.forEach((i, k) => {
    const key = imageKey(messages[i]!);
    if (stripped.has(key) || imageMessages.length - 1 - k >= o.keepImages) {
      stripImages.add(i);
      stripped.add(key);
    }
  });

  // Record, keeping only what the current history still contains.
  const results: Record<string, CompressedTier> = {};
  for (const [i, tier] of tierOf) {
    if (tier === 'full') continue;
    for (const id of resultIds(messages[i]!)) results[id] = tier;
  }
  state.results = results;
  const presentKeys = new Set(imageMessages.map((i) => imageKey(messages[i]!)));
  state.strippedImages = [...stripped].filter((k) => presentKeys.has(k)).sort();

  return messages.map((m, i) => {
    const tier = tierOf.get(i) ?? 'full';
    const strip = stripImages.has(i);
    if (tier === 'full' && !strip) return m;
    if (typeof m.content === 'string') return m;
    const content = m.content.map((b) => rewriteBlock(b, tier, strip, calls, o));
    return { ...m, content } as SessionMessage;
  });
}

/** Whether the history, with the tiers recorded so far, would fill `pressureRatio` of the window. */
function underPressure(
  messages: readonly SessionMessage[],
  resultMessages: readonly number[],
  recorded: (i: number) => ResultTier,
  calls: ReadonlyMap<string, ToolCallInfo>,
  o: Required<Omit<HouseKeepOptions, 'budget'>>,
  budget: NonNullable<HouseKeepOptions['budget']>,
): boolean {
  const limit = o.pressureRatio * budget.contextWindow;
  const tiers = new Map(resultMessages.map((i) => [i, recorded(i)]));
  let tokens = budget.fixedTokens;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const tier = tiers.get(i) ?? 'full';
    tokens +=
      tier === 'full' || typeof m.content === 'string'
        ? estimateMessageTokens(m)
        : estimateMessageTokens({ ...m, content: m.content.map((b) => rewriteBlock(b, tier, false, calls, o)) });
    if (tokens >= limit) return true;
  }
  return false;
}

function rewriteBlock(
  b: ContentBlockParam,
  tier: ResultTier,
  strip: boolean,
  calls: ReadonlyMap<string, ToolCallInfo>,
  o: Required<Omit<HouseKeepOptions, 'budget'>>,
): ContentBlockParam {
  if (b.type === 'image') return strip ? imageNote() : b;
  if (b.type !== 'tool_result') return b;
  const parts = typeof b.content === 'string' || b.content === undefined ? [] : b.content;
  const images = parts.filter((p) => p.type === 'image');
  if (tier === 'full' && (!strip || images.length === 0)) return b;
  const body = resultText(b);
  const text = tier === 'full' ? body : compressText(body, tier, calls.get(b.tool_use_id), b.is_error === true, o);
  const kept: Array<TextBlockParam | ImageBlockParam> = images.map((img) =>
    strip ? imageNote() : (img as ImageBlockParam),
  );
  const textParts =
    tier === 'full' ? parts.filter((p) => p.type !== 'image') : [{ type: 'text', text } as TextBlockParam];
  const content = kept.length === 0 ? text : ([...textParts, ...kept] as ToolResultBlockParam['content']);
  return { ...b, content };
}

const imageNote = (): TextBlockParam => ({ type: 'text', text: IMAGE_NOTE });

/** The compressed form of one result's text. Pure: the same text and tier always give the same bytes. */
export function compressText(
  body: string,
  tier: CompressedTier,
  call: ToolCallInfo | undefined,
  isError: boolean,
  opts: Pick<HouseKeepOptions, 'headTailChars' | 'clipChars'> = {},
): string {
  const size = body.length;
  if (tier === 'trimmed') {
    const keep = opts.headTailChars ?? HOUSEKEEP_DEFAULTS.headTailChars;
    // Cutting must save something worth a note; short results stay whole.
    if (size <= keep * 2 + 100) return body;
    const head = safeSlice(body, 0, keep);
    const tail = safeSlice(body, size - keep, size);
    return `${head}\n[… ${groupDigits(size - head.length - tail.length)} characters omitted to save context …]\n${tail}`;
  }
  if (tier === 'clipped') {
    const keep = opts.clipChars ?? HOUSEKEEP_DEFAULTS.clipChars;
    if (size <= keep + 60) return body;
    return `${safeSlice(body, 0, keep)}… [clipped to save context; ${groupDigits(size)} characters in all]`;
  }
  const name = call?.name ?? 'tool';
  return `[${name} ${argsSummary(call?.input)} → ${groupDigits(size)} characters, ${isError ? 'error' : 'ok'}; output removed to save context]`;
}

/** Arguments as compact JSON with sorted keys, cut to 80 characters. */
export function argsSummary(input: unknown): string {
  const json = JSON.stringify(sortKeys(input ?? {})) ?? '{}';
  const flat = json.replace(/\s+/g, ' ');
  return flat.length <= 80 ? flat : `${safeSlice(flat, 0, 79)}…`;
}

/** The text of a tool result (text parts joined by newlines). */
export function resultText(b: ToolResultBlockParam): string {
  if (b.content === undefined) return '';
  if (typeof b.content === 'string') return b.content;
  return b.content
    .filter((p): p is TextBlockParam => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
}

function resultIds(m: SessionMessage): string[] {
  if (m.role !== 'user' || typeof m.content === 'string') return [];
  const ids: string[] = [];
  for (const b of m.content) if (b.type === 'tool_result') ids.push(b.tool_use_id);
  return ids;
}

function toolCalls(messages: readonly SessionMessage[]): Map<string, ToolCallInfo> {
  const map = new Map<string, ToolCallInfo>();
  for (const m of messages) {
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    for (const b of m.content) if (b.type === 'tool_use') map.set(b.id, { name: b.name, input: b.input });
  }
  return map;
}

function hasImage(m: SessionMessage): boolean {
  if (typeof m.content === 'string') return false;
  return m.content.some(
    (b) =>
      b.type === 'image' ||
      (b.type === 'tool_result' && Array.isArray(b.content) && b.content.some((p) => p.type === 'image')),
  );
}

/** A stable name for an image-bearing message: its first tool_use_id, else a hash of its first image. */
export function imageKey(m: SessionMessage): string {
  const ids = resultIds(m);
  if (ids.length > 0) return `tool:${ids[0]}`;
  if (typeof m.content !== 'string') {
    const img = m.content.find((b): b is ImageBlockParam => b.type === 'image');
    if (img) return `img:${createHash('sha256').update(JSON.stringify(img.source)).digest('hex').slice(0, 24)}`;
  }
  return 'img:none';
}

function maxTier(tiers: readonly ResultTier[]): ResultTier {
  let best: ResultTier = 'full';
  for (const t of tiers) if (TIER_ORDER[t] > TIER_ORDER[best]) best = t;
  return best;
}

/** Raises a result's recorded tier (never lowers it); true when it changed. */
export function raiseTier(state: HouseKeepState, id: string, tier: CompressedTier): boolean {
  const now = state.results[id] ?? 'full';
  if (TIER_ORDER[tier] <= TIER_ORDER[now]) return false;
  state.results[id] = tier;
  return true;
}

/** A slice that does not cut a surrogate pair in half. */
function safeSlice(s: string, start: number, end: number): string {
  let a = Math.max(0, start);
  let b = Math.min(s.length, end);
  if (a > 0 && isLow(s.charCodeAt(a)) && isHigh(s.charCodeAt(a - 1))) a++;
  if (b < s.length && isLow(s.charCodeAt(b)) && isHigh(s.charCodeAt(b - 1))) b--;
  return s.slice(a, b);
}
const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
