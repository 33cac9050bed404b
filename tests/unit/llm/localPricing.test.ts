/**
 * A model served on this machine or the local network costs $0 in usage unless `prices.<model>` in
 * config.yaml prices it; the Anthropic API and other remote servers keep the table's prices. The run
 * goes through the real runtime and loop with a stand-in model client (no network), so what is tested
 * is the base URL the runtime resolves and the cost the loop adds up.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GlobalConfig, type GlobalConfigInput } from '../../../src-main/core/config/schema.js';
import type { LlmClient, LlmEvent, ModelResponse } from '../../../src-main/core/llm/client.js';
import { isLocalModelServer, LOCAL_PRICE, priceFor } from '../../../src-main/core/llm/pricing.js';
import { createRuntime, startRun } from '../../../src-main/core/runtime/runtime.js';
import { drainRun } from '../../support/drainRun.js';
import { tempRuntimeDirs } from '../runtime/tempRuntimeDirs.js';

const d = tempRuntimeDirs('rein-localprice-');

/** One answer of a million input and a million output tokens, from whatever model the run asked for. */
const llm: LlmClient = {
  async *turn(req): AsyncGenerator<LlmEvent, ModelResponse> {
    yield { type: 'text_delta', text: 'ok' };
    return {
      content: [{ type: 'text', text: 'ok' }],
      stopReason: 'end_turn',
      model: req.model,
      usage: { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 0, cacheCreationTokens: 0 },
    };
  },
};

async function runCost(
  env: NodeJS.ProcessEnv,
  config: GlobalConfigInput = {},
): Promise<{ cost: number; usageEvent: number }> {
  const rt = await createRuntime({
    home: d.home,
    cwd: d.cwd,
    env,
    config: GlobalConfig.parse(config),
    origin: 'attended',
    faces: [],
    llm,
    bundledSkillsDir: join(d.root, 'none'),
  });
  const { events, outcome } = await drainRun(
    (await startRun(rt, { prompt: 'hi', cwd: d.cwd, home: d.home, signal: new AbortController().signal })).events,
  );
  const usage = events.find((e) => e.type === 'usage');
  return { cost: outcome.usage.cost_usd, usageEvent: usage && usage.type === 'usage' ? usage.run.cost_usd : NaN };
}

describe('isLocalModelServer', () => {
  it('loopback, private and link-local addresses and .local names are local; the Anthropic API and public hosts are not', () => {
    for (const url of [
      'http://127.0.0.1:11434',
      'http://localhost:8080/v1',
      'http://[::1]:9000',
      'http://10.0.0.7',
      'http://172.20.1.2:1234',
      'http://192.168.1.5:8080',
      'http://169.254.3.4',
      'http://[fd12:3456::1]:80',
      'http://[fe80::1]',
      'http://studio.local:1234',
      'http://0.0.0.0:8000',
    ]) {
      expect(isLocalModelServer(url), url).toBe(true);
    }
    for (const url of [
      undefined,
      'https://api.anthropic.com',
      'https://gateway.example.com/anthropic',
      'http://172.32.0.1',
      'http://8.8.8.8',
      'http://192.169.0.1',
      'not a url',
    ]) {
      expect(isLocalModelServer(url), String(url)).toBe(false);
    }
  });

  it('priceFor: config prices win, then $0 for a local server, then the table', () => {
    expect(priceFor('claude-sonnet-5-5', {}, { local: true })).toBe(LOCAL_PRICE);
    expect(priceFor('claude-sonnet-5-5', { 'claude-sonnet-5-5': { input: 1, output: 2 } }, { local: true })).toEqual({
      input: 1,
      output: 2,
    });
    expect(priceFor('claude-sonnet-5-5')).toEqual({ input: 3, output: 15 });
  });
});

describe("a run's cost by where its model is served", () => {
  it('a local base URL (ANTHROPIC_BASE_URL or base_url): $0', async () => {
    expect(await runCost({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:11434' })).toEqual({ cost: 0, usageEvent: 0 });
    expect((await runCost({}, { base_url: 'http://192.168.1.20:8080' })).cost).toBe(0);
  });

  it('a local base URL with prices for the model in config.yaml: those prices', async () => {
    const r = await runCost(
      { ANTHROPIC_BASE_URL: 'http://localhost:8080' },
      { prices: { 'claude-sonnet-5-5': { input: 2, output: 4 } } },
    );
    expect(r.cost).toBeCloseTo(6, 10);
    expect(r.usageEvent).toBeCloseTo(6, 10);
  });

  it('the Anthropic API or a remote gateway: the table price (Sonnet: $3 in, $15 out per million)', async () => {
    expect((await runCost({ ANTHROPIC_API_KEY: 'k' })).cost).toBeCloseTo(18, 10);
    expect(
      (await runCost({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'https://gateway.example.com' })).cost,
    ).toBeCloseTo(18, 10);
  });
});
