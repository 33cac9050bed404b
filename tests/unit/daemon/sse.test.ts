import { createServer, request, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SSE_COALESCE_MS, sseFrame, startSse, writeSse } from '../../../src-main/core/daemon/sse.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
  server = undefined;
});

/**
 * Serves one SSE response written by `script`; resolves with what a raw TCP client read, one string
 * per read (an HTTP client would split the body by chunked-encoding chunk, hiding how it was written).
 */
async function serve(script: (res: ServerResponse) => Promise<void>): Promise<string[]> {
  server = createServer((_req, res) => void script(res).then(() => res.end()));
  await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
    );
    const reads: string[] = [];
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => {
      reads.push(c);
      // The last chunk of a chunked body: the response is complete.
      if (reads.join('').endsWith('\r\n0\r\n\r\n')) {
        socket.destroy();
        resolve(reads);
      }
    });
    socket.on('error', reject);
  });
}

/** The SSE frames in what was read (chunk-size lines and headers left out). */
const framesIn = (text: string) => text.match(/event: [a-z_]+\ndata: [^\n]*\n\n/g) ?? [];

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

describe('SSE writes', () => {
  it('sends frames that follow each other closely in one write, and each frame whole', async () => {
    const chunks = await serve(async (res) => {
      startSse(res);
      writeSse(res, sseFrame('session_start', '{"n":0}'));
      await sleep(SSE_COALESCE_MS * 4);
      // Separate turns of the event loop, well inside the window (a 1 ms timer could fire past it on a loaded machine).
      for (let i = 1; i <= 3; i++) {
        writeSse(res, sseFrame('text_delta', `{"n":${i}}`));
        await new Promise((ok) => setImmediate(ok));
      }
      await sleep(SSE_COALESCE_MS * 4);
    });
    expect(framesIn(chunks.join(''))).toEqual(
      ['session_start', 'text_delta', 'text_delta', 'text_delta'].map((t, n) => sseFrame(t, `{"n":${n}}`)),
    );
    // The headers and the first frame went out at once; the three deltas, written in three turns, in one read.
    const withDeltas = chunks.filter((c) => framesIn(c).some((f) => f.startsWith('event: text_delta')));
    expect(withDeltas).toHaveLength(1);
    expect(framesIn(withDeltas[0]!)).toHaveLength(3);
  });

  it('does not hold the first frame back: the client has it before the server writes anything else', async () => {
    let firstSeen!: () => void;
    const seen = new Promise<void>((ok) => (firstSeen = ok));
    let waitedOut = false;
    server = createServer((_req, res) => {
      startSse(res);
      writeSse(res, sseFrame('session_start', '{}'));
      // Nothing else is written until the client reports the first frame (or 2 s pass, which fails below).
      void Promise.race([seen, sleep(2_000).then(() => (waitedOut = true))]).then(() => res.end());
    });
    await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (c: string) => c.includes('session_start') && firstSeen());
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end();
    });
    expect(waitedOut).toBe(false);
  });
});

describe('SSE keep-alive', () => {
  it('comments on every open stream within the interval, stops on the ones closed, and leaves no timer behind', async () => {
    const { keepAlive } = await import('../../../src-main/core/daemon/sse.js');
    const written = new Map<string, string[]>();
    const fakeRes = (name: string) => {
      written.set(name, []);
      return {
        writableEnded: false,
        destroyed: false,
        writableLength: 0,
        writableCorked: 1,
        write: (f: string) => written.get(name)!.push(f),
      } as unknown as ServerResponse;
    };
    const a = fakeRes('a');
    const b = fakeRes('b');
    const stopA = keepAlive(a, 20);
    const stopB = keepAlive(b, 20);
    await sleep(50);
    expect(written.get('a')!.length).toBeGreaterThanOrEqual(1);
    expect(written.get('b')!.length).toBeGreaterThanOrEqual(1);
    expect(written.get('a')!.every((f) => f === ': keepalive\n\n')).toBe(true);
    stopA();
    stopA(); // a second stop is harmless
    const before = { a: written.get('a')!.length, b: written.get('b')!.length };
    await sleep(50);
    expect(written.get('a')!.length).toBe(before.a);
    expect(written.get('b')!.length).toBeGreaterThan(before.b);
    const cleared = vi.spyOn(globalThis, 'clearInterval');
    stopB();
    expect(cleared).toHaveBeenCalledTimes(1); // the last stream gone: its timer with it
    const started = vi.spyOn(globalThis, 'setInterval');
    const stops = [fakeRes('c'), fakeRes('d')].map((r) => keepAlive(r, 20));
    expect(started).toHaveBeenCalledTimes(1); // one timer for both
    for (const stop of stops) stop();
    expect(cleared).toHaveBeenCalledTimes(2);
    vi.restoreAllMocks();
  });
});
