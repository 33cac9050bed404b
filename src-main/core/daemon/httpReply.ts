/** Writing JSON answers and `{error, code}` refusals on a node:http response. */
import type { ServerResponse } from 'node:http';
import { errorBody, type HttpError } from './httpError.js';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}

export function sendError(res: ServerResponse, e: HttpError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // The rest of a body that came too slowly may still be on its way: this connection is done.
  if (e.code === 'body_timeout') res.setHeader('connection', 'close');
  sendJson(res, e.status, errorBody(e));
}
