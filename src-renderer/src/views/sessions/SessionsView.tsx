/**
 * Past conversations by agent and source (chat, schedule, heartbeat, watcher, webhook…), full-text
 * search with the matches highlighted, and a session opened read-only, or continued in the chat.
 */
import { useState } from 'react';
import type { ReinApi, SessionRecord } from '../../../../src-main/core/api/index.js';
import { sessionItems } from '../../state/transcript.js';
import { formatCost, formatWhen } from '../../util/format.js';
import { useAsync } from '../../util/useAsync.js';
import { ErrorNotice, MessageList } from '../chat/MessageList.js';
import { Highlighted } from './Highlighted.js';

const SOURCES = ['chat', 'http', 'ws', 'local', 'schedule', 'heartbeat', 'watcher', 'webhook', 'slack', 'telegram'];

export interface SessionsViewProps {
  api: ReinApi;
  agents: string[];
  onContinue(agent: string, session: SessionRecord): void;
}

export function SessionsView({ api, agents, onContinue }: SessionsViewProps) {
  const [agent, setAgent] = useState('default');
  const [source, setSource] = useState('');
  const [query, setQuery] = useState('');
  const [searched, setSearched] = useState('');
  const [open, setOpen] = useState<{ id: string; agent: string } | undefined>();

  const filter = { agent, ...(source ? { source } : {}) };
  const [list] = useAsync(() => api.listSessions({ ...filter, limit: 200 }), [api, agent, source]);
  const [hits] = useAsync(
    () => (searched ? api.searchSessions({ q: searched, ...filter, limit: 50 }) : Promise.resolve(undefined)),
    [api, searched, agent, source],
  );

  return (
    <div className="view sessions-view split">
      <aside className="split-list" aria-label="Sessions">
        <header className="view-head">
          <h1>Sessions</h1>
        </header>
        <form
          className="session-filters"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            setSearched(query.trim());
          }}
        >
          <label>
            <span className="field-label">Agent</span>
            <select value={agent} onChange={(e) => setAgent(e.target.value)}>
              {agents.map((a) => (
                <option key={a}>{a}</option>
              ))}
            </select>
          </label>
          <label>
            <span className="field-label">Source</span>
            <select value={source} onChange={(e) => setSource(e.target.value)}>
              <option value="">all</option>
              {SOURCES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
          <label className="search-box">
            <span className="field-label">Search</span>
            <input
              type="search"
              value={query}
              placeholder='words or "a phrase"'
              onChange={(e) => setQuery(e.target.value)}
              onKeyDown={(e) => e.key === 'Escape' && (setQuery(''), setSearched(''))}
            />
          </label>
          <button type="submit">Search</button>
        </form>
        {searched ? (
          <section aria-label={`Search results for ${searched}`}>
            {hits.status === 'failed' && (
              <p className="form-error" role="alert">
                {hits.error.message}
              </p>
            )}
            {hits.status === 'loading' && <p className="muted">Searching…</p>}
            {hits.value && hits.value.results.length === 0 && <p className="muted">No matches for “{searched}”.</p>}
            <ul className="pick-list results">
              {hits.value?.results.map((h, i) => (
                <li key={`${h.session_id}-${h.msg_index ?? i}`}>
                  <button
                    type="button"
                    className="pick hit"
                    aria-current={open?.id === h.session_id ? 'true' : undefined}
                    onClick={() => setOpen({ id: h.session_id, agent: h.agent })}
                  >
                    <span className="hit-title">{h.title || h.session_id}</span>
                    <span className="snippet">
                      <Highlighted snippet={h.snippet} />
                    </span>
                    <span className="muted">
                      {h.source} · {h.updated_at ? formatWhen(h.updated_at) : h.session_id}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
        ) : (
          <section aria-label="Recent sessions">
            {list.status === 'failed' && (
              <p className="form-error" role="alert">
                {list.error.message}
              </p>
            )}
            {list.value && list.value.sessions.length === 0 && <p className="muted">No sessions yet.</p>}
            <ul className="pick-list">
              {list.value?.sessions.map((s) => (
                <li key={s.id}>
                  <button
                    type="button"
                    className="pick"
                    aria-current={open?.id === s.id ? 'true' : undefined}
                    onClick={() => setOpen({ id: s.id, agent: s.agent })}
                  >
                    <span className="hit-title">{s.title || s.id}</span>
                    <span className="muted">
                      {s.source}
                      {s.channel ? `:${s.channel}` : ''} · {s.message_count} messages · {formatWhen(s.updated_at)}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
        )}
      </aside>
      <section className="split-main">
        {open ? (
          <SessionReader key={open.id} api={api} id={open.id} agent={open.agent} onContinue={onContinue} />
        ) : (
          <p className="muted empty-hint">Open a session to read it, or continue it in the chat.</p>
        )}
      </section>
    </div>
  );
}

function SessionReader({
  api,
  id,
  agent,
  onContinue,
}: {
  api: ReinApi;
  id: string;
  agent: string;
  onContinue(agent: string, s: SessionRecord): void;
}) {
  const [session] = useAsync(() => api.getSession({ id, agent }), [api, id, agent]);
  // In words (core/api/errorText.ts), as the chat says it: "That conversation is not there any more…".
  if (session.status === 'failed') return <ErrorNotice code={session.error.code} message={session.error.message} />;
  if (!session.value) return <p className="muted">Loading…</p>;
  const s = session.value;
  return (
    <div className="session-reader">
      <header className="editor-head">
        <div>
          <h2>{s.title || s.id}</h2>
          <p className="muted">
            {s.agent} · {s.source}
            {s.channel ? `:${s.channel}` : ''} · {formatWhen(s.created_at)}
            {s.usage ? ` · ${formatCost(s.usage.cost_usd)}` : ''} · read-only
          </p>
        </div>
        <button type="button" className="primary" onClick={() => onContinue(s.agent, s)}>
          Continue in chat
        </button>
      </header>
      <MessageList items={sessionItems(s)} />
    </div>
  );
}
