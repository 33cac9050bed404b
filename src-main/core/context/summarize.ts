/**
 * The two small-model chores of compaction: the summary that replaces the dropped part of the history,
 * and write-before-compact, which saves the durable facts of that part to the agent's memory first
 * (a summary keeps what the task needs; memory keeps what the agent should know next week).
 */
import { ReinError } from '../errors.js';
import type { LlmClient } from '../llm/client.js';
import { completeText } from '../llm/complete.js';
import { boundedAppend, loadMemory } from '../memory/index.js';
import { localDateTime } from '../memory/files.js';
import type { SessionMessage } from '../sessions/types.js';
import { renderTranscript } from './transcript.js';

export const SUMMARY_MAX_TOKENS = 2000;
export const LEARNINGS_MAX_TOKENS = 1000;
const TEMPERATURE = 0.2;

const SUMMARY_SYSTEM = [
  'You compress the earlier part of a conversation between a user and an AI assistant that works with tools,',
  'so the assistant can continue the task without it. Write a concise, factual summary with these sections:',
  '## Decisions — what was decided or agreed, and why when it matters',
  '## Files touched — files read, created or modified (full paths)',
  '## Task state — what is done and what is in progress',
  '## Next steps — what remains, open questions, unresolved items',
  '## Errors — errors and blockers met, and how they were handled',
  'Copy identifiers exactly as written: paths, URLs, host:port, ids, hashes, names, numbers. Do not invent anything.',
  'Reply with the summary only.',
].join('\n');

const LEARNINGS_SYSTEM = [
  "You maintain an AI assistant's long-term memory. Read the conversation and list only durable facts worth",
  'remembering in future sessions: decisions, preferences and corrections from the user, facts about projects,',
  'people and systems, gotchas, hard-won configuration, contacts and resources.',
  'One short Markdown bullet per fact ("- …", about 100 characters at most; end with "(detail)" if more detail',
  'would help). Leave out task progress, verbatim code or command output, anything ephemeral, and anything',
  'already in the existing memory. If nothing qualifies, reply with exactly NONE.',
].join('\n');

export interface SummaryRequest {
  llm: LlmClient;
  model: string;
  /** The messages the summary replaces. */
  dropped: readonly SessionMessage[];
  /** The summary of an earlier compaction, which the new one must absorb. */
  previousSummary?: string;
  signal: AbortSignal;
}

/** The small model's summary. Throws ReinError `llm_failed` on a failed call or an empty answer. */
export async function generateSummary(req: SummaryRequest): Promise<string> {
  const parts: string[] = [];
  if (req.previousSummary) parts.push(`Summary of the conversation before this part:\n\n${req.previousSummary.trim()}`);
  parts.push(`Conversation to summarise:\n\n${renderTranscript(req.dropped)}`);
  const answer = await completeText(
    req.llm,
    {
      model: req.model,
      system: SUMMARY_SYSTEM,
      prompt: parts.join('\n\n---\n\n'),
      maxTokens: SUMMARY_MAX_TOKENS,
      temperature: TEMPERATURE,
    },
    req.signal,
  );
  const summary = answer.trim();
  if (summary === '') throw new ReinError('llm_failed', 'compaction: the summary came back empty');
  return summary;
}

export interface LearningsRequest {
  llm: LlmClient;
  model: string;
  memoryDir: string;
  dropped: readonly SessionMessage[];
  signal: AbortSignal;
  now?: Date;
}

export type LearningsOutcome = { status: 'written'; path: string; bullets: number } | { status: 'none' };

/**
 * Write-before-compact: asks the small model for durable facts in `dropped` and appends them to
 * memory through boundedAppend. `NONE` (or nothing usable) writes nothing. Throws on a failed call.
 */
export async function persistLearnings(req: LearningsRequest): Promise<LearningsOutcome> {
  const existing = await loadMemory(req.memoryDir);
  const prompt = [
    `## Existing Memory (do not duplicate)\n\n${existing.trim() === '' ? '(empty)' : existing.trim()}`,
    `## Conversation\n\n${renderTranscript(req.dropped)}`,
  ].join('\n\n');
  const answer = await completeText(
    req.llm,
    { model: req.model, system: LEARNINGS_SYSTEM, prompt, maxTokens: LEARNINGS_MAX_TOKENS, temperature: TEMPERATURE },
    req.signal,
  );
  const bullets = cleanLearnings(answer);
  if (bullets === '') return { status: 'none' };
  const now = req.now ?? new Date();
  const result = await boundedAppend(req.memoryDir, `\n## Auto-persisted (${localDateTime(now)})\n\n${bullets}\n`, {
    now,
  });
  return { status: 'written', path: result.path, bullets: bullets.split('\n').length };
}

/**
 * The model's facts, safe to store: no code fences and no headings (a `## ` line would end the
 * auto-persisted section in MEMORY.md); '' for NONE or an empty answer.
 */
export function cleanLearnings(answer: string): string {
  const text = answer
    .replace(/\r\n?/g, '\n')
    .replace(/\0/g, '')
    .split('\n')
    .filter((l) => !/^\s*```/.test(l) && !/^\s*#/.test(l))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (/^none\W*$/i.test(text)) return '';
  return text;
}
