/**
 * Calls to the daemon's HTTP API from inside the same process, on loopback with its token. The shell
 * uses it for the operations whose only implementation is an HTTP handler (agents, sessions, skills,
 * settings, status); failures come back as DaemonCallError with the daemon's own code and field, so
 * the page sees the same error over IPC as over HTTP.
 */

import type { HttpCall } from '../api/daemonCalls.js';

export type { HttpCall };

export class DaemonCallError extends Error {
  override readonly name = 'DaemonCallError';
  constructor(
    message: string,
    readonly code: string,
    readonly status: number,
    readonly field?: string,
  ) {
    super(message);
  }
}

export interface LoopbackTarget {
  /** `http://127.0.0.1:<port>` */
  url: string;
  token(): string;
}

export type LoopbackCall = (call: HttpCall) => Promise<unknown>;

export function loopbackClient(target: LoopbackTarget, timeoutMs = 30_000): LoopbackCall {
  return async ({ method, path, body }) => {
    if (!path.startsWith('/')) throw new DaemonCallError(`not a daemon path: ${path}`, 'invalid_input', 0);
    const res = await fetch(`${target.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${target.token()}`,
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    // A daemon without the endpoint may answer a path outside its API with its web UI's index.html.
    if (res.ok && !/\bapplication\/json\b/.test(res.headers.get('content-type') ?? '') && text !== '') {
      throw new DaemonCallError(`${method} ${path}: this daemon has no such endpoint`, 'unsupported', 404);
    }
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new DaemonCallError(`${method} ${path}: the daemon answered ${res.status} with something that is not JSON`, 'internal', res.status);
    }
    if (!res.ok) {
      const err = (json ?? {}) as { error?: unknown; code?: unknown; field?: unknown };
      throw new DaemonCallError(
        typeof err.error === 'string' ? err.error : `${method} ${path}: HTTP ${res.status}`,
        typeof err.code === 'string' ? err.code : res.status === 404 ? 'not_found' : 'internal',
        res.status,
        typeof err.field === 'string' ? err.field : undefined,
      );
    }
    return json;
  };
}
