/**
 * The ReinApi over the daemon's HTTP + WebSocket API, for the page opened in a browser (`rein daemon`
 * serves it and prints its address with the token in the fragment). HTTP calls carry the token as
 * `Authorization: Bearer`; events and messages travel over one WebSocket (see eventSocket.ts).
 */
import {
  reinOperationNames,
  type ApiEvent,
  type ReinApi,
  type ReinOperationName,
} from '../../../src-main/core/api/index.js';
import { httpCalls, type HttpCall } from '../../../src-main/core/api/daemonCalls.js';
import { ApiError } from './apiError.js';
import { checkInput, checkOutput } from './checked.js';
import { EventSocket, type ConnectionState, type SocketFactory } from './eventSocket.js';

export interface DaemonApiOptions {
  /** `http://127.0.0.1:7533` (no trailing slash). */
  baseUrl: string;
  token: string;
  fetch?: typeof fetch;
  /** How to open a WebSocket; the browser's by default. */
  openSocket?: SocketFactory;
  retryDelayMs?(attempt: number): number;
}

export interface DaemonApi extends ReinApi {
  /** Follow the connection: called at once with the current state, then on every change. */
  onConnection(listener: (state: ConnectionState) => void): () => void;
  /** Stops the event socket for good (the page is going away). */
  dispose(): void;
}

export function createDaemonApi(opts: DaemonApiOptions): DaemonApi {
  const base = opts.baseUrl.replace(/\/+$/, '');
  const doFetch = opts.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
  const listeners = new Set<(e: ApiEvent) => void>();
  const stateListeners = new Set<(s: ConnectionState) => void>();

  async function http(call: HttpCall): Promise<unknown> {
    const headers: Record<string, string> = { authorization: `Bearer ${opts.token}`, accept: 'application/json' };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await doFetch(`${base}${call.path}`, {
        method: call.method,
        headers,
        ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw new ApiError('Rein is not reachable: is `rein daemon` still running?', 'offline');
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!res.ok) {
      const b = (body ?? {}) as { error?: string; code?: string; field?: string };
      const code = b.code ?? (res.status === 401 ? 'unauthorized' : 'http_error');
      throw new ApiError(
        b.error ?? `${call.method} ${call.path.split('?')[0]} failed with HTTP ${res.status}`,
        code,
        res.status,
        b.field,
      );
    }
    return body;
  }

  const socket = new EventSocket({
    wsBase: base.replace(/^http/, 'ws'),
    token: opts.token,
    open: opts.openSocket ?? ((url, protocols) => new WebSocket(url, protocols)),
    onEvent: (e) => {
      for (const l of listeners) l(e);
    },
    onState: (s) => {
      for (const l of stateListeners) l(s);
    },
    tokenStillValid: async () => {
      try {
        await http({ method: 'GET', path: '/status' });
        return true;
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) return false;
        throw e;
      }
    },
    ...(opts.retryDelayMs ? { retryDelayMs: opts.retryDelayMs } : {}),
  });

  async function call(name: ReinOperationName, input: unknown): Promise<unknown> {
    const checked = checkInput(name, input);
    if (name === 'sendMessage') {
      const reply = (await socket.request({ type: 'message', ...(checked as object) })) as Record<string, unknown>;
      return checkOutput(name, { ...reply, injected: reply.injected === true });
    }
    if (name === 'openPermissionSettings') {
      throw new ApiError('System Settings can only be opened from the desktop app', 'unsupported');
    }
    const toCall = httpCalls[name] as (input: unknown) => HttpCall;
    const answer = await http(toCall(checked));
    // 202: a change that raises permissions waits for a person (a shell on the daemon's machine, the desktop app); nothing was written.
    if (answer && typeof answer === 'object' && (answer as { pending?: unknown }).pending === true) {
      const p = answer as { message?: unknown; change_id?: unknown; accept_command?: unknown };
      const change_id = typeof p.change_id === 'string' ? p.change_id : undefined;
      const accept_command = typeof p.accept_command === 'string' ? p.accept_command : undefined;
      throw new ApiError(
        typeof p.message === 'string'
          ? p.message
          : "This change raises permissions: it waits for a person to confirm it (`rein changes accept` in a shell on the daemon's machine).",
        'confirmation_pending',
        202,
        undefined,
        change_id ? { change_id, ...(accept_command ? { accept_command } : {}) } : undefined,
      );
    }
    return checkOutput(name, answer);
  }

  const api: Record<string, unknown> = {
    subscribe(listener: (e: ApiEvent) => void) {
      listeners.add(listener);
      socket.start();
      return () => listeners.delete(listener);
    },
    onConnection(listener: (s: ConnectionState) => void) {
      stateListeners.add(listener);
      listener(socket.state);
      return () => stateListeners.delete(listener);
    },
    dispose: () => socket.stop(),
  };
  for (const name of reinOperationNames) api[name] = (input?: unknown) => call(name, input);
  return api as unknown as DaemonApi;
}
