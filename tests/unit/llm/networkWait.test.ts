/**
 * An unattended run waits for the network (llm/networkWait.ts): a model host that refuses connections
 * (a Mac just awake, no Wi-Fi yet) is tried again with growing pauses until it answers or the wait is
 * used up; an answer from the server (401, 400) never waits; text already streamed is never repeated.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReinError, isReinError } from '../../../src-main/core/errors.js';
import { AnthropicLlm, type LlmClient, type LlmEvent, type ModelRequest } from '../../../src-main/core/llm/client.js';
import {
  networkDownCode,
  networkPauses,
  networkWaitMs,
  waitForNetwork,
} from '../../../src-main/core/llm/networkWait.js';
import { drainTurn } from '../../support/drainRun.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { lateListener, type LateListener } from '../../support/lateListener.js';

let fake: FakeAnthropic;
let late: LateListener;
beforeEach(async () => {
  fake = await startFakeAnthropic();
  late = await lateListener(fake.url);
});
afterEach(async () => {
  await late.close();
  await fake.close();
});

const request: ModelRequest = {
  model: 'claude-sonnet-5-5',
  maxTokens: 256,
  system: [{ type: 'text', text: 'x' }],
  messages: [{ role: 'user', content: 'hi' }],
  tools: [],
};
const client = (baseURL: string) => new AnthropicLlm({ apiKey: 'test-key', baseURL, baseDelayMs: 1 });
const retries = (events: LlmEvent[]) =>
  events.filter((e): e is Extract<LlmEvent, { type: 'retry' }> => e.type === 'retry');

describe('waitForNetwork', () => {
  it('a refused connection: waits, tries again once the host listens, and the turn succeeds', async () => {
    fake.enqueue(text('back online'));
    const pauses: number[] = [];
    // The network comes back during the first pause.
    const sleep = async (ms: number) => {
      pauses.push(ms);
      if (pauses.length === 1) await late.start();
    };
    const { events, response } = await drainTurn(
      waitForNetwork(client(late.url), { totalMs: 180_000, sleep }).turn(request, new AbortController().signal),
    );
    expect(response.content).toEqual([{ type: 'text', text: 'back online' }]);
    expect(pauses).toEqual([2_000]);
    const waits = retries(events).filter((r) => r.reason.startsWith('waiting for the network'));
    expect(waits).toHaveLength(1);
    expect(waits[0]!.reason).toContain('ECONNREFUSED');
    expect(fake.requests).toHaveLength(1);
  });

  it('gives up when the wait is used up, with a message that says so', async () => {
    let clock = 0;
    const sleep = async (ms: number) => void (clock += ms);
    const err = await drainTurn(
      waitForNetwork(client(late.url), { totalMs: 10_000, sleep, now: () => clock }).turn(
        request,
        new AbortController().signal,
      ),
    ).catch((e: unknown) => e);
    expect(isReinError(err, 'llm_failed')).toBe(true);
    expect((err as Error).message).toMatch(/could not be reached \(ECONNREFUSED\) after waiting 10 s for the network/);
    // 2 s, 4 s, then the 4 s left.
    expect(clock).toBe(10_000);
  });

  it('never waits on an answer from the server: 401 and 400 fail at once', async () => {
    for (const status of [401, 400]) {
      fake.enqueue({
        kind: 'error',
        status,
        type: status === 401 ? 'authentication_error' : 'invalid_request_error',
        message: 'no',
      });
      const pauses: number[] = [];
      const err = await drainTurn(
        waitForNetwork(client(fake.url), { totalMs: 180_000, sleep: async (ms) => void pauses.push(ms) }).turn(
          request,
          new AbortController().signal,
        ),
      ).catch((e: unknown) => e);
      expect(err, String(status)).toMatchObject({
        code: 'llm_failed',
        message: expect.stringContaining(`HTTP ${status}`),
      });
      expect(pauses).toEqual([]);
    }
  });

  it('never repeats a turn that already streamed text', async () => {
    const inner: LlmClient = {
      async *turn() {
        yield { type: 'text_delta', text: 'partial' };
        throw new ReinError('llm_failed', 'cut', { network: 'ECONNREFUSED' });
      },
    };
    let slept = false;
    const err = await drainTurn(
      waitForNetwork(inner, { totalMs: 180_000, sleep: async () => void (slept = true) }).turn(
        request,
        new AbortController().signal,
      ),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ message: 'cut' });
    expect(slept).toBe(false);
  });

  it('a cancel while waiting ends the turn as cancelled', async () => {
    const ac = new AbortController();
    const sleep = (_ms: number, signal: AbortSignal) =>
      new Promise<void>((_ok, bad) => {
        signal.addEventListener('abort', () => bad(signal.reason));
        ac.abort(new Error('stopped by SIGTERM'));
      });
    const err = await drainTurn(
      waitForNetwork(client(late.url), { totalMs: 180_000, sleep }).turn(request, ac.signal),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'llm_cancelled' });
  });
});

describe('what counts as the network being down', () => {
  it('reads the code through causes and the addresses an AggregateError tried', () => {
    expect(
      networkDownCode(new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ENOTFOUND' }) })),
    ).toBe('ENOTFOUND');
    expect(
      networkDownCode(
        new Error('x', { cause: new AggregateError([Object.assign(new Error('a'), { code: 'EHOSTUNREACH' })]) }),
      ),
    ).toBe('EHOSTUNREACH');
    expect(networkDownCode(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBeUndefined();
    expect(networkDownCode(new Error('plain'))).toBeUndefined();
  });

  it('pauses 2 s, doubling, at most a minute apart, for 3 minutes by default; REIN_NETWORK_WAIT_MS sets it', () => {
    expect(networkPauses(180_000)).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 58_000]);
    expect(networkWaitMs({})).toBe(180_000);
    expect(networkWaitMs({ REIN_NETWORK_WAIT_MS: '500' })).toBe(500);
    expect(networkWaitMs({ REIN_NETWORK_WAIT_MS: '0' })).toBe(0);
  });
});
