/**
 * The WebSocket answers every client frame exactly once (issue 25): a message whose run cannot start —
 * no API key and no base URL, a runtime that cannot be built — gets its one reply, and the failure
 * reaches the route as `error` + `session_end` events and a `result` frame, never as a second reply with
 * the same ref (the page waits on the first and dropped the second, so it hung on "Starting…"). Real
 * daemon in process, real sockets, the fake Messages API.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ReinError } from '../../../src-main/core/errors.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { useLeakCheck } from '../../support/leaks.js';
import { openWs, startTestDaemon, type TestDaemon, type WsClient } from './support.js';

useLeakCheck();

let fake: FakeAnthropic | undefined;
const daemons: TestDaemon[] = [];

afterEach(async () => {
  for (const d of daemons.splice(0)) await d.daemon.dispose();
  await fake?.close();
  fake = undefined;
});

async function daemon(opts: Parameters<typeof startTestDaemon>[1] = {}): Promise<TestDaemon> {
  fake ??= await startFakeAnthropic();
  const d = await startTestDaemon(fake, opts);
  daemons.push(d);
  return d;
}

const replies = (ws: WsClient, ref: string) => ws.frames.filter((f) => f.frame === 'reply' && f.ref === ref);
/** Waits for one more frame than seen so far to be sure nothing else with `ref` is on its way: a cancel's reply. */
async function settle(ws: WsClient): Promise<void> {
  ws.send({ type: 'cancel', ref: 'fence', route: 'nothing:here' });
  await ws.next((f) => f.frame === 'reply' && f.ref === 'fence');
}

describe('WebSocket: one reply per ref', () => {
  it('a message with no key and no base URL: accepted once, then error + session_end on the route and a result frame with the error', async () => {
    const d = await daemon({ daemon: { env: {} } });
    const ws = await openWs(d);
    ws.send({ type: 'message', ref: 'm1', text: 'hello?', source: 'web', channel: 'tab1' });
    const end = await ws.next(
      (f) => f.frame === 'event' && f.event.type === 'session_end' && f.event.route === 'web:tab1',
      'session_end',
    );
    const error = ws.frames.find(
      (f) => f.frame === 'event' && f.event.type === 'error' && f.event.route === 'web:tab1',
    );
    expect(error.event).toMatchObject({ code: 'no_api_key', session_id: '', seq: 0 });
    expect(error.event.message).toMatch(/rein auth set-key/);
    expect(end.event).toMatchObject({ stop_reason: 'error', session_id: '', seq: 1, iterations: 0 });
    const result = await ws.next((f) => f.frame === 'result' && f.ref === 'm1', 'result');
    expect(result).toMatchObject({ ok: false, status: 503, code: 'no_api_key' });
    await settle(ws);
    expect(replies(ws, 'm1')).toEqual([
      { frame: 'reply', ref: 'm1', ok: true, result: { accepted: true, injected: false, route: 'web:tab1' } },
    ]);
    // The error came before the end, and no session was announced.
    expect(ws.frames.indexOf(error)).toBeLessThan(ws.frames.indexOf(end));
    expect(ws.frames.some((f) => f.frame === 'event' && f.event.type === 'session_start')).toBe(false);
    ws.close();
  });

  it('another client on the same daemon hears the failure too (the desktop window, a second tab)', async () => {
    const d = await daemon({ daemon: { env: {} } });
    const watcher = await openWs(d);
    const sender = await openWs(d);
    sender.send({ type: 'message', ref: 'x', text: 'hi', source: 'web', channel: 'tab2' });
    const seen = await watcher.next(
      (f) => f.frame === 'event' && f.event.type === 'error' && f.event.route === 'web:tab2',
      'error',
    );
    expect(seen.event.code).toBe('no_api_key');
    await watcher.next(
      (f) => f.frame === 'event' && f.event.type === 'session_end' && f.event.route === 'web:tab2',
      'session_end',
    );
    // Only the sender gets replies and results for its refs.
    expect(watcher.frames.filter((f) => f.frame === 'reply' || f.frame === 'result')).toEqual([]);
    watcher.close();
    sender.close();
  });

  it("a run whose runtime cannot be built: one reply, the run's own error and session_end, an ok result", async () => {
    const d = await daemon({
      daemon: {
        createRuntime: async () => {
          throw new ReinError('config_invalid', 'tools.allowed: unknown tool "nope"');
        },
      },
    });
    const ws = await openWs(d);
    ws.send({ type: 'message', ref: 'm2', text: 'hi', source: 'web', channel: 'tab3' });
    const result = await ws.next((f) => f.frame === 'result' && f.ref === 'm2', 'result');
    expect(result).toMatchObject({ ok: true, result: { stop_reason: 'error', error: { code: 'config_invalid' } } });
    await settle(ws);
    expect(replies(ws, 'm2')).toHaveLength(1);
    expect(replies(ws, 'm2')[0]).toMatchObject({ ok: true, result: { accepted: true } });
    const types = ws.frames.filter((f) => f.frame === 'event' && f.event.route === 'web:tab3').map((f) => f.event.type);
    expect(types).toEqual(['session_start', 'error', 'session_end']);
    ws.close();
  });

  it('a refused frame gets one error reply, and a good run still exactly one reply', async () => {
    const d = await daemon();
    const ws = await openWs(d);
    ws.send({ type: 'message', ref: 'nope', text: 'hi', agent: 'nobody' });
    expect(await ws.next((f) => f.frame === 'reply' && f.ref === 'nope')).toMatchObject({
      ok: false,
      status: 404,
      code: 'agent_not_found',
    });
    fake!.enqueue(text('fine'));
    ws.send({ type: 'message', ref: 'ok', text: 'hi', source: 'web', channel: 'tab4' });
    expect(await ws.next((f) => f.frame === 'result' && f.ref === 'ok')).toMatchObject({
      ok: true,
      result: { text: 'fine', stop_reason: 'final' },
    });
    await settle(ws);
    expect(replies(ws, 'nope')).toHaveLength(1);
    expect(replies(ws, 'ok')).toHaveLength(1);
    ws.close();
  });
});
