/**
 * A request for a run, as every entry point hands it to the core: apart from the HTTP wire type
 * (MessageRequest), so the CLI, the desktop window, the daemon's HTTP and WebSocket, and the schedule,
 * heartbeat and watcher runners all say the same things the same way — who asks (origin), where it
 * came from (source, channel, thread, sender), which session it belongs to, and what it may change
 * for this one run (overrides).
 */
import type { MessageRequest } from '../api/protocol.js';
import type { PermissionMode, RunOrigin } from '../api/patterns.js';
import { DEFAULT_AGENT } from '../config/paths.js';
import { originFor, type EntryPoint } from '../permissions/runPolicy.js';

// Origins are derived in one place (permissions/runPolicy.ts); the entry points import them from here too.
export { originFor, type EntryPoint };

/**
 * Which session the run works on:
 * - route: the lane's current session (a named agent's conversation, a Slack thread), a new one when
 *   the lane has none yet;
 * - new: a new session, which the lane then continues;
 * - ephemeral: a new session in a lane of its own that nothing continues (one-off calls);
 * - session: exactly this one.
 */
export type SessionPolicy =
  { kind: 'route' } | { kind: 'new' } | { kind: 'ephemeral' } | { kind: 'session'; id: string };

/** What one run may set for itself. */
export interface RunOverrides {
  model?: string;
  max_iterations?: number;
  mode?: PermissionMode;
  /** A light, isolated context instead of the agent's whole one (heartbeats). */
  isolated?: IsolatedContext;
}

/**
 * A small prompt that reads from the cache run after run (core/triggers/heartbeat*.ts): the system
 * prompt has the persona and `instructions` in place of instruction files and the skill catalogue, the
 * turn carries no memory (and consolidates none), and the session is never saved — it lives in memory
 * for this one run, so nothing but the caller's own record is left of it.
 */
export interface IsolatedContext {
  instructions: string;
  /** Lowers the run's spending cap (budget.max_usd_per_run) for this run, e.g. to what a daily cap leaves. */
  max_usd?: number;
  /**
   * The TTL of the cache marks on the tools and system prompt: `1h` when the next run with the same
   * prompt comes within the hour but after five minutes (a heartbeat every ≤ 1 h); default 5m.
   */
  cache_ttl?: '5m' | '1h';
}

export interface RunRequest {
  agent: string;
  text: string;
  source: string;
  origin: RunOrigin;
  entry: EntryPoint;
  channel?: string;
  thread?: string;
  sender?: string;
  session: SessionPolicy;
  overrides?: RunOverrides;
}

/** The run request for a message that arrived over HTTP, the WebSocket, a webhook or the desktop IPC. */
export function runRequestFromMessage(msg: MessageRequest, entry: EntryPoint, defaultSource: string): RunRequest {
  const source = msg.source ?? defaultSource;
  return {
    agent: msg.agent ?? DEFAULT_AGENT,
    text: msg.text,
    source,
    origin: originFor(entry, source),
    entry,
    ...(msg.channel !== undefined ? { channel: msg.channel } : {}),
    ...(msg.thread_id !== undefined ? { thread: msg.thread_id } : {}),
    ...(msg.sender !== undefined ? { sender: msg.sender } : {}),
    session: msg.session_id
      ? { kind: 'session', id: msg.session_id }
      : msg.new_session
        ? { kind: 'new' }
        : { kind: 'route' },
  };
}
