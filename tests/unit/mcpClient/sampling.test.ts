/** A server's sampling request in Rein's terms: text only, ending with the user, tokens capped, the model chosen by its preferences. */
import { describe, expect, it } from 'vitest';
import { MAX_SAMPLING_CHARS, MAX_SAMPLING_TOKENS, samplingRequest } from '../../../src-main/core/mcpClient/sampling.js';

const call = { tool: 'mcp__s__ask', input: { q: 1 } };
const user = (text: string) => ({ role: 'user' as const, content: { type: 'text', text } });

describe('samplingRequest', () => {
  it('takes text messages (one block or several), the system prompt and temperature; caps the tokens', () => {
    const r = samplingRequest('s', call, {
      messages: [
        user('hello'),
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'hi' },
            { type: 'text', text: 'there' },
          ],
        },
        user('again'),
      ],
      systemPrompt: 'Be brief.',
      maxTokens: 1_000_000,
      temperature: 0.3,
    });
    expect(r).toEqual({
      server: 's',
      tool: 'mcp__s__ask',
      input: { q: 1 },
      messages: [
        { role: 'user', text: 'hello' },
        { role: 'assistant', text: 'hi\nthere' },
        { role: 'user', text: 'again' },
      ],
      systemPrompt: 'Be brief.',
      maxTokens: MAX_SAMPLING_TOKENS,
      temperature: 0.3,
      preferSmall: false,
    });
  });

  it('prefers the small model when the server rates cost or speed above intelligence', () => {
    const base = { messages: [user('x')], maxTokens: 10 };
    expect(
      samplingRequest('s', call, { ...base, modelPreferences: { speedPriority: 0.9, intelligencePriority: 0.2 } }),
    ).toMatchObject({ preferSmall: true });
    expect(
      samplingRequest('s', call, { ...base, modelPreferences: { costPriority: 0.4, intelligencePriority: 0.8 } }),
    ).toMatchObject({ preferSmall: false });
  });

  it('refuses images and audio, a conversation that does not end with the user, and one that is too long', () => {
    expect(
      samplingRequest('s', call, {
        messages: [{ role: 'user', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } }],
        maxTokens: 10,
      }),
    ).toEqual({
      error: 'Rein answers sampling requests with text only (got image)',
    });
    expect(
      samplingRequest('s', call, {
        messages: [user('q'), { role: 'assistant', content: { type: 'text', text: 'a' } }],
        maxTokens: 10,
      }),
    ).toEqual({
      error: 'a sampling request must end with a user message',
    });
    expect(
      samplingRequest('s', call, { messages: [user('x'.repeat(MAX_SAMPLING_CHARS + 1))], maxTokens: 10 }),
    ).toMatchObject({ error: expect.stringMatching(/at most 100000/) });
  });
});
