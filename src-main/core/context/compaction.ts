/**
 * Compaction keeps a long session inside the model's context window.
 *
 * Proactive (`compactIfNeeded`, once per iteration before the model call): when the last request's
 * real input (or, on a resumed session, an estimate) reaches 85% of the window, the older part of the
 * history is replaced by a summary. First the small model saves durable facts from that part to memory
 * (write-before-compact), then it writes the summary; identifiers from the dropped part that the
 * summary lacks are appended verbatim. The new request history is the first user message with the
 * summary, then the newest messages that fit in half the window.
 *
 * Reactive (`compactHard`, when the API still says the prompt is too long): every tool result is
 * clipped to 100 characters and at least the older half of the history is summarised.
 *
 * Neither touches the transcript: the result is a checkpoint the caller stores in
 * `session.checkpoint`; `requestHistory(session)` builds requests from it.
 */
import { z } from 'zod';
import { errorMessage, isReinError } from '../errors.js';
import type { LlmClient } from '../llm/client.js';
import type { SessionMessage } from '../sessions/types.js';
import {
  messageAnchor,
  locateKept,
  readCheckpoint,
  requestHistory,
  withSummary,
  type CompactionCheckpoint,
} from './checkpoint.js';
import { houseKeep, raiseTier, type HouseKeepOptions, type HouseKeepState } from './houseKeep.js';
import { ensureIdentifiers, pickIdentifiers } from './identifiers.js';
import { generateSummary, persistLearnings } from './summarize.js';
import { CHARS_PER_TOKEN, estimateMessageTokens } from './tokens.js';
import { identifierSources } from './transcript.js';

export const COMPACT_TRIGGER_RATIO = 0.85;
/** After compaction the whole request should take at most this share of the window. */
export const COMPACT_TARGET_RATIO = 0.5;
/** Room kept for the summary when choosing what to keep (its max_tokens plus the identifier list). */
export const SUMMARY_RESERVE_TOKENS = 2500;
/** A first message above this share of the window has its long texts cut in requests. */
export const FIRST_MESSAGE_MAX_RATIO = 0.25;
export const MAX_SUMMARY_FAILURES = 3;
export const SUMMARY_BACKOFF_ITERATIONS = 5;

export interface CompactionState {
  /** Compactions in a row whose summary failed (after its retry). */
  consecutiveFailures: number;
  /** compactIfNeeded calls so far (one per iteration). */
  calls: number;
  /** The first call that may ask for a summary again; before it, older turns are dropped with a note. */
  backoffUntil: number;
}

export const CompactionStateShape = z.strictObject({
  consecutiveFailures: z.number().int().nonnegative(),
  calls: z.number().int().nonnegative(),
  backoffUntil: z.number().int().nonnegative(),
});

export const newCompactionState = (): CompactionState => ({ consecutiveFailures: 0, calls: 0, backoffUntil: 0 });

/** Usage the API reported for the previous request. */
export interface LastUsage {
  inputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  /** How many messages that request carried: messages added since are estimated on top. */
  messagesSent?: number;
}

export interface CompactionInput {
  /** The session: its full transcript and its current checkpoint. Not modified. */
  session: { messages: readonly SessionMessage[]; checkpoint?: unknown };
  contextWindow: number;
  /** Estimated tokens of the system prompt and tool definitions the requests carry. */
  fixedTokens: number;
  lastUsage?: LastUsage;
  state: CompactionState;
  /** The session's housekeeping, so estimates measure what is really sent (its state is not changed). */
  housekeeping?: { state: HouseKeepState; options?: HouseKeepOptions };
  triggerRatio?: number;
  targetRatio?: number;
}

export interface CompactionDeps {
  llm: LlmClient;
  /** The small model. */
  model: string;
  /** The agent's memory folder for write-before-compact; absent = no write. */
  memoryDir?: string;
  signal: AbortSignal;
  now?: () => Date;
  /** Non-fatal problems (write-before-compact failed, summary fell back). */
  warn?: (message: string) => void;
}

export interface CompactionResult {
  /** Store in `session.checkpoint`. */
  checkpoint: CompactionCheckpoint;
  /** Messages newly taken out of the request history. */
  droppedMessages: number;
  tokensBefore: number;
  tokensAfter: number;
  summarised: boolean;
  learnings: 'written' | 'none' | 'failed' | 'skipped';
  /** Identifiers the summary lacked and that were appended verbatim. */
  identifiersAppended: string[];
  reason: 'proactive' | 'reactive';
}

/** Tokens the next request will carry, by the last real usage when there is one, else by estimate. */
export function measureRequest(
  input: Pick<CompactionInput, 'session' | 'fixedTokens' | 'lastUsage' | 'housekeeping'>,
): number {
  const history = requestHistory(input.session);
  const u = input.lastUsage;
  if (u) {
    const real = u.inputTokens + u.cacheReadTokens + u.cacheCreationTokens;
    const since = u.messagesSent === undefined ? [] : history.slice(u.messagesSent);
    return real + since.reduce((n, m) => n + estimateMessageTokens(m), 0);
  }
  return input.fixedTokens + view(history, input.housekeeping).reduce((n, m) => n + estimateMessageTokens(m), 0);
}

export function shouldCompact(
  input: Pick<
    CompactionInput,
    'session' | 'fixedTokens' | 'lastUsage' | 'housekeeping' | 'contextWindow' | 'triggerRatio'
  >,
): boolean {
  if (input.contextWindow <= 0) return false;
  return measureRequest(input) >= Math.floor((input.triggerRatio ?? COMPACT_TRIGGER_RATIO) * input.contextWindow);
}

/** Compacts when the request would reach 85% of the window; undefined when nothing was done. */
export async function compactIfNeeded(
  input: CompactionInput,
  deps: CompactionDeps,
): Promise<CompactionResult | undefined> {
  input.state.calls++;
  if (!shouldCompact(input)) return undefined;
  const plan = planCut(input, (i) => view(i, input.housekeeping));
  if (!plan) return undefined;
  return compact(input, deps, plan, 'proactive', measureRequest(input));
}

/**
 * After the API refused the request as too long: clips every tool result in the retained history to
 * 100 characters (recorded in the housekeeping state) and summarises at least the older half. The
 * caller retries once with the rebuilt request; a second refusal ends the run.
 */
export async function compactHard(
  input: Omit<CompactionInput, 'housekeeping'> & {
    housekeeping: { state: HouseKeepState; options?: HouseKeepOptions };
  },
  deps: CompactionDeps,
): Promise<HardCompactionResult> {
  const messages = input.session.messages;
  const start = keptStart(input.session);
  let clipped = 0;
  for (const m of messages.slice(start)) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const b of m.content) {
      if (b.type === 'tool_result' && raiseTier(input.housekeeping.state, b.tool_use_id, 'clipped')) clipped++;
    }
  }
  const tokensBefore = Math.max(
    input.lastUsage
      ? input.lastUsage.inputTokens + input.lastUsage.cacheReadTokens + input.lastUsage.cacheCreationTokens
      : 0,
    measureRequest({ ...input, lastUsage: undefined }),
  );
  const byBudget = planCut(input, (h) => view(h, input.housekeeping));
  const candidates = assistantIndexes(messages, start);
  const middle = start + (messages.length - start) / 2;
  const half = candidates.find((k) => k >= middle) ?? candidates[candidates.length - 1];
  const cut = Math.max(byBudget?.cut ?? 0, half ?? 0);
  if (cut <= start) return { clipped };
  const limit = byBudget?.firstMessageMaxChars ?? firstMessageLimit(input);
  const compaction = await compact(
    input,
    deps,
    { start, cut, ...(limit ? { firstMessageMaxChars: limit } : {}) },
    'reactive',
    tokensBefore,
  );
  return { clipped, compaction };
}

export interface HardCompactionResult {
  /** Tool results newly clipped (recorded in the housekeeping state). */
  clipped: number;
  /** Present when part of the history was summarised: store its checkpoint in `session.checkpoint`. */
  compaction?: CompactionResult;
}

/** HTTP 400 (or 413) from the API saying the prompt does not fit the model's context window. */
export function isPromptTooLong(error: unknown): boolean {
  if (!isReinError(error, 'llm_failed')) return false;
  const status = error.details?.status;
  if (status !== 400 && status !== 413) return false;
  return /prompt is too long|context_length_exceeded|exceed(s|ed)? (the )?context (limit|window)|request_too_large/i.test(
    error.message,
  );
}

interface Plan {
  /** Index of the first message not yet represented by a summary (1 without a checkpoint). */
  start: number;
  /** Index of the first retained message (an assistant message); start < cut. */
  cut: number;
  firstMessageMaxChars?: number;
}

/** The earliest cut that fits the target budget (keeping as much as possible), or undefined if nothing can go. */
function planCut(input: CompactionInput, see: (h: SessionMessage[]) => SessionMessage[]): Plan | undefined {
  const messages = input.session.messages;
  if (messages.length === 0 || messages[0]!.role !== 'user') return undefined;
  const start = keptStart(input.session);
  const candidates = assistantIndexes(messages, start);
  if (candidates.length === 0) return undefined;

  // Estimate what each retained message costs as it will be sent (after housekeeping).
  const tail = see([messages[0]!, ...messages.slice(start)]).slice(1);
  const cost = tail.map((m) => estimateMessageTokens(m));
  const suffix = new Array<number>(cost.length + 1).fill(0);
  for (let j = cost.length - 1; j >= 0; j--) suffix[j] = suffix[j + 1]! + cost[j]!;

  const firstMessageMaxChars = firstMessageLimit(input);
  const first = estimateMessageTokens(
    firstMessageMaxChars ? withSummary(messages[0]!, 'x', firstMessageMaxChars) : messages[0]!,
  );
  const budget =
    Math.floor((input.targetRatio ?? COMPACT_TARGET_RATIO) * input.contextWindow) -
    input.fixedTokens -
    first -
    SUMMARY_RESERVE_TOKENS;
  const fits = candidates.find((k) => suffix[k - start]! <= budget);
  const cut = fits ?? candidates[candidates.length - 1]!;
  return { start, cut, ...(firstMessageMaxChars ? { firstMessageMaxChars } : {}) };
}

async function compact(
  input: CompactionInput,
  deps: CompactionDeps,
  plan: Plan,
  reason: 'proactive' | 'reactive',
  tokensBefore: number,
): Promise<CompactionResult> {
  const { state } = input;
  const messages = input.session.messages;
  const previous = previousSummary(input.session);
  const dropped = messages.slice(plan.start, plan.cut);
  const warn = deps.warn ?? (() => undefined);

  let learnings: CompactionResult['learnings'] = 'skipped';
  if (deps.memoryDir) {
    try {
      learnings = (
        await persistLearnings({
          llm: deps.llm,
          model: deps.model,
          memoryDir: deps.memoryDir,
          dropped,
          signal: deps.signal,
          now: now(deps),
        })
      ).status;
    } catch (err) {
      if (deps.signal.aborted) throw err;
      learnings = 'failed';
      warn(`write-before-compact: could not save learnings to memory: ${errorMessage(err)}`);
    }
  }

  let summary: string | undefined;
  if (state.calls >= state.backoffUntil) {
    for (let attempt = 1; attempt <= 2 && summary === undefined; attempt++) {
      try {
        summary = await generateSummary({
          llm: deps.llm,
          model: deps.model,
          dropped,
          ...(previous ? { previousSummary: previous } : {}),
          signal: deps.signal,
        });
      } catch (err) {
        if (deps.signal.aborted) throw err;
        if (attempt === 2)
          warn(
            `compaction: the summary failed twice (${errorMessage(err)}); older turns were dropped with a note instead`,
          );
      }
    }
    if (summary === undefined) {
      state.consecutiveFailures++;
      if (state.consecutiveFailures >= MAX_SUMMARY_FAILURES)
        state.backoffUntil = state.calls + SUMMARY_BACKOFF_ITERATIONS + 1;
    } else state.consecutiveFailures = 0;
  }
  const summarised = summary !== undefined;
  const body = summary ?? droppedNote(dropped.length, previous);

  const identifiers = pickIdentifiers([
    ...(previous ? [{ text: previous, weight: 2 }] : []),
    ...identifierSources(dropped),
  ]);
  const checked = ensureIdentifiers(body, identifiers);

  const firstMessageMaxChars =
    plan.firstMessageMaxChars ?? readCheckpoint(input.session.checkpoint)?.firstMessageMaxChars;
  const draft: CompactionCheckpoint = {
    version: 1,
    summary: checked.text,
    firstKeptIndex: plan.cut,
    anchor: messageAnchor(messages[plan.cut]!),
    createdAt: now(deps).toISOString(),
    tokensBefore: Math.round(tokensBefore),
    tokensAfter: 0,
    reason,
    summarised,
    ...(firstMessageMaxChars ? { firstMessageMaxChars } : {}),
  };
  const after = requestHistory({ messages, checkpoint: draft });
  draft.tokensAfter =
    input.fixedTokens + view(after, input.housekeeping).reduce((n, m) => n + estimateMessageTokens(m), 0);
  return {
    checkpoint: draft,
    droppedMessages: plan.cut - plan.start,
    tokensBefore: draft.tokensBefore,
    tokensAfter: draft.tokensAfter,
    summarised,
    learnings,
    identifiersAppended: checked.appended,
    reason,
  };
}

function droppedNote(count: number, previous: string | undefined): string {
  const note =
    `[The earlier part of this conversation (${count} messages) could not be summarised and was left out here. ` +
    'The full transcript is kept in the session file.]';
  return previous ? `${note}\n\nSummary of what came before that part:\n${previous}` : note;
}

/** Index of the first message the current checkpoint keeps (1 without a usable checkpoint). */
function keptStart(session: CompactionInput['session']): number {
  const cp = readCheckpoint(session.checkpoint);
  return (cp && locateKept(session.messages, cp)) ?? 1;
}

function previousSummary(session: CompactionInput['session']): string | undefined {
  const cp = readCheckpoint(session.checkpoint);
  return cp && locateKept(session.messages, cp) !== undefined ? cp.summary : undefined;
}

/** Assistant messages after `start` that can open the retained part (never the very first message). */
function assistantIndexes(messages: readonly SessionMessage[], start: number): number[] {
  const out: number[] = [];
  for (let i = start + 1; i < messages.length; i++) if (messages[i]!.role === 'assistant') out.push(i);
  return out;
}

function firstMessageLimit(input: Pick<CompactionInput, 'session' | 'contextWindow'>): number | undefined {
  const first = input.session.messages[0];
  if (!first) return undefined;
  const limitTokens = Math.floor(FIRST_MESSAGE_MAX_RATIO * input.contextWindow);
  return estimateMessageTokens(first) > limitTokens ? Math.floor(limitTokens * CHARS_PER_TOKEN * 0.8) : undefined;
}

function view(history: SessionMessage[], hk: CompactionInput['housekeeping']): SessionMessage[] {
  if (!hk) return history;
  // A copy of the state: estimating must not record decisions.
  return houseKeep(history, structuredClone(hk.state), hk.options);
}

const now = (deps: CompactionDeps): Date => (deps.now ? deps.now() : new Date());
