import { describe, expect, it } from 'vitest';
import { requestHistory } from '../../../src-main/core/context/checkpoint.js';
import { compactHard, isPromptTooLong, newCompactionState } from '../../../src-main/core/context/compaction.js';
import { historyShapeProblems } from '../../../src-main/core/context/historyShape.js';
import { houseKeep, newHouseKeepState } from '../../../src-main/core/context/houseKeep.js';
import { estimateMessagesTokens } from '../../../src-main/core/context/tokens.js';
import { ReinError } from '../../../src-main/core/errors.js';
import { fakeSmallModel, toolSession } from './helpers.js';

describe('isPromptTooLong', () => {
  const http = (status: number, message: string) =>
    new ReinError('llm_failed', `LLM call failed: HTTP ${status}: ${message}`, { status, retryable: false });

  it('recognises the API refusing a prompt that does not fit the window', () => {
    expect(isPromptTooLong(http(400, 'prompt is too long: 210000 tokens > 200000 maximum'))).toBe(true);
    expect(
      isPromptTooLong(http(400, "This model's maximum context length is 128000 tokens (context_length_exceeded)")),
    ).toBe(true);
    expect(
      isPromptTooLong(http(400, 'input length and `max_tokens` exceed context limit: 199000 + 8192 > 200000')),
    ).toBe(true);
  });

  it('does not mistake other failures for it', () => {
    expect(isPromptTooLong(http(400, 'messages.1: tool_use ids must be unique'))).toBe(false);
    expect(isPromptTooLong(http(500, 'prompt is too long'))).toBe(false);
    expect(isPromptTooLong(new ReinError('llm_failed', 'LLM call failed after 3 attempts: prompt is too long'))).toBe(
      false,
    );
    expect(isPromptTooLong(new Error('prompt is too long'))).toBe(false);
    expect(isPromptTooLong(undefined)).toBe(false);
  });
});

describe('compactHard', () => {
  it('clips every retained tool result to 100 characters and summarises at least the older half', async () => {
    const messages = toolSession(20, 6000);
    const housekeeping = { state: newHouseKeepState() };
    const llm = fakeSmallModel('hard summary');
    const r = await compactHard(
      { session: { messages }, contextWindow: 40_000, fixedTokens: 2000, state: newCompactionState(), housekeeping },
      { llm, model: 'small', signal: new AbortController().signal },
    );
    expect(r.compaction).toBeDefined();
    const cp = r.compaction!.checkpoint;
    expect(cp.reason).toBe('reactive');
    expect(cp.firstKeptIndex).toBeGreaterThanOrEqual(messages.length / 2);
    expect(r.clipped).toBe(20);
    expect(Object.values(housekeeping.state.results).every((t) => t === 'clipped')).toBe(true);

    const sent = houseKeep(requestHistory({ messages, checkpoint: cp }), housekeeping.state);
    expect(historyShapeProblems(sent)).toEqual([]);
    const results = sent
      .flatMap((m) => (typeof m.content === 'string' ? [] : m.content))
      .filter((b) => b.type === 'tool_result');
    expect(results.length).toBeGreaterThan(0);
    for (const b of results)
      expect(String((b as { content: string }).content)).toMatch(
        /^BEGIN-t\d+ x+… \[clipped to save context; 6,000 characters in all\]$/,
      );
    expect(estimateMessagesTokens(sent) + 2000).toBeLessThan(20_000);
  });

  it('on a history too short to summarise only clips, and the caller may retry', async () => {
    const messages = toolSession(1, 100_000);
    const housekeeping = { state: newHouseKeepState() };
    const llm = fakeSmallModel();
    const r = await compactHard(
      { session: { messages }, contextWindow: 20_000, fixedTokens: 1000, state: newCompactionState(), housekeeping },
      { llm, model: 'small', signal: new AbortController().signal },
    );
    expect(r).toEqual({ clipped: 1 });
    expect(llm.requests).toHaveLength(0);
    expect(estimateMessagesTokens(houseKeep(messages, housekeeping.state))).toBeLessThan(200);
  });
});
