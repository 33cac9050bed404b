/**
 * Every open conversation of the page, one per route (one per agent in the chat view), fed from the
 * single event stream. Events for routes the page has no conversation for are left alone: the
 * approvals queue still sees them.
 */
import type { ApiEvent } from '../../../src-main/core/api/index.js';
import { chatReducer, emptyChat, isChatEvent, type ChatAction, type ChatState } from './chat.js';
import { chatRoute } from './routes.js';

export type ChatsState = Record<string, ChatState>;

export type ChatsAction =
  | { type: 'event'; event: ApiEvent }
  | { type: 'chat'; agent: string; action: ChatAction }
  | { type: 'open'; agent: string };

export function chatsReducer(state: ChatsState, action: ChatsAction): ChatsState {
  switch (action.type) {
    case 'open': {
      const route = chatRoute(action.agent);
      return state[route] ? state : { ...state, [route]: emptyChat(action.agent, route) };
    }
    case 'chat': {
      const route = chatRoute(action.agent);
      const chat = state[route] ?? emptyChat(action.agent, route);
      return { ...state, [route]: chatReducer(chat, action.action) };
    }
    case 'event': {
      let next: ChatsState | undefined;
      for (const [route, chat] of Object.entries(state)) {
        if (!isChatEvent(chat, action.event)) continue;
        next ??= { ...state };
        next[route] = chatReducer(chat, { type: 'event', event: action.event });
      }
      return next ?? state;
    }
  }
}
