/**
 * A model server that cannot be reached is named: the run's error and the settings' "Test connection"
 * say which address failed and what the socket said, instead of the SDK's bare "Connection error.".
 * Real sockets on loopback: a port nobody listens on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { isReinError } from '../../../src-main/core/errors.js';
import { AnthropicLlm, describeBaseUrl, type ModelRequest } from '../../../src-main/core/llm/client.js';
import { testModelConnection } from '../../../src-main/core/service/connectionTest.js';

const request: ModelRequest = {
  model: 'claude-test',
  maxTokens: 16,
  system: [{ type: 'text', text: 'x' }],
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
};

let url: string;
let home: string;
beforeAll(async () => {
  // A port that was free a moment ago: connecting to it is refused.
  const probe = net.createServer();
  await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((ok) => probe.close(() => ok()));
  home = await mkdtemp(join(tmpdir(), 'rein-conn-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('connection errors name the address', () => {
  it("a run's model call: every retry and the final error say which URL could not be reached, and why", async () => {
    const llm = new AnthropicLlm({ apiKey: 'k', baseURL: url, maxAttempts: 2, sleep: async () => undefined });
    const events: unknown[] = [];
    const gen = llm.turn(request, new AbortController().signal);
    const err = await (async () => {
      for (;;) {
        const step = await gen.next();
        if (step.done) return undefined;
        events.push(step.value);
      }
    })().catch((e: unknown) => e);
    expect(isReinError(err, 'llm_failed')).toBe(true);
    expect((err as Error).message).toBe(
      `LLM call failed after 2 attempts: connection error: could not reach ${url} (ECONNREFUSED)`,
    );
    expect(events).toEqual([
      expect.objectContaining({ type: 'retry', reason: `connection error: could not reach ${url} (ECONNREFUSED)` }),
    ]);
  });

  it('Test connection in Settings: "Cannot reach <url> (ECONNREFUSED)"', async () => {
    const r = await testModelConnection({ base_url: url }, { env: {}, config: GlobalConfig.parse({}), home });
    expect(r).toMatchObject({ ok: false, code: 'unreachable' });
    expect(r.message).toBe(`Cannot reach ${url} (ECONNREFUSED): is the server running, and is the address right?`);
  });

  it('the address shown never carries credentials, a query or a fragment', () => {
    expect(describeBaseUrl('https://user:s3cret@gateway.example.com/anthropic/?key=abc#x')).toBe(
      'https://gateway.example.com/anthropic/',
    );
    expect(describeBaseUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(describeBaseUrl(undefined)).toBe('https://api.anthropic.com');
  });
});
