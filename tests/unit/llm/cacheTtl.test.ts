// Cache marks with a TTL, and what they cost: 5-minute entries are gone before a 30-minute heartbeat's
// next beat, 1-hour ones are not; 1-hour writes cost 2× base input, 5-minute ones 1.25×. The fake
// Messages API expires entries as the provider does, on a clock the test moves on.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageParam, TextBlockParam, Tool as ApiTool } from '@anthropic-ai/sdk/resources/messages';
import { AnthropicLlm, type ModelRequest } from '../../../src-main/core/llm/client.js';
import { countBreakpoints, withCacheBreakpoints } from '../../../src-main/core/llm/cacheBreakpoints.js';
import { costOf, priceFor } from '../../../src-main/core/llm/pricing.js';
import { drainTurn } from '../../support/drainRun.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../../support/fakeAnthropic.js';

const MIN = 60_000;
let clock = Date.UTC(2026, 11, 1, 9, 0);
let fake: FakeAnthropic;
beforeEach(async () => {
  clock = Date.UTC(2026, 11, 1, 9, 0);
  fake = await startFakeAnthropic({ cacheEveryBreakpoint: true, now: () => clock });
  fake.fallback = () => text('HEARTBEAT_OK');
});
afterEach(async () => {
  await fake.close();
});

const TOOLS: ApiTool[] = [
  { name: 'bash', description: 'Run a command. '.repeat(200), input_schema: { type: 'object', properties: {} } },
];
const SYSTEM: TextBlockParam[] = [{ type: 'text', text: 'You are a heartbeat. '.repeat(300) }];
const message = (n: number): MessageParam[] => [
  { role: 'user', content: [{ type: 'text', text: `Beat ${'x'.repeat(n)}: check the goals.` }] },
];

function request(ttl: '5m' | '1h' | undefined, n: number): ModelRequest {
  const marked = withCacheBreakpoints({
    tools: TOOLS,
    system: SYSTEM,
    messages: message(n),
    ...(ttl ? { prefixTtl: ttl } : {}),
  });
  return {
    model: 'claude-sonnet-5-5',
    maxTokens: 256,
    ...marked,
    ...(ttl === '1h' ? { cacheTtl: '1h' as const } : {}),
  };
}
const llm = () => new AnthropicLlm({ apiKey: 'test-key', baseURL: fake.url, baseDelayMs: 1 });
const call = async (req: ModelRequest) =>
  (await drainTurn(llm().turn(req, new AbortController().signal))).response.usage;

describe('cache marks', () => {
  it('are the 5-minute kind by default (no ttl in the bytes); prefixTtl 1h makes every mark the 1-hour kind', () => {
    const plain = withCacheBreakpoints({ tools: TOOLS, system: SYSTEM, messages: message(1) });
    expect(JSON.stringify(plain)).not.toContain('"ttl"');
    const long = withCacheBreakpoints({ tools: TOOLS, system: SYSTEM, messages: message(1), prefixTtl: '1h' });
    expect(long.tools[0]!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(long.system[0]!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    expect(JSON.stringify(long.messages)).toContain('"cache_control":{"type":"ephemeral","ttl":"1h"}');
    expect(JSON.stringify(long)).not.toContain('"cache_control":{"type":"ephemeral"}');
    expect(countBreakpoints(long)).toBe(3);
  });
});

describe('the fake expires cache entries as the provider does', () => {
  it('a 5-minute entry is read 4 minutes later, renewed by the read, and gone 5 minutes after its last use', async () => {
    const first = await call(request(undefined, 1));
    expect(first.cacheReadTokens).toBe(0);
    clock += 4 * MIN;
    const second = await call(request(undefined, 2));
    expect(second.cacheReadTokens).toBeGreaterThan(0);
    clock += 4 * MIN; // 8 minutes after the write, 4 after the read that renewed it
    expect((await call(request(undefined, 3))).cacheReadTokens).toBe(second.cacheReadTokens);
    clock += 5 * MIN;
    const gone = await call(request(undefined, 4));
    expect(gone.cacheReadTokens).toBe(0);
    expect(gone.cacheCreation1hTokens).toBe(0);
  });

  it('a 30-minute gap: 5-minute marks read nothing, 1-hour marks read what the next request repeats (tools and system)', async () => {
    await call(request(undefined, 1));
    clock += 30 * MIN;
    expect((await call(request(undefined, 2))).cacheReadTokens).toBe(0);

    clock += 6 * MIN; // the 5-minute entries just written are gone
    const w = await call(request('1h', 1));
    // Every mark is the 1-hour kind: all that was written was written for an hour.
    expect(w.cacheCreation1hTokens).toBeGreaterThan(0);
    expect(w.cacheCreation1hTokens).toBe(w.cacheCreationTokens);
    clock += 30 * MIN;
    // The next beat's message is new: it reads the tools and the system prompt, written 30 minutes ago.
    const r = await call(request('1h', 2));
    expect(r.cacheReadTokens).toBeGreaterThan(0);
    expect(r.cacheReadTokens).toBeLessThan(w.cacheCreationTokens);
    // Renewed by each read: still there 50 minutes after the last beat, 100 after the first.
    clock += 50 * MIN;
    expect((await call(request('1h', 3))).cacheReadTokens).toBe(r.cacheReadTokens);
    clock += 61 * MIN;
    expect((await call(request('1h', 4))).cacheReadTokens).toBe(0);
  });

  it('refuses a 1-hour mark after a 5-minute one, as the API does', async () => {
    const marked = withCacheBreakpoints({ tools: TOOLS, system: SYSTEM, messages: message(1) });
    const bad = {
      ...marked,
      messages: [
        {
          role: 'user' as const,
          content: [
            { type: 'text' as const, text: 'x', cache_control: { type: 'ephemeral' as const, ttl: '1h' as const } },
          ],
        },
      ],
    };
    const err = await drainTurn(
      llm().turn({ model: 'claude-sonnet-5-5', maxTokens: 10, ...bad }, new AbortController().signal),
    ).catch((e: unknown) => e);
    expect(String(err)).toMatch(/ttl "1h" must not come after/);
  });
});

describe('what a write costs', () => {
  const sonnet = priceFor('claude-sonnet-5-5');

  it('1-hour writes at 2× input, 5-minute writes at 1.25×, reads at 0.1×', () => {
    const base = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 };
    expect(costOf({ ...base, cacheCreationTokens: 1_000_000 }, sonnet)).toBeCloseTo(3.75, 10);
    expect(costOf({ ...base, cacheCreationTokens: 1_000_000, cacheCreation1hTokens: 1_000_000 }, sonnet)).toBeCloseTo(
      6,
      10,
    );
    expect(costOf({ ...base, cacheCreationTokens: 1_000_000, cacheCreation1hTokens: 400_000 }, sonnet)).toBeCloseTo(
      0.6 * 3.75 + 0.4 * 6,
      10,
    );
    // A split larger than the total cannot make a write cost more than all of it at 1 h.
    expect(costOf({ ...base, cacheCreationTokens: 1_000, cacheCreation1hTokens: 5_000 }, sonnet)).toBeCloseTo(
      0.006,
      10,
    );
    expect(costOf({ ...base, cacheCreationTokens: 0, cacheReadTokens: 1_000_000 }, sonnet)).toBeCloseTo(0.3, 10);
    expect(
      costOf(
        { ...base, cacheCreationTokens: 1_000_000, cacheCreation1hTokens: 1_000_000 },
        { input: 3, output: 15, cache_write_1h: 5 },
      ),
    ).toBeCloseTo(5, 10);
  });

  it('reads the split the API reports; a server that reports none has a 1-hour request counted at 1 h', async () => {
    const reported = await call(request('1h', 1));
    expect(reported.cacheCreation1hTokens).toBe(fake.accounting.cacheWrite1h);
    fake.enqueue(text('HEARTBEAT_OK', { usage: { cache_creation_input_tokens: 900, cache_creation: null } }));
    const silent = await call(request('1h', 2));
    expect(silent).toMatchObject({ cacheCreationTokens: 900, cacheCreation1hTokens: 900 });
    fake.enqueue(text('HEARTBEAT_OK', { usage: { cache_creation_input_tokens: 900, cache_creation: null } }));
    const plain = await call(request(undefined, 3));
    expect(plain.cacheCreation1hTokens).toBeUndefined();
  });
});
