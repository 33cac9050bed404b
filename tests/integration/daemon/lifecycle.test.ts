/**
 * The daemon owns what it starts and tears it down in reverse order on close: the runs end first (they
 * save), then what embedders handed it (watchers, runners), then event streams and sockets, then the
 * server, then daemon.json and the lock.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, text, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { useLeakCheck } from '../../support/leaks.js';
import { eventually, gate, http, sse, startTestDaemon, type TestDaemon } from './support.js';

useLeakCheck();

let fake: FakeAnthropic;
let d: TestDaemon;

afterEach(async () => {
  await d?.daemon.dispose();
  await fake?.close();
});

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

describe('daemon teardown', () => {
  it('ends the runs, then what it owns (last handed over first), then the streams and the server, then daemon.json', async () => {
    fake = await startFakeAnthropic();
    d = await startTestDaemon(fake);
    const order: string[] = [];
    const release = gate();
    fake.fallback = async () => {
      await release.promise;
      return text('slow answer');
    };
    const run = http(d, 'POST', '/message', { body: { text: 'take your time', channel: 'slow' } });
    await eventually(() => fake.requests.length === 1);
    const events = await sse(d, 'GET', '/events');

    d.daemon.own({
      dispose: async () => {
        order.push(`watcher: runs in flight ${d.daemon.router.running.length}`);
        // The server still answers while what it owns goes.
        const health = await http(d, 'GET', '/health', { token: null });
        order.push(`watcher: health ${health.status}`);
      },
    });
    d.daemon.own({ dispose: () => void order.push('runner (handed over last)') });

    const closing = d.daemon.dispose();
    release.open();
    await closing;
    await events.untilEnd();
    order.push('streams ended');
    expect(order).toEqual([
      'runner (handed over last)',
      'watcher: runs in flight 0',
      'watcher: health 200',
      'streams ended',
    ]);
    expect((await run).status).toBe(200);
    expect(await exists(join(d.home, 'daemon.json'))).toBe(false);
    await expect(http(d, 'GET', '/health', { token: null })).rejects.toThrow();
  });
});
