/**
 * Adds a heartbeat's alert to the agent's latest conversation as an assistant message (meta source
 * `heartbeat`), so the person sees it in the conversation and the agent's next turn knows it said it.
 *
 * A run in flight on that conversation owns its session object and saves it after every step: a
 * message written beside it would be lost at its next save. So the alert waits until no run of this
 * process works on the conversation (up to `waitMs`, 10 minutes by default), and is dropped with a
 * note in the beat's record if the conversation stays busy that long. The write is a load, an append
 * and an atomic save under the session's writer lock (sessions/sessionLock.ts, which the runs of every
 * process hold too); should a run start on the conversation while the file is written (it may have
 * read the previous version), the alert waits for that run too and is written again if its save
 * dropped it.
 */
import { errorMessage, isReinError } from '../errors.js';
import type { AgentRuntimeConfig } from '../agents/index.js';
import { SessionStore } from '../sessions/store.js';
import { noteSavedSession } from '../sessions/indexNotes.js';
import type { SessionFile } from '../sessions/types.js';
import { latestConversation } from './heartbeatPrompt.js';
import { runsOn, type TriggerHost } from './host.js';

export const DEFAULT_APPEND_WAIT_MS = 10 * 60_000;

export interface AppendResult {
  /** The conversation the alert went into. */
  sessionId?: string;
  /** Why it went into none. */
  note?: string;
}

export interface AppendOptions {
  now?: () => Date;
  waitMs?: number;
  signal?: AbortSignal;
}

export async function appendAlert(
  host: TriggerHost,
  rc: AgentRuntimeConfig,
  text: string,
  opts: AppendOptions = {},
): Promise<AppendResult> {
  const now = opts.now ?? (() => new Date());
  const waitMs = opts.waitMs ?? DEFAULT_APPEND_WAIT_MS;
  const deadline = Date.now() + waitMs;
  const latest = await latestConversation(rc.sessionsDir);
  if (!latest) return { note: 'the agent has no conversation to add it to yet' };
  const id = latest.id;
  const timestamp = now().toISOString();
  const store = new SessionStore(rc.sessionsDir, host.sessionCache ? { cache: host.sessionCache } : {});

  for (let attempt = 0; attempt < 3; attempt++) {
    if (!(await idle(host, rc.name, id, deadline, opts.signal))) {
      return { note: `dropped: conversation ${id} stayed busy for ${Math.round(waitMs / 60_000)} min` };
    }
    let written = false;
    try {
      // The session's writer lock (sessions/sessionLock.ts): a `rein run --session` of another process
      // writing the conversation is waited for like a run of this one.
      const lock = await store.lock(id, { ...(opts.signal ? { signal: opts.signal } : {}) });
      try {
        const s = await store.load(id);
        try {
          if (hasAlert(s, timestamp)) written = true;
          // A run may have taken the conversation while we waited for the lock or the read.
          else if (runsOn(host, rc.name, id).length === 0) {
            s.messages.push({ role: 'assistant', content: [{ type: 'text', text }] });
            s.message_meta.push({ source: 'heartbeat', timestamp });
            await store.save(s);
            // Found by the next search, as a run's saves are (search/pendingIndex.ts); a lost note only waits for the index's folder check.
            await noteSavedSession(host.home, { agent: rc.name, id }).catch(() => undefined);
            written = true;
          }
        } finally {
          // Handed back as saved, so the conversation's next message continues this very object.
          store.release(s);
        }
      } finally {
        await lock.release();
      }
    } catch (err) {
      // Another process kept writing it through the lock's wait: try again, as for a run of this one.
      if (isReinError(err, 'session_busy')) continue;
      return { note: `could not add it to conversation ${id}: ${errorMessage(err)}` };
    }
    if (!written) continue;
    // A run that started while the file was being written may have read the version before it.
    if (runsOn(host, rc.name, id).length === 0) return { sessionId: id };
    if (!(await idle(host, rc.name, id, deadline, opts.signal))) return { sessionId: id };
    try {
      if (hasAlert(await new SessionStore(rc.sessionsDir).load(id), timestamp)) return { sessionId: id };
    } catch (err) {
      return { note: `could not check conversation ${id}: ${errorMessage(err)}` };
    }
  }
  return { note: `dropped: conversation ${id} kept being taken by other runs` };
}

function hasAlert(s: SessionFile, timestamp: string): boolean {
  return s.message_meta.some((m) => m.source === 'heartbeat' && m.timestamp === timestamp);
}

/** Waits until no run of this process works on the conversation; false when `deadline` passes first. */
async function idle(
  host: TriggerHost,
  agent: string,
  id: string,
  deadline: number,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  for (;;) {
    if (signal?.aborted) return false;
    const busy = runsOn(host, agent, id);
    if (busy.length === 0) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.min(left, 1_000));
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
      void Promise.race(busy.map((r) => r.done.catch(() => undefined))).then(done);
    });
  }
}
