/**
 * Which conversation a run request belongs to. A route key names a lane: all requests with the same key
 * share one current session and at most one run at a time.
 *
 * - a one-off request (session policy `ephemeral`): `once:<random>`, a fresh session nothing continues;
 * - a named agent: `agent:<name>` (one conversation per agent, whoever writes to it);
 * - a chat channel: `<source>:<channel>[:<thread>]` (each Slack thread is its own conversation);
 * - an explicit session and nothing else: `session:<id>`;
 * - none of these: a one-off lane `once:<random>` too.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_AGENT } from '../config/paths.js';
import type { RunRequest } from '../runtime/runRequest.js';

export const DEFAULT_SOURCE = 'http';

export interface RoutedRequest {
  key: string;
  /** `default` or the named agent. */
  agent: string;
  source: string;
  /** True for one-off lanes, which never keep a session between messages. */
  ephemeral: boolean;
}

const once = (agent: string, source: string): RoutedRequest => ({
  key: `once:${randomBytes(6).toString('hex')}`,
  agent,
  source,
  ephemeral: true,
});

export function routeFor(req: Pick<RunRequest, 'agent' | 'source' | 'channel' | 'thread' | 'session'>): RoutedRequest {
  const agent = req.agent && req.agent !== DEFAULT_AGENT ? req.agent : DEFAULT_AGENT;
  const source = req.source;
  if (req.session.kind === 'ephemeral') return once(agent, source);
  if (agent !== DEFAULT_AGENT) return { key: `agent:${agent}`, agent, source, ephemeral: false };
  if (req.channel)
    return { key: `${source}:${req.channel}${req.thread ? `:${req.thread}` : ''}`, agent, source, ephemeral: false };
  if (req.session.kind === 'session') return { key: `session:${req.session.id}`, agent, source, ephemeral: false };
  return once(agent, source);
}

/** What the session's channel field records: the channel, and the thread when there is one. */
export function sessionChannel(req: Pick<RunRequest, 'channel' | 'thread'>): string | undefined {
  if (!req.channel) return undefined;
  return req.thread ? `${req.channel}:${req.thread}` : req.channel;
}
