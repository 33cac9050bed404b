/**
 * One-shot text completions for the small model's chores (memory consolidation, learnings before
 * compaction, summaries): no tools, no streaming to anyone, just the answer's text.
 */
import { ReinError } from '../errors.js';
import type { LlmClient } from './client.js';

export interface CompleteTextRequest {
  model: string;
  system: string;
  prompt: string;
  maxTokens: number;
  temperature?: number;
  /** Treat an answer cut off at max_tokens as a failure (for answers that replace something whole). */
  rejectTruncated?: boolean;
}

/** Drives one model turn to its end and returns its text blocks joined. Throws ReinError on failure. */
export async function completeText(llm: LlmClient, req: CompleteTextRequest, signal: AbortSignal): Promise<string> {
  const turn = llm.turn(
    {
      model: req.model,
      maxTokens: req.maxTokens,
      ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
      system: [{ type: 'text', text: req.system }],
      messages: [{ role: 'user', content: req.prompt }],
      tools: [],
    },
    signal,
  );
  let step = await turn.next();
  // Deltas and retry notices are for live displays; a chore only wants the finished message.
  while (!step.done) step = await turn.next();
  const response = step.value;
  if (req.rejectTruncated && response.stopReason === 'max_tokens') {
    throw new ReinError('llm_failed', `the model's answer was cut off at ${req.maxTokens} tokens`, {
      stopReason: 'max_tokens',
    });
  }
  return response.content
    .filter((b): b is { type: 'text'; text: string } => b.type === 'text')
    .map((b) => b.text)
    .join('');
}
