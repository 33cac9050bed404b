/**
 * One request to the local daemon from another Rein process (the CLI handing a scheduled run to the
 * running daemon, `rein changes`): loopback, the token from daemon.json, JSON both ways. `agent: false`, so no idle
 * keep-alive socket keeps the caller alive afterwards.
 */
import { request } from 'node:http';
import type { DaemonInfo } from './daemonFile.js';

export interface DaemonAnswer {
  status: number;
  json: unknown;
}

/**
 * `timeoutMs` 0 waits as long as the daemon takes (a run handed over may take minutes); `signal` stops
 * waiting (the request is destroyed and the promise rejects).
 */
export function daemonRequest(
  info: Pick<DaemonInfo, 'port' | 'token'>,
  method: string,
  path: string,
  body?: unknown,
  opts: { timeoutMs?: number; signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<DaemonAnswer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: info.port,
        method,
        path,
        agent: false,
        ...(opts.signal ? { signal: opts.signal } : {}),
        headers: {
          ...opts.headers,
          authorization: `Bearer ${info.token}`,
          accept: 'application/json',
          ...(text !== undefined
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }
            : {}),
        },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (data += c));
        res.on('end', () => {
          let json: unknown;
          try {
            json = data === '' ? undefined : JSON.parse(data);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
        res.on('error', reject);
      },
    );
    if (timeoutMs > 0)
      req.setTimeout(timeoutMs, () =>
        req.destroy(new Error(`the daemon did not answer within ${Math.round(timeoutMs / 1000)} s`)),
      );
    req.on('error', reject);
    req.end(text);
  });
}
