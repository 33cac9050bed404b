/**
 * Past conversations beside the chat: the agent's sessions, newest first, narrowed by a full-text
 * search as you type; picking one continues it (the chat shows its history and the next message goes
 * into that session). In a narrow window the list folds away behind the chat header's button and
 * opens over the chat.
 */
import { useEffect, useRef, useState } from 'react';
import { visibleText, type ReinApi, type SessionRecord } from '../../../../src-main/core/api/index.js';
import { toApiError } from '../../api/apiError.js';
import { conversationRows } from '../../state/conversations.js';
import { formatWhen } from '../../util/format.js';
import { useAsync } from '../../util/useAsync.js';
import { Highlighted } from '../sessions/Highlighted.js';
import { ErrorNotice } from './MessageList.js';

/** Sessions listed; older ones are in the Sessions view. */
const LISTED = 50;
/** Typing pauses this long before the search goes out. */
const SEARCH_DELAY_MS = 250;

export const CONVERSATIONS_ID = 'conversation-list';

export interface ConversationListProps {
  api: ReinApi;
  agent: string;
  /** The session the chat shows. */
  current?: string | undefined;
  /** A run is going: the chat cannot switch conversations until it ends. */
  running: boolean;
  /** Changes when the list may have changed (a run ended, another conversation was opened). */
  refreshKey: string;
  /** Open over the chat (a narrow window); in a wide one the list is always there. */
  open: boolean;
  onClose(): void;
  onOpen(session: SessionRecord): void;
}

export function ConversationList({
  api,
  agent,
  current,
  running,
  refreshKey,
  open,
  onClose,
  onOpen,
}: ConversationListProps) {
  const [query, setQuery] = useState('');
  const [searched, setSearched] = useState('');
  const [busy, setBusy] = useState<string | undefined>();
  const [problem, setProblem] = useState<{ code: string; message: string } | undefined>();
  const search = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const t = setTimeout(() => setSearched(query.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(t);
  }, [query]);
  useEffect(() => {
    if (open) search.current?.focus();
  }, [open]);
  useEffect(() => setProblem(undefined), [agent]);

  const [list] = useAsync(() => api.listSessions({ agent, limit: LISTED }), [api, agent, refreshKey]);
  const [hits] = useAsync(
    () => (searched ? api.searchSessions({ q: searched, agent, limit: LISTED }) : Promise.resolve(undefined)),
    [api, agent, searched, refreshKey],
  );
  const searching = searched !== '';
  const rows = conversationRows(list.value?.sessions ?? [], searching ? (hits.value?.results ?? []) : undefined);
  const failed = list.status === 'failed' ? list.error : searching && hits.status === 'failed' ? hits.error : undefined;

  async function pick(id: string) {
    setBusy(id);
    setProblem(undefined);
    try {
      onOpen(await api.getSession({ id, agent }));
      onClose();
    } catch (e) {
      const err = toApiError(e);
      setProblem({ code: err.code, message: err.message });
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <aside id={CONVERSATIONS_ID} className={`conversations${open ? ' open' : ''}`} aria-label="Conversations">
      <header className="conversations-head">
        <h2>Conversations</h2>
        <button type="button" className="link conversations-close" onClick={onClose}>
          Close
        </button>
      </header>
      <div className="conversations-search" role="search">
        <input
          ref={search}
          type="search"
          value={query}
          aria-label="Search conversations"
          placeholder="Search conversations"
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={(e) => {
            if (e.key !== 'Escape') return;
            e.preventDefault();
            if (query) {
              setQuery('');
              setSearched('');
            } else onClose();
          }}
        />
      </div>
      {/* Failures in words (core/api/errorText.ts), as the chat shows them. */}
      {failed && <ErrorNotice code={failed.code} message={failed.message} />}
      {problem && <ErrorNotice code={problem.code} message={problem.message} />}
      {list.value && rows.length === 0 && (
        <p className="muted conversations-empty">
          {searching
            ? hits.status === 'loading'
              ? 'Searching…'
              : `No conversation mentions “${searched}”.`
            : 'No conversations yet.'}
        </p>
      )}
      <ul
        className="pick-list conversation-rows"
        aria-busy={list.status === 'loading' || (searching && hits.status === 'loading')}
      >
        {rows.map((r) => (
          <li key={r.id}>
            <button
              type="button"
              className="pick conversation"
              data-session-id={r.id}
              aria-current={r.id === current ? 'true' : undefined}
              disabled={(running && r.id !== current) || busy !== undefined}
              title={running && r.id !== current ? 'Stop the running answer first' : visibleText(r.title || r.id)}
              onClick={() => (r.id === current ? onClose() : void pick(r.id))}
            >
              <span className="hit-title">{visibleText(r.title) || 'Untitled conversation'}</span>
              {r.snippet && (
                <span className="snippet">
                  <Highlighted snippet={visibleText(r.snippet)} />
                </span>
              )}
              <span className="muted">
                {formatWhen(r.updated_at)}
                {r.source !== 'chat' ? ` · ${r.source}` : ''}
                {busy === r.id ? ' · opening…' : ''}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </aside>
  );
}
