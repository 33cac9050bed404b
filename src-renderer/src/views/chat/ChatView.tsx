/**
 * The chat: pick an agent, talk to it, watch its tools run, answer its questions, stop it. The
 * conversation state lives in the app (state/chats.ts) so switching views or agents loses nothing.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { ApprovalDecisionKind, FormValues, ReinApi } from '../../../../src-main/core/api/index.js';
import type { ErrorContext } from '../../../../src-main/core/api/errorText.js';
import { errorText, toApiError } from '../../api/apiError.js';
import { lastUserText, type ChatAction, type ChatState } from '../../state/chat.js';
import { chatMessage } from '../../state/routes.js';
import { formatCost, formatTokens } from '../../util/format.js';
import { useAsync } from '../../util/useAsync.js';
import { ICONS } from '../nav/icons.js';
import { Composer } from './Composer.js';
import { ConversationList, CONVERSATIONS_ID } from './ConversationList.js';
import { preloadMarkdown } from '../../markdown/MessageText.js';
import { MessageList } from './MessageList.js';
import { PAGE_COMMANDS, pageCommand } from './slash.js';

export interface ChatViewProps {
  api: ReinApi;
  agents: string[];
  agent: string;
  chat: ChatState;
  onPickAgent(agent: string): void;
  dispatch(action: ChatAction): void;
  onAnswer(request_id: string, decision: ApprovalDecisionKind, values?: FormValues): Promise<unknown>;
  /** Bumped to move the caret into the composer. */
  focusKey?: unknown;
  /** What error sentences may name (the base URL model calls go to). */
  errorContext?: ErrorContext;
}

/** Marks the moment the chat first shows with its composer, for `npm run bench -- ui`. */
let markedReady = false;

export function ChatView({
  api,
  agents,
  agent,
  chat,
  onPickAgent,
  dispatch,
  onAnswer,
  focusKey,
  errorContext,
}: ChatViewProps) {
  // The agent's commands (its own and the global ones) for the `/` list; the daemon expands them.
  const [detail] = useAsync(() => api.getAgent({ name: agent }), [api, agent]);
  const commands = useMemo(() => {
    const list: Record<string, string> = {};
    for (const c of detail.value?.slash_commands ?? [])
      list[c.name] = c.argument_hint ? `${c.description} (${c.argument_hint})` : c.description;
    for (const [name, d] of Object.entries(PAGE_COMMANDS)) list[name] ??= d;
    return list;
  }, [detail.value]);

  useEffect(() => {
    if (markedReady) return;
    markedReady = true;
    requestAnimationFrame(() => {
      performance.mark('rein:chat-ready');
      // The chat is on screen: now fetch the Markdown renderer, before the first answer needs it.
      preloadMarkdown();
    });
  }, []);

  // Esc stops the run from anywhere in the chat view, not only from the message box.
  useEffect(() => {
    if (!chat.running) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      // Esc there closes what is open (the command list, the sidebar, the conversation list) instead.
      if (document.activeElement?.closest('dialog, .slash-list, .sidebar, .conversations')) return;
      void stop();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  async function stop() {
    try {
      await api.cancel({ route: chat.route });
    } catch (e) {
      // The run may have ended on its own just now; that is what the user wanted.
      if (toApiError(e).code !== 'not_running')
        dispatch({ type: 'send_failed', code: toApiError(e).code, message: errorText(e) });
    }
  }

  async function send(typed: string) {
    const own = pageCommand(typed);
    if (own === 'new' || own === 'clear') return dispatch({ type: 'reset' });
    if (own === 'help') {
      const lines = Object.entries(commands).map(([n, d]) => `/${n} — ${d}`);
      return dispatch({ type: 'note', level: 'info', text: `Commands:\n${lines.join('\n')}` });
    }
    // Everything else goes as typed: the daemon expands `/name args` (or says the command is unknown).
    dispatch({ type: 'sending', text: typed });
    try {
      const result = await api.sendMessage(chatMessage(agent, typed, chat.session_id));
      dispatch({
        type: 'sent',
        text: typed,
        injected: result.injected,
        ...(result.session_id ? { session_id: result.session_id } : {}),
      });
    } catch (e) {
      dispatch({ type: 'send_failed', code: toApiError(e).code, message: errorText(e) });
    }
  }

  async function continueLatest() {
    try {
      const { sessions } = await api.listSessions({ agent, limit: 20 });
      // A damaged file is listed (so a person can see it) but cannot be continued.
      const latest = sessions.find((s) => s.damaged !== true);
      if (!latest) return dispatch({ type: 'note', level: 'info', text: `${agent} has no saved conversations yet.` });
      dispatch({ type: 'load_session', session: await api.getSession({ id: latest.id, agent }) });
    } catch (e) {
      dispatch({ type: 'send_failed', code: toApiError(e).code, message: errorText(e) });
    }
  }

  // The conversation list, when it folds away (a narrow window): open over the chat, or not.
  const [listOpen, setListOpen] = useState(false);
  const listToggle = useRef<HTMLButtonElement>(null);
  const closeList = () => {
    if (!listOpen) return;
    setListOpen(false);
    listToggle.current?.focus();
  };

  const u = chat.sessionUsage;
  return (
    <div className="view chat-view">
      <ConversationList
        api={api}
        agent={agent}
        current={chat.session_id}
        running={chat.running || chat.sending}
        refreshKey={`${chat.session_id ?? ''}:${chat.running}`}
        open={listOpen}
        onClose={closeList}
        onOpen={(session) => dispatch({ type: 'load_session', session })}
      />
      <div className="chat-main">
        <header className="chat-head">
          <label className="agent-picker">
            <span className="visually-hidden">Agent</span>
            <select value={agent} onChange={(e) => onPickAgent(e.target.value)} aria-label="Agent">
              {agents.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </label>
          <button
            ref={listToggle}
            type="button"
            className="icon-button conversations-toggle"
            aria-label="Conversations"
            aria-expanded={listOpen}
            aria-controls={CONVERSATIONS_ID}
            title="Past conversations"
            onClick={() => setListOpen((o) => !o)}
          >
            {ICONS.conversations}
          </button>
          <span className="chat-session muted" title={chat.session_id ? `Session ${chat.session_id}` : undefined}>
            {chat.session_id ? chat.session_id : 'new conversation'}
          </span>
          <span className="chat-usage" aria-label="Usage of this conversation" title={usageTitle(chat)}>
            {/* A narrow window shows the cost alone (the title has the rest). */}
            {chat.model && <span className="muted usage-model">{chat.model} · </span>}
            <span className="usage-tokens">
              {formatTokens(u.input_tokens + u.cache_read_tokens + u.cache_creation_tokens)} in ·{' '}
              {formatTokens(u.output_tokens)} out ·{' '}
            </span>
            <strong>{formatCost(u.cost_usd)}</strong>
          </span>
          <button
            type="button"
            onClick={() => dispatch({ type: 'reset' })}
            disabled={chat.running}
            title="New conversation (Alt+N)"
          >
            New chat
          </button>
        </header>
        <MessageList
          items={chat.items}
          onAnswer={onAnswer}
          {...(errorContext ? { errorContext } : {})}
          empty={
            <div className="chat-empty">
              <p>
                Ask <strong>{agent}</strong> anything. <kbd>Enter</kbd> sends, <kbd>Shift</kbd>+<kbd>Enter</kbd> adds a
                line, <kbd>Esc</kbd> stops, <kbd>↑</kbd> edits your last message, <kbd>/</kbd> lists commands.
              </p>
              <button type="button" className="link" onClick={() => void continueLatest()}>
                Continue the last conversation
              </button>
            </div>
          }
        />
        <p className="visually-hidden" role="status" aria-live="polite">
          {chat.running ? `${agent} is answering` : chat.lastStop === 'final' ? 'Answer finished' : ''}
        </p>
        {(chat.running || chat.sending) && (
          <div className="run-indicator" aria-hidden="true">
            <span className="dot" /> {chat.sending && !chat.running ? 'Starting…' : 'Working…'}
          </div>
        )}
        <Composer
          running={chat.running}
          commands={commands}
          onSend={(t) => void send(t)}
          onStop={() => void stop()}
          focusKey={`${agent}:${String(focusKey)}:${chat.session_id ?? ''}`}
          {...(lastUserText(chat) !== undefined ? { lastUserText: lastUserText(chat) } : {})}
        />
      </div>
    </div>
  );
}

function usageTitle(chat: ChatState): string {
  const u = chat.sessionUsage;
  const r = chat.runUsage;
  const lines = [
    `Session: ${u.requests} requests, ${u.input_tokens} input, ${u.cache_read_tokens} cache read, ${u.cache_creation_tokens} cache write, ${u.output_tokens} output tokens, ${formatCost(u.cost_usd)}`,
  ];
  if (r) lines.push(`Last run: ${formatCost(r.cost_usd)}`);
  return lines.join('\n');
}
