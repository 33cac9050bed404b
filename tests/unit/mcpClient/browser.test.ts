/**
 * core/mcpClient/browser.ts: a sign-in without a browser prints the authorization URL for the person and never
 * requests it itself, even from an authorization server that grants at once (the fake one does: a
 * fetch of the URL alone would sign in with nobody having looked at the page).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { browserOpener } from '../../../src-main/core/mcpClient/browser.js';
import { memoryTokenStore, signIn } from '../../../src-main/core/mcpClient/oauth.js';
import { followAuthorization, startFakeMcpOAuth, type FakeOAuth } from '../../support/fakeMcpOAuth.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

let fake: FakeOAuth | undefined;
let server: Server | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A loopback server that counts the requests it gets: an authorization endpoint and a callback. */
async function countingServer(): Promise<{ base: string; requests: string[] }> {
  const requests: string[] = [];
  server = createServer((req, res) => {
    requests.push(req.url ?? '');
    res
      .writeHead(302, { location: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/callback?code=x` })
      .end();
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

const output = () => {
  const lines: string[] = [];
  return { lines, out: { write: (t: string) => lines.push(t) } };
};

describe('signing in without a browser', () => {
  // $BROWSER commands that cannot open anything, so no platform opener is tried on any machine.
  it.each([
    ['a $BROWSER that fails', 'false'],
    ['a $BROWSER that is not installed', '/nonexistent/browser:/also/missing %s'],
  ])('%s: the URL is printed for the person, and nothing requests it', async (_label, BROWSER) => {
    const { base, requests } = await countingServer();
    const url = new URL(
      `${base}/authorize?response_type=code&client_id=c&redirect_uri=${encodeURIComponent(`${base}/callback`)}&state=s`,
    );
    const { lines, out } = output();
    await browserOpener({ BROWSER }, out)(url);
    expect(requests).toEqual([]);
    const text = lines.join('');
    expect(text).toMatch(/No browser could be started\. To sign in, open this address in a browser/);
    expect(text.split(url.href).length - 1).toBe(2);
  });

  it.skipIf(process.platform !== 'linux')('no $BROWSER and no display (Linux): printed, not fetched', async () => {
    const { base, requests } = await countingServer();
    const url = new URL(`${base}/authorize?redirect_uri=${encodeURIComponent(`${base}/callback`)}`);
    const { lines, out } = output();
    await browserOpener({ PATH: process.env.PATH }, out)(url);
    expect(requests).toEqual([]);
    expect(lines.join('')).toContain(url.href);
  });

  it('a whole sign-in waits for the person to open the printed URL, even when the server would grant at once', async () => {
    fake = await startFakeMcpOAuth();
    const { lines, out } = output();
    let printed!: (u: URL) => void;
    const shown = new Promise<URL>((r) => (printed = r));
    const opener = browserOpener({ BROWSER: 'false' }, out);
    const flow = signIn({
      serverUrl: new URL(fake.url),
      store: memoryTokenStore(),
      open: async (u) => {
        await opener(u);
        printed(u);
      },
      timeoutMs: 20_000,
    });
    const url = await shown;
    expect(lines.join('')).toContain(url.href);
    // Rein itself has not been to the authorization endpoint: nothing is granted yet.
    expect(fake.authorizations).toEqual([]);
    expect(fake.tokenRequests).toBe(0);
    // The person opens it.
    await followAuthorization(url);
    await flow;
    expect(fake.authorizations).toHaveLength(1);
    expect(fake.tokenRequests).toBe(1);
  });
});
