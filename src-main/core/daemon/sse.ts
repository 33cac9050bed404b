/**
 * Server-sent events on a node:http response: the headers, one frame per event, a comment line now
 * and then so proxies and idle timers keep the stream open, and a cap on how much may pile up unsent
 * for a client that stopped reading (it is cut off and can reconnect with Last-Event-ID).
 */
import type { ServerResponse } from 'node:http';

export const SSE_KEEPALIVE_MS = 15_000;
/** Unsent bytes a slow client may accumulate before it is disconnected. */
export const SSE_MAX_BACKLOG = 4 * 1024 * 1024;
/**
 * Frames written within this many milliseconds of each other leave in one write. A run streams many
 * small events (text deltas arrive a few characters at a time); one system call each was a large part
 * of the daemon's CPU under load, and 5 ms is far below what a reader of streamed text can notice.
 */
export const SSE_COALESCE_MS = 5;

export function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.socket?.setNoDelay(true);
  // The headers and whatever this turn of the event loop writes after them (session_start) go at once.
  res.cork();
  process.nextTick(() => res.uncork());
  res.flushHeaders();
}

/** Holds the frames back for SSE_COALESCE_MS unless a flush is already pending. */
function coalesce(res: ServerResponse): void {
  if (res.writableCorked > 0) return;
  res.cork();
  setTimeout(() => res.uncork(), SSE_COALESCE_MS);
}

/** `event:` + optional `id:` + `data:` lines; the data is JSON and so never holds a raw newline. */
export function sseFrame(type: string, json: string, id?: string): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}event: ${type}\ndata: ${json}\n\n`;
}

/** Writes a frame; false (and the stream is ended) when the client is too far behind. */
export function writeSse(res: ServerResponse, frame: string): boolean {
  if (res.writableEnded || res.destroyed) return false;
  if (res.writableLength > SSE_MAX_BACKLOG) {
    res.destroy();
    return false;
  }
  coalesce(res);
  res.write(frame);
  return true;
}

/**
 * Sends a comment on the stream at least every `ms` until the returned stop function is called. One
 * timer per interval length serves every open stream (a daemon streaming fifty runs keeps one, not
 * fifty set up and torn down with each message); a stream may get its first comment sooner than `ms`.
 */
export function keepAlive(res: ServerResponse, ms = SSE_KEEPALIVE_MS): () => void {
  let ticker = tickers.get(ms);
  if (!ticker) {
    const streams = new Set<ServerResponse>();
    const timer = setInterval(() => {
      for (const r of streams) writeSse(r, ': keepalive\n\n');
    }, ms);
    timer.unref();
    ticker = { streams, timer };
    tickers.set(ms, ticker);
  }
  const t = ticker;
  t.streams.add(res);
  return () => {
    if (!t.streams.delete(res) || t.streams.size > 0) return;
    clearInterval(t.timer);
    if (tickers.get(ms) === t) tickers.delete(ms);
  };
}

/** The shared keep-alive timers, by interval, with the streams each one serves. */
const tickers = new Map<number, { streams: Set<ServerResponse>; timer: NodeJS.Timeout }>();
