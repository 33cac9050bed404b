/**
 * Sessions: list (from the session files, so always current), one session whole, and full-text search
 * through the SQLite index (core/search), which the service keeps up to date for the runs it makes.
 */
import type { SearchHit, SessionSummary } from '../api/reinApi.js';
import { DEFAULT_AGENT, paths } from '../config/paths.js';
import type { SessionIndex } from '../search/sessionIndex.js';
import type { LeftoverNote } from '../sessions/leftovers.js';
import { notePendingIndex } from '../search/pendingIndex.js';
import { SessionStore } from '../sessions/store.js';
import { isDamaged, type SessionFile } from '../sessions/types.js';

export const SESSION_LIST_DEFAULT = 50;
export const SESSION_SEARCH_DEFAULT = 20;

export async function listSessionSummaries(
  home: string,
  q: { agent?: string; source?: string; limit?: number } = {},
): Promise<SessionSummary[]> {
  const agent = q.agent ?? DEFAULT_AGENT;
  // Interrupted saves of killed writers are settled by the listing; a recovered session is noted for the
  // index, which knows an older version of it.
  const onLeftover = (n: LeftoverNote) => {
    console.warn(`rein: ${n.message}`);
    if (n.kind === 'recovered') void notePendingIndex(home, { agent, id: n.id }).catch(() => undefined);
  };
  const all = await new SessionStore(paths.sessionsDir(home, agent), { onLeftover }).listWithDamaged();
  return all
    .filter((s) => q.source === undefined || s.source === q.source)
    .slice(0, q.limit ?? SESSION_LIST_DEFAULT)
    .map((s): SessionSummary =>
      // A damaged file is listed with what could be read of it, so a person sees it and why it will not open.
      isDamaged(s)
        ? {
            id: s.id,
            agent: s.agent ?? agent,
            title: s.title ?? '',
            source: s.source ?? 'unknown',
            ...(s.channel !== undefined ? { channel: s.channel } : {}),
            created_at: s.created_at ?? s.updated_at,
            updated_at: s.updated_at,
            message_count: 0,
            damaged: true,
            problem: s.problem,
          }
        : {
            id: s.id,
            agent: s.agent,
            title: s.title,
            source: s.source,
            ...(s.channel !== undefined ? { channel: s.channel } : {}),
            created_at: s.created_at,
            updated_at: s.updated_at,
            message_count: s.messageCount,
          },
    );
}

export function loadSession(home: string, id: string, agent: string = DEFAULT_AGENT): Promise<SessionFile> {
  return new SessionStore(paths.sessionsDir(home, agent)).load(id);
}

export function searchHits(
  index: SessionIndex,
  q: { q: string; agent?: string; source?: string; limit?: number },
): SearchHit[] {
  const hits = index.search(q.q, {
    agent: q.agent ?? DEFAULT_AGENT,
    ...(q.source ? { source: q.source } : {}),
    limit: q.limit ?? SESSION_SEARCH_DEFAULT,
  });
  return hits.map((h) => ({
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
  }));
}
