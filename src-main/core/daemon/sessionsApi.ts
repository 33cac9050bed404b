/**
 * Session endpoints: list (from the session files, so always current), one session whole, and
 * full-text search through the SQLite index (core/search), which the daemon keeps up to date for the
 * runs it makes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { DEFAULT_AGENT, paths } from '../config/paths.js';
import { SessionStore } from '../sessions/store.js';
import type { Route, RouteArgs } from './api.js';
import type { DaemonContext } from './context.js';
import { validate } from './httpBody.js';
import { sendJson } from './httpReply.js';
import { AGENT_NAME_PATTERN, SESSION_ID_PATTERN, SOURCE_PATTERN } from './protocol.js';

const Agent = z.string().regex(AGENT_NAME_PATTERN, 'expected an agent name').default(DEFAULT_AGENT);
const Source = z.string().regex(SOURCE_PATTERN, 'expected a short lowercase word').optional();
const Limit = (max: number, def: number) => z.coerce.number().int().min(1).max(max).default(def);

const ListQuery = z.strictObject({ agent: Agent, source: Source, limit: Limit(1_000, 50) });
const SearchQuery = z.strictObject({
  q: z.string().refine((q) => q.trim() !== '', 'must not be blank'),
  agent: Agent,
  source: Source,
  limit: Limit(100, 20),
});
const OneQuery = z.strictObject({ agent: Agent });

export function sessionRoutes(): Route[] {
  return [
    { method: 'GET', path: '/sessions', handler: listSessions },
    { method: 'GET', path: '/sessions/search', handler: searchSessions },
    { method: 'GET', path: '/sessions/{id}', handler: getSession },
  ];
}

const queryOf = (q: URLSearchParams) => Object.fromEntries(q.entries());

async function listSessions(ctx: DaemonContext, _req: IncomingMessage, res: ServerResponse, { query }: RouteArgs): Promise<void> {
  const q = validate(ListQuery, queryOf(query), 'query');
  const all = await new SessionStore(paths.sessionsDir(ctx.home, q.agent)).list();
  const sessions = all
    .filter((s) => q.source === undefined || s.source === q.source)
    .slice(0, q.limit)
    .map((s) => ({
      id: s.id,
      agent: s.agent,
      title: s.title,
      source: s.source,
      ...(s.channel !== undefined ? { channel: s.channel } : {}),
      created_at: s.created_at,
      updated_at: s.updated_at,
      message_count: s.messageCount,
    }));
  sendJson(res, 200, { sessions });
}

async function searchSessions(ctx: DaemonContext, _req: IncomingMessage, res: ServerResponse, { query }: RouteArgs): Promise<void> {
  const q = validate(SearchQuery, queryOf(query), 'query');
  const index = await ctx.sessionIndex();
  const hits = index.search(q.q, { agent: q.agent, ...(q.source ? { source: q.source } : {}), limit: q.limit });
  sendJson(res, 200, {
    results: hits.map((h) => ({
      session_id: h.sessionId,
      agent: h.agent,
      source: h.source,
      ...(h.channel !== undefined ? { channel: h.channel } : {}),
      title: h.title,
      snippet: h.snippet,
      role: h.role,
      msg_index: h.msgIndex,
      created_at: h.createdAt,
      updated_at: h.updatedAt,
    })),
  });
}

async function getSession(ctx: DaemonContext, _req: IncomingMessage, res: ServerResponse, { params, query }: RouteArgs): Promise<void> {
  const id = validate(z.string().regex(SESSION_ID_PATTERN, 'expected a session id (YYYY-MM-DD-<12 hex>)'), params.id, 'path.id');
  const q = validate(OneQuery, queryOf(query), 'query');
  const session = await new SessionStore(paths.sessionsDir(ctx.home, q.agent)).load(id);
  sendJson(res, 200, session);
}
