/**
 * A daemon started without ANTHROPIC_API_KEY (as at login, from launchd or the Finder) uses the key
 * stored on its machine (core/secrets/apiKey.ts), and one stored by another process after it started
 * — `rein auth set-key` in a terminal — reaches its runs without a restart, once its "no key" answer
 * is a few seconds old. Its settings view says where the key comes from.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, text, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { eventually, http, startTestDaemon, type TestDaemon } from './support.js';

const KEY = 'sk-ant-api03-stored-while-the-daemon-ran-0123';

let fake: FakeAnthropic;
let d: TestDaemon;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  fake.fallback = () => text('ok');
  // No key and no session bus in its environment: the stored key is the 0600 file.
  d = await startTestDaemon(fake, { config: { base_url: fake.url }, daemon: { env: { REIN_RETRY_BASE_MS: '1' } } });
});
afterEach(async () => {
  await d.daemon.dispose();
  await fake.close();
});

const keyOf = (i: number) => {
  const h = fake.requests[i]!.headers;
  return h['x-api-key'] ?? String(h.authorization ?? '').replace(/^Bearer /, '');
};

describe('the daemon and the stored key', () => {
  it('picks up a key another process stores after it started, and reports where it comes from', async () => {
    const first = await http(d, 'POST', '/message', { body: { text: 'hello' } });
    expect(first.status, first.text).toBe(200);
    // No key anywhere, a loopback server: tried without one.
    expect(keyOf(0)).toBe('local');
    expect((await http(d, 'GET', '/settings')).json.api_key).toMatchObject({ present: false, source: null });

    // What `rein auth set-key` leaves behind where no Secret Service runs (another process: this one's cache is not told).
    await mkdir(join(d.home, 'secrets'), { recursive: true, mode: 0o700 });
    await writeFile(join(d.home, 'secrets', 'anthropic-api-key'), `${KEY}\n`, { mode: 0o600 });

    await eventually(async () => {
      const r = await http(d, 'POST', '/message', { body: { text: 'again' } });
      expect(r.status, r.text).toBe(200);
      return keyOf(fake.requests.length - 1) === KEY || undefined;
    }, 250);
    expect((await http(d, 'GET', '/settings')).json.api_key).toMatchObject({
      present: true,
      source: 'file',
      hint: 'sk-ant-…0123',
    });
  });
});
