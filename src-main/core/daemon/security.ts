/**
 * The daemon's gatekeeping, as pure functions over request headers so a table of cases pins every
 * refusal. The HTTP, SSE and WebSocket adapters only call `checkRequest`; none of them decides on
 * its own.
 *
 * Why each check exists:
 * - Host: a web page on evil.example can make its own name resolve to 127.0.0.1 (DNS rebinding) and
 *   then talk to us "same-origin"; its requests still carry `Host: evil.example`, so we refuse them.
 * - Origin: a browser adds it to cross-origin requests (and to every WebSocket handshake); only our
 *   own origin and the embedding desktop app's may call. Non-browser clients send none.
 * - Token: everything but `/health` and the static UI needs the bearer token from daemon.json.
 *   Browsers cannot set headers on a WebSocket, so there it rides in `Sec-WebSocket-Protocol`. A token
 *   in the query string is refused outright: URLs end up in logs, history and Referer headers.
 */
import { timingSafeEqual } from 'node:crypto';
import { LOOPBACK_HOST_NAMES, WILDCARD_HOSTS } from '../util/loopback.js';

export type CheckResult = { ok: true } | { ok: false; status: number; code: string; message: string };

export const OK: CheckResult = { ok: true };

const refuse = (status: number, code: string, message: string): CheckResult => ({ ok: false, status, code, message });

/** The WebSocket subprotocol every client asks for; the daemon answers with it. */
export const WS_PROTOCOL = 'rein.v1';
/** Prefix of the subprotocol entry carrying the token: `token.<token>`. */
export const WS_TOKEN_PREFIX = 'token.';

export interface SecurityPolicy {
  /** The port the daemon listens on (Host must name it). */
  port: number;
  /** Host names (without port) a request may address: loopback names, plus an explicit --host. */
  hostNames: readonly string[];
  /** Browser origins allowed besides our own (the desktop app's, a dev server…). */
  extraOrigins: readonly string[];
  /** The current token. */
  token: string;
}

export interface RequestFacts {
  /** Header values as node:http gives them (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  /** The request target (path + query) as received. */
  url: string;
  /** Static UI files and /health need no token; Host and Origin are still checked. */
  isPublic: boolean;
  /** A WebSocket upgrade: the token may come in Sec-WebSocket-Protocol. */
  isWebSocket: boolean;
}

export const LOOPBACK_NAMES = LOOPBACK_HOST_NAMES;

export function checkRequest(policy: SecurityPolicy, req: RequestFacts): CheckResult {
  const host = checkHost(policy, header(req.headers, 'host'));
  if (!host.ok) return host;
  const origin = checkOrigin(policy, header(req.headers, 'origin'));
  if (!origin.ok) return origin;
  const query = checkNoTokenInQuery(req.url);
  if (!query.ok) return query;
  if (req.isPublic) return OK;
  return checkToken(
    policy.token,
    bearerToken(header(req.headers, 'authorization')) ??
      (req.isWebSocket ? tokenFromSubprotocols(header(req.headers, 'sec-websocket-protocol')) : undefined),
  );
}

/** `Host` must be one of our names with our port (HTTP/1.1 requires the header; absent = refused). */
export function checkHost(policy: Pick<SecurityPolicy, 'port' | 'hostNames'>, host: string | undefined): CheckResult {
  if (!host) return refuse(403, 'host_refused', 'missing Host header');
  const parsed = splitHostPort(host.trim().toLowerCase());
  if (!parsed) return refuse(403, 'host_refused', `Host "${host}" is not valid`);
  const port = parsed.port ?? 80;
  if (port !== policy.port || !policy.hostNames.includes(parsed.name)) {
    return refuse(403, 'host_refused', `Host "${host}" is not this daemon (DNS rebinding defence)`);
  }
  return OK;
}

/** No Origin (curl, scripts, the desktop main process) is fine; a browser origin must be ours. */
export function checkOrigin(
  policy: Pick<SecurityPolicy, 'port' | 'hostNames' | 'extraOrigins'>,
  origin: string | undefined,
): CheckResult {
  if (origin === undefined) return OK;
  const o = origin.trim().toLowerCase();
  if (ownOrigins(policy).includes(o) || policy.extraOrigins.some((x) => x.toLowerCase() === o)) return OK;
  return refuse(403, 'origin_refused', `Origin "${origin}" may not call this daemon`);
}

export function ownOrigins(policy: Pick<SecurityPolicy, 'port' | 'hostNames'>): string[] {
  return policy.hostNames.map((name) => `http://${name}:${policy.port}`);
}

/** Any token-looking query parameter is a refusal, even a correct one: it is already leaked. */
export function checkNoTokenInQuery(url: string): CheckResult {
  const q = url.indexOf('?');
  if (q < 0) return OK;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of params.keys()) {
    if (/^(token|access_token|auth|authorization|api_key|key)$/i.test(key)) {
      return refuse(
        400,
        'token_in_query',
        'tokens are never accepted in the query string; send Authorization: Bearer <token>',
      );
    }
  }
  return OK;
}

export function checkToken(expected: string, presented: string | undefined): CheckResult {
  if (presented === undefined)
    return refuse(401, 'unauthorized', 'missing token: send Authorization: Bearer <token> (see daemon.json)');
  if (!sameSecret(expected, presented)) return refuse(401, 'unauthorized', 'wrong token');
  return OK;
}

export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return m ? m[1] : undefined;
}

/** `Sec-WebSocket-Protocol: rein.v1, token.<token>` → the token. */
export function tokenFromSubprotocols(value: string | undefined): string | undefined {
  if (!value) return undefined;
  for (const part of value.split(',')) {
    const p = part.trim();
    if (p.startsWith(WS_TOKEN_PREFIX) && p.length > WS_TOKEN_PREFIX.length) return p.slice(WS_TOKEN_PREFIX.length);
  }
  return undefined;
}

/** Constant-time comparison, so response timing does not reveal how much of a guess was right. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  if (x.length !== y.length) {
    timingSafeEqual(x, x);
    return false;
  }
  return timingSafeEqual(x, y);
}

function header(headers: RequestFacts['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function splitHostPort(host: string): { name: string; port?: number } | undefined {
  let name: string;
  let rest: string;
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end < 0) return undefined;
    name = host.slice(0, end + 1);
    rest = host.slice(end + 1);
  } else {
    const colon = host.indexOf(':');
    name = colon < 0 ? host : host.slice(0, colon);
    rest = colon < 0 ? '' : host.slice(colon);
  }
  if (!name) return undefined;
  if (rest === '') return { name };
  if (!/^:\d{1,5}$/.test(rest)) return undefined;
  return { name, port: Number(rest.slice(1)) };
}

/** Host names a daemon bound to `bindHost` answers to: always the loopback names, plus the bind address. */
export function hostNamesFor(bindHost: string): string[] {
  const names: string[] = [...LOOPBACK_NAMES];
  const h = bindHost.toLowerCase();
  const bracketed = h.includes(':') && !h.startsWith('[') ? `[${h}]` : h;
  if (!(LOOPBACK_HOST_NAMES as readonly string[]).includes(bracketed) && !WILDCARD_HOSTS.has(h)) names.push(bracketed);
  return names;
}
