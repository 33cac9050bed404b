import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AnthropicLlm, type LlmEvent, type ModelRequest } from '../../../src-main/core/llm/client.js';
import { isReinError } from '../../../src-main/core/errors.js';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { drainTurn } from '../../support/drainRun.js';

let fake: FakeAnthropic;
beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await fake.close();
});

const request: ModelRequest = {
  model: 'claude-sonnet-5-5',
  maxTokens: 1024,
  system: [{ type: 'text', text: 'be brief' }],
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
};

function client(opts: Partial<ConstructorParameters<typeof AnthropicLlm>[0]> = {}) {
  return new AnthropicLlm({ apiKey: 'test-key', baseURL: fake.url, baseDelayMs: 5, ...opts });
}

const deltas = (events: LlmEvent[]) =>
  events
    .filter((e): e is Extract<LlmEvent, { type: 'text_delta' }> => e.type === 'text_delta')
    .map((e) => e.text)
    .join('');

describe('AnthropicLlm over the real SDK', () => {
  it('streams text deltas and returns the assembled message with usage including cache fields', async () => {
    fake.enqueue(
      text('Hello there, this is a streamed answer.', {
        usage: { cache_read_input_tokens: 40, cache_creation_input_tokens: 7 },
      }),
    );
    const { events, response } = await drainTurn(client().turn(request, new AbortController().signal));
    expect(deltas(events)).toBe('Hello there, this is a streamed answer.');
    expect(events.filter((e) => e.type === 'text_delta').length).toBeGreaterThan(1);
    expect(response.content).toEqual([{ type: 'text', text: 'Hello there, this is a streamed answer.' }]);
    expect(response.stopReason).toBe('end_turn');
    expect(response.usage.cacheReadTokens).toBe(40);
    expect(response.usage.cacheCreationTokens).toBe(7);
    expect(response.usage.outputTokens).toBeGreaterThan(0);
    expect(fake.requests[0]!.body.stream).toBe(true);
  });

  it('assembles tool_use input from input_json_delta pieces', async () => {
    fake.enqueue(tools([toolCall('grep', { pattern: 'needle', path: '.', max_results: 5 }, 'toolu_a')], 'Searching.'));
    const { response } = await drainTurn(client().turn(request, new AbortController().signal));
    expect(response.stopReason).toBe('tool_use');
    expect(response.content).toEqual([
      { type: 'text', text: 'Searching.' },
      { type: 'tool_use', id: 'toolu_a', name: 'grep', input: { pattern: 'needle', path: '.', max_results: 5 } },
    ]);
  });

  it.each([429, 500, 502, 503, 504, 529])('retries HTTP %i and then succeeds', async (status) => {
    fake.enqueue({ kind: 'error', status }, text('ok after retry'));
    const { events, response } = await drainTurn(client().turn(request, new AbortController().signal));
    expect(response.content).toEqual([{ type: 'text', text: 'ok after retry' }]);
    expect(events.filter((e) => e.type === 'retry')).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
  });

  it('honours retry-after on a 429', async () => {
    fake.enqueue({ kind: 'error', status: 429, headers: { 'retry-after': '1' } }, text('fine'));
    const slept: number[] = [];
    const llm = client({ sleep: async (ms) => void slept.push(ms) });
    const { events } = await drainTurn(llm.turn(request, new AbortController().signal));
    const retry = events.find((e) => e.type === 'retry');
    expect(retry).toMatchObject({ attempt: 2, maxAttempts: 3 });
    expect(slept[0]).toBeGreaterThanOrEqual(1000);
  });

  it('gives up after 3 attempts with a clear error', async () => {
    fake.enqueue({ kind: 'error', status: 529 }, { kind: 'error', status: 529 }, { kind: 'error', status: 529 });
    const err = await drainTurn(client().turn(request, new AbortController().signal)).catch((e: unknown) => e);
    expect(isReinError(err, 'llm_failed')).toBe(true);
    expect(String((err as Error).message)).toMatch(/3 attempts.*overloaded/);
    expect(fake.requests).toHaveLength(3);
  });

  it('does not retry a 400 and names the status', async () => {
    fake.enqueue({ kind: 'error', status: 400, message: 'prompt is too long' });
    const err = await drainTurn(client().turn(request, new AbortController().signal)).catch((e: unknown) => e);
    expect(isReinError(err, 'llm_failed')).toBe(true);
    expect((err as Error).message).toContain('HTTP 400');
    expect((err as Error).message).toContain('prompt is too long');
    expect(fake.requests).toHaveLength(1);
  });

  it('retries a stream cut before message_stop without showing text twice', async () => {
    const answer = 'The quick brown fox jumps over the lazy dog, twice.';
    fake.enqueue({ kind: 'cut', content: [{ type: 'text', text: answer }], afterTextChars: 20 }, text(answer));
    const { events, response } = await drainTurn(client().turn(request, new AbortController().signal));
    expect(deltas(events)).toBe(answer);
    expect(response.content).toEqual([{ type: 'text', text: answer }]);
    expect(events.some((e) => e.type === 'retry' && /interrupted/.test(e.reason))).toBe(true);
  });

  it('retries a stalled stream after the idle timeout', async () => {
    fake.enqueue({ kind: 'stall' }, text('recovered'));
    const { response, events } = await drainTurn(
      client({ idleTimeoutMs: 200 }).turn(request, new AbortController().signal),
    );
    expect(response.content).toEqual([{ type: 'text', text: 'recovered' }]);
    expect(events.some((e) => e.type === 'retry' && /stalled/.test(e.reason))).toBe(true);
  });

  it('cancellation stops a stalled request with llm_cancelled', async () => {
    fake.enqueue({ kind: 'stall' });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const err = await drainTurn(client().turn(request, ac.signal)).catch((e: unknown) => e);
    expect(isReinError(err, 'llm_cancelled')).toBe(true);
  });

  it('sends the key (as x-api-key or bearer) to the custom base URL', async () => {
    fake.enqueue(text('ok'));
    await drainTurn(client().turn(request, new AbortController().signal));
    const h = fake.requests[0]!.headers;
    expect(`${h['x-api-key'] ?? ''}${h.authorization ?? ''}`).toContain('test-key');
  });
});
