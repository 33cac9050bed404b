import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAX_JSON_DEPTH,
  jsonDepthExceeds,
  parseJson,
  readBody,
  setBodyDeadline,
} from '../../../src-main/core/daemon/httpBody.js';
import { HttpError } from '../../../src-main/core/daemon/httpError.js';

let server: Server | undefined;
afterEach(() => server?.close());

/** A server whose handler reads the body with `limit` and hands the outcome to the test. */
function serve(limit: number, bodyTimeoutMs?: number): Promise<{ port: number; outcome: Promise<Buffer | HttpError> }> {
  let settle!: (v: Buffer | HttpError) => void;
  const outcome = new Promise<Buffer | HttpError>((ok) => (settle = ok));
  server = createServer((req, res) => {
    if (bodyTimeoutMs !== undefined) setBodyDeadline(req, bodyTimeoutMs);
    readBody(req, limit).then(
      (b) => {
        settle(b);
        res.end('ok');
      },
      (e: HttpError) => {
        settle(e);
        res.statusCode = e.status ?? 500;
        res.end();
      },
    );
  });
  return new Promise((ok) =>
    server!.listen(0, '127.0.0.1', () => ok({ port: (server!.address() as AddressInfo).port, outcome })),
  );
}

/** Writes raw HTTP in pieces, with a pause between them so they arrive as separate reads. */
async function rawRequest(port: number, pieces: string[], end = true): Promise<void> {
  const sock = connect(port, '127.0.0.1');
  sock.on('error', () => undefined);
  await new Promise<void>((ok) => sock.once('connect', () => ok()));
  for (const p of pieces) {
    sock.write(p);
    await new Promise((ok) => setTimeout(ok, 20));
  }
  if (end) sock.end();
  else sock.destroy();
}

describe('readBody', () => {
  it('joins a body that arrives in several pieces', async () => {
    const { port, outcome } = await serve(1024);
    await rawRequest(port, ['POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello', ' wor', 'ld']);
    expect(((await outcome) as Buffer).toString()).toBe('hello world');
  });

  it('refuses a chunked body once it grows past the limit, with no length announced', async () => {
    const { port, outcome } = await serve(8);
    const chunk = (s: string) => `${s.length.toString(16)}\r\n${s}\r\n`;
    await rawRequest(port, [
      'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
      chunk('12345'),
      chunk('67890'),
      '0\r\n\r\n',
    ]);
    const e = (await outcome) as HttpError;
    expect(e).toBeInstanceOf(HttpError);
    expect(e.code).toBe('body_too_large');
  });

  it('fails, rather than waiting for ever, when the client goes away mid-body', async () => {
    const { port, outcome } = await serve(1024);
    await rawRequest(port, ['POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npartial'], false);
    const e = (await outcome) as HttpError;
    expect(e).toBeInstanceOf(HttpError);
    expect(e.code).toBe('body_incomplete');
  });

  it('answers 408 body_timeout when the body has not arrived by its deadline', async () => {
    const { port, outcome } = await serve(1024, 150);
    // A client that keeps the connection open and sends a byte now and then, never the whole body.
    const sock = connect(port, '127.0.0.1');
    sock.on('error', () => undefined);
    sock.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nslow');
    const drip = setInterval(() => sock.write('.'), 40);
    const e = (await outcome) as HttpError;
    clearInterval(drip);
    sock.destroy();
    expect(e).toBeInstanceOf(HttpError);
    expect(e.status).toBe(408);
    expect(e.code).toBe('body_timeout');
  });

  it('does not time out a body that arrives in time', async () => {
    const { port, outcome } = await serve(1024, 2_000);
    await rawRequest(port, ['POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhe', 'llo']);
    expect(((await outcome) as Buffer).toString()).toBe('hello');
  });
});

describe('parseJson', () => {
  const nest = (n: number, open = '[', close = ']') => `${open.repeat(n)}${close.repeat(n)}`;
  it('refuses arrays and objects nested deeper than the limit, before parsing', () => {
    expect(jsonDepthExceeds(nest(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(jsonDepthExceeds(nest(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(() => parseJson(nest(50_000))).toThrow(/deeper than 64/);
    expect(() => parseJson(`${'{"a":'.repeat(100)}1${'}'.repeat(100)}`)).toThrow(HttpError);
    expect(parseJson(nest(10))).toBeInstanceOf(Array);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ text: `${'['.repeat(500)} "quoted \\" ${'{'.repeat(500)}` });
    expect(jsonDepthExceeds(text, 2)).toBe(false);
    expect(parseJson(text)).toMatchObject({ text: expect.stringContaining('[[[') });
  });
});
