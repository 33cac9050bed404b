/**
 * A reload comes back to the conversation each agent's chat showed (state/conversations.ts keeps the
 * ids in localStorage): the first time an agent's chat opens, its remembered session is loaded, unless
 * something was typed or picked meanwhile. From then on every change of the conversation shown is kept;
 * "New chat" forgets it, so a reload after it starts a new chat too. A remembered session that is gone
 * is forgotten; one that could not be read for another reason (the daemon away) stays for next time.
 */
import { useEffect, useRef } from 'react';
import type { ReinApi } from '../../../../src-main/core/api/index.js';
import { toApiError } from '../../api/apiError.js';
import type { ChatsAction, ChatsState } from '../../state/chats.js';
import { pageStorage, readRemembered, remember } from '../../state/conversations.js';

const GONE = new Set([
  'session_not_found',
  'session_corrupt',
  'agent_not_found',
  'not_found',
  'invalid_input',
  'invalid_request',
]);

export function useRememberedConversations(
  api: ReinApi,
  agent: string,
  chats: ChatsState,
  dispatch: (a: ChatsAction) => void,
): void {
  const tried = useRef(new Set<string>());
  /** The session each chat showed when last looked at, so only changes are written. */
  const shown = useRef(new Map<string, string | undefined>());

  useEffect(() => {
    if (tried.current.has(agent)) return;
    tried.current.add(agent);
    const store = pageStorage();
    const id = readRemembered(store)[agent];
    if (!id) return;
    api.getSession({ id, agent }).then(
      (session) => dispatch({ type: 'chat', agent, action: { type: 'restore_session', session } }),
      (e: unknown) => {
        if (GONE.has(toApiError(e).code)) remember(store, agent, undefined);
      },
    );
  }, [api, agent, dispatch]);

  useEffect(() => {
    const store = pageStorage();
    for (const chat of Object.values(chats)) {
      if (shown.current.get(chat.agent) === chat.session_id) continue;
      shown.current.set(chat.agent, chat.session_id);
      remember(store, chat.agent, chat.session_id);
    }
  }, [chats]);
}
