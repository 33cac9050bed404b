/**
 * The HTTP adapter: every request passes `checkRequest` (Host, Origin, token) before any handler
 * runs, then goes to the first route whose method and path match. Handlers throw HttpError (or a
 * ReinError) and this file turns it into `{error, code}` with the right status.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { DaemonContext } from './context.js';
import { BODY_TIMEOUT_MS, setBodyDeadline } from './httpBody.js';
import { HttpError, toHttpError } from './httpError.js';
import { sendError } from './httpReply.js';
import { checkRequest } from './security.js';
import { apiRoutes, type Route } from './api.js';

export function createHttpServer(ctx: DaemonContext, routes: Route[] = apiRoutes()): Server {
  const bodyTimeoutMs = ctx.bodyTimeoutMs ?? BODY_TIMEOUT_MS;
  const server = createServer((req, res) => {
    setBodyDeadline(req, bodyTimeoutMs);
    void handle(ctx, routes, req, res).catch((err: unknown) => sendError(res, toHttpError(err)));
  });
  // Receiving a request is timed; answering it is not. An answer carrying a run may wait minutes (an
  // approval, a long run), but the headers must arrive within HEADERS_TIMEOUT_MS and the body within
  // the body deadline (readBody answers 408 `body_timeout` as JSON). Node's requestTimeout, which
  // counts only until the request has been received in full, is the backstop for a body no handler
  // reads (Node then answers a bare 408 and closes the connection).
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = Math.max(REQUEST_TIMEOUT_MS, bodyTimeoutMs);
  server.keepAliveTimeout = 5_000;
  return server;
}

/** The request line and headers must arrive within this long. */
export const HEADERS_TIMEOUT_MS = 30_000;
/** The whole request (headers and body) must arrive within this long (Node's own check, every 30 s). */
export const REQUEST_TIMEOUT_MS = 60_000;

async function handle(ctx: DaemonContext, routes: Route[], req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const pathname = safePathname(url);
  const method = req.method ?? 'GET';
  const match = findRoute(routes, method, pathname);
  const isApi = match !== undefined || isApiPath(pathname);
  const verdict = checkRequest(ctx.security, {
    headers: req.headers,
    url,
    // Unknown paths outside the API are static files (public); inside it they need the token like the rest.
    isPublic: match ? match.route.public === true : !isApi,
    isWebSocket: false,
  });
  if (!verdict.ok) {
    req.resume();
    return sendError(res, new HttpError(verdict.status, verdict.code, verdict.message));
  }
  if (!match) {
    if (!isApi && ctx.staticFiles && (await ctx.staticFiles(req, res, pathname))) return;
    req.resume();
    const allowed = routes.filter((r) => matchPath(r.path, pathname)).map((r) => r.method);
    if (allowed.length > 0) {
      res.setHeader('allow', allowed.join(', '));
      return sendError(
        res,
        new HttpError(
          405,
          'method_not_allowed',
          `${method} is not allowed on ${pathname}; use ${allowed.join(' or ')}`,
        ),
      );
    }
    return sendError(res, new HttpError(404, 'not_found', `no such endpoint: ${method} ${pathname}`));
  }
  await match.route.handler(ctx, req, res, {
    params: match.params,
    query: new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : ''),
  });
}

/** Paths under these prefixes are API paths: a miss there is a 404 even when static files are served. */
const API_PREFIXES = [
  '/health',
  '/status',
  '/agents',
  '/skills',
  '/sessions',
  '/message',
  '/cancel',
  '/approval',
  '/events',
  '/ws',
  '/hooks',
  '/token',
  '/shutdown',
  '/settings',
  '/schedules',
  '/active-agent',
  '/changes',
];
function isApiPath(p: string): boolean {
  return API_PREFIXES.some((x) => p === x || p.startsWith(`${x}/`));
}

function findRoute(
  routes: Route[],
  method: string,
  pathname: string,
): { route: Route; params: Record<string, string> } | undefined {
  for (const route of routes) {
    if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) continue;
    const params = matchPath(route.path, pathname);
    if (params) return { route, params };
  }
  return undefined;
}

/** `/agents/{name}` against `/agents/ops` → `{name: 'ops'}`; segments are URL-decoded. */
export function matchPath(pattern: string, pathname: string): Record<string, string> | undefined {
  const a = pattern.split('/');
  const b = pathname.split('/');
  if (a.length !== b.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    const seg = a[i]!;
    if (seg.startsWith('{') && seg.endsWith('}')) {
      if (b[i] === '') return undefined;
      try {
        params[seg.slice(1, -1)] = decodeURIComponent(b[i]!);
      } catch {
        return undefined;
      }
    } else if (seg !== b[i]) return undefined;
  }
  return params;
}

function safePathname(url: string): string {
  const q = url.indexOf('?');
  const p = q < 0 ? url : url.slice(0, q);
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}
