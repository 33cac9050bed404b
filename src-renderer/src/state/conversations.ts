/**
 * The chat's list of past conversations and the conversation a reload comes back to.
 *
 * The list is the agent's saved sessions, newest first; a search narrows it to the sessions whose
 * words match (the daemon's full-text index answers per message, so one session can match several
 * times: it is listed once, with its best snippet), still newest first, so a conversation never jumps
 * around between typing and not typing. A damaged file is left out: it cannot be continued (the
 * Sessions view still lists it).
 *
 * Which conversation each agent's chat shows is kept in localStorage, so a reload (or the page opened
 * again from `rein daemon`'s address) continues it instead of starting a new chat. Only ids are kept,
 * never text; a value that is not a map of agent names to session ids is ignored.
 */
import {
  AGENT_NAME_PATTERN,
  isSessionId,
  type SearchHit,
  type SessionSummary,
} from '../../../src-main/core/api/index.js';

export interface ConversationRow {
  id: string;
  title: string;
  updated_at: string;
  source: string;
  message_count?: number;
  /** The matching text, with `>>>`/`<<<` around each match, when the list is a search's. */
  snippet?: string;
}

/** Newest first by updated_at; rows without a time keep their order, after the dated ones. */
function newestFirst(rows: ConversationRow[]): ConversationRow[] {
  const time = (r: ConversationRow) => {
    const t = Date.parse(r.updated_at);
    return Number.isNaN(t) ? -Infinity : t;
  };
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => time(b.r) - time(a.r) || a.i - b.i)
    .map(({ r }) => r);
}

/**
 * The rows the list shows: the agent's sessions, or, with `hits`, the sessions a search found (one
 * row each, the first hit's snippet: the index ranks the best first).
 */
export function conversationRows(sessions: readonly SessionSummary[], hits?: readonly SearchHit[]): ConversationRow[] {
  const readable = sessions.filter((s) => s.damaged !== true);
  if (!hits)
    return newestFirst(
      readable.map((s) => ({
        id: s.id,
        title: s.title,
        updated_at: s.updated_at,
        source: s.source,
        message_count: s.message_count,
      })),
    );
  const known = new Map(sessions.map((s) => [s.id, s]));
  const seen = new Set<string>();
  const rows: ConversationRow[] = [];
  for (const h of hits) {
    if (seen.has(h.session_id)) continue;
    seen.add(h.session_id);
    const s = known.get(h.session_id);
    if (s?.damaged === true) continue;
    rows.push({
      id: h.session_id,
      title: h.title || s?.title || '',
      updated_at: h.updated_at ?? s?.updated_at ?? '',
      source: h.source,
      ...(s ? { message_count: s.message_count } : {}),
      snippet: h.snippet,
    });
  }
  return newestFirst(rows);
}

// ---- the conversation a reload comes back to ------------------------------------------------------

export const REMEMBERED_KEY = 'rein.chat.sessions';

type Store = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** Agent → the session its chat shows, as stored; anything malformed is dropped, never trusted. */
export function readRemembered(store: Store | undefined): Record<string, string> {
  let raw: string | null | undefined;
  try {
    raw = store?.getItem(REMEMBERED_KEY);
  } catch {
    return {}; // storage refused (a sandboxed or private window)
  }
  if (!raw) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return {};
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const out: Record<string, string> = {};
  for (const [agent, id] of Object.entries(parsed))
    if (AGENT_NAME_PATTERN.test(agent) && isSessionId(id)) out[agent] = id;
  return out;
}

/** Keeps (or, with no id, forgets) the session `agent`'s chat shows. */
export function remember(store: Store | undefined, agent: string, session_id: string | undefined): void {
  const all = readRemembered(store);
  if (session_id === undefined ? !(agent in all) : all[agent] === session_id) return;
  if (session_id === undefined) delete all[agent];
  else all[agent] = session_id;
  try {
    if (Object.keys(all).length === 0) store?.removeItem(REMEMBERED_KEY);
    else store?.setItem(REMEMBERED_KEY, JSON.stringify(all));
  } catch {
    // Full or refused: a reload then starts a new chat, which is what happened before.
  }
}

/** The page's localStorage, or undefined where there is none (tests, a locked-down window). */
export function pageStorage(): Store | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}
