/**
 * Which daemon lane (route) the chat view talks on, so it knows which events are its own before the
 * first answer arrives. Mirrors core/daemon/routing.ts: a named agent has the lane `agent:<name>`; the
 * built-in agent gets the page's own channel, `chat:desktop`, so a second message while a run is in
 * flight is injected into it rather than starting another run.
 */
import type { MessageRequest } from '../../../src-main/core/api/index.js';

export const DEFAULT_AGENT = 'default';
export const CHAT_SOURCE = 'chat';
export const CHAT_CHANNEL = 'desktop';

export function chatRoute(agent: string): string {
  return agent === DEFAULT_AGENT ? `${CHAT_SOURCE}:${CHAT_CHANNEL}` : `agent:${agent}`;
}

/**
 * The request for one chat message: continue `session_id` when there is one, else start a new session
 * (the view always says which conversation it shows, rather than let the lane pick one).
 */
export function chatMessage(agent: string, text: string, session_id: string | undefined): MessageRequest {
  return {
    text,
    source: CHAT_SOURCE,
    ...(agent === DEFAULT_AGENT ? { channel: CHAT_CHANNEL } : { agent }),
    ...(session_id ? { session_id: session_id } : { new_session: true }),
  };
}
