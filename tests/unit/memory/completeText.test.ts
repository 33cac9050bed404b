import { describe, expect, it } from 'vitest';
import { completeText } from '../../../src-main/core/llm/complete.js';
import { ReinError } from '../../../src-main/core/errors.js';
import { response, scriptedLlm } from './fakeLlm.js';

const signal = new AbortController().signal;

describe('completeText', () => {
  it('sends one user message with the system text and no tools, and joins the answer text blocks', async () => {
    const llm = scriptedLlm({
      content: [
        { type: 'text', text: '- one\n' },
        { type: 'tool_use', id: 't1', name: 'x', input: {} },
        { type: 'text', text: '- two' },
      ],
      stopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 },
      model: 'm',
    });
    const text = await completeText(
      llm,
      { model: 'small', system: 'be brief', prompt: 'hello', maxTokens: 100, temperature: 0.2 },
      signal,
    );
    expect(text).toBe('- one\n- two');
    expect(llm.requests[0]).toEqual({
      model: 'small',
      maxTokens: 100,
      temperature: 0.2,
      system: [{ type: 'text', text: 'be brief' }],
      messages: [{ role: 'user', content: 'hello' }],
      tools: [],
    });
  });

  it('passes model failures on', async () => {
    const llm = scriptedLlm(new ReinError('llm_failed', 'boom'));
    await expect(completeText(llm, { model: 's', system: '', prompt: 'p', maxTokens: 10 }, signal)).rejects.toThrow(
      'boom',
    );
  });

  it('rejects an answer cut off at max_tokens only when asked to', async () => {
    const cut = () => scriptedLlm(response('half', 'max_tokens'));
    expect(await completeText(cut(), { model: 's', system: '', prompt: 'p', maxTokens: 10 }, signal)).toBe('half');
    await expect(
      completeText(cut(), { model: 's', system: '', prompt: 'p', maxTokens: 10, rejectTruncated: true }, signal),
    ).rejects.toMatchObject({
      code: 'llm_failed',
    });
  });
});
