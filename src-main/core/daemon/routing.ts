/**
 * Which conversation a message belongs to. A route key names a lane: all messages with the same key
 * share one current session and at most one run at a time.
 *
 * - a named agent: `agent:<name>` (one conversation per agent, whoever writes to it);
 * - a chat channel: `<source>:<channel>[:<thread>]` (each Slack thread is its own conversation);
 * - an explicit session and nothing else: `session:<id>`;
 * - none of these: a one-off lane `once:<random>` (a fresh session every time).
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_AGENT } from '../config/paths.js';
import type { MessageRequest } from './protocol.js';

export const DEFAULT_SOURCE = 'http';

export interface RoutedMessage {
  key: string;
  /** `default` or the named agent. */
  agent: string;
  source: string;
  /** True for one-off lanes, which never keep a session between messages. */
  ephemeral: boolean;
}

export function routeFor(msg: Pick<MessageRequest, 'agent' | 'source' | 'channel' | 'thread_id' | 'session_id'>, fallbackSource = DEFAULT_SOURCE): RoutedMessage {
  const agent = msg.agent && msg.agent !== DEFAULT_AGENT ? msg.agent : DEFAULT_AGENT;
  const source = msg.source ?? fallbackSource;
  if (agent !== DEFAULT_AGENT) return { key: `agent:${agent}`, agent, source, ephemeral: false };
  if (msg.channel) {
    return { key: `${source}:${msg.channel}${msg.thread_id ? `:${msg.thread_id}` : ''}`, agent, source, ephemeral: false };
  }
  if (msg.session_id) return { key: `session:${msg.session_id}`, agent, source, ephemeral: false };
  return { key: `once:${randomBytes(6).toString('hex')}`, agent, source, ephemeral: true };
}

/** What the session's channel field records: the channel, and the thread when there is one. */
export function sessionChannel(msg: Pick<MessageRequest, 'channel' | 'thread_id'>): string | undefined {
  if (!msg.channel) return undefined;
  return msg.thread_id ? `${msg.channel}:${msg.thread_id}` : msg.channel;
}

