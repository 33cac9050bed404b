/**
 * The start of a run on a built runtime: its session loaded, made or handed in, held by the session
 * lock from the load to the last save, and the loop started; or the loop started before the runtime
 * exists (startRunWhenReady, the daemon's). The session goes back to the store when the events are over.
 */
import type { Inbox } from '../harness/inbox.js';
import { runAgentWhenReady, type RunOutcome, type RunStart } from '../harness/loop.js';
import type { ReinEvent } from '../api/events.js';
import type { RunOrigin } from '../api/patterns.js';
import type { EgressCheck } from '../tools/tool.js';
import type { SessionFile } from '../sessions/types.js';
import { titleFromPrompt } from '../sessions/title.js';
import type { HeldLock } from '../util/ownedLock.js';
import type { SourceFacts } from '../context/index.js';
import { loopParts } from './loopParts.js';
import { releasedWhenOver } from './releasedWhenOver.js';
import { closeRuntime } from './runtimeMcp.js';
import type { Runtime } from './types.js';

export interface StartRunOptions {
  prompt: string;
  cwd: string;
  home: string;
  /** Continue this session; otherwise a new one is made. */
  sessionId?: string;
  /** A session already loaded or made by the caller (the daemon opens it before building the runtime). */
  session?: SessionFile;
  signal: AbortSignal;
  inbox?: Inbox;
  egress?: EgressCheck;
  /** Sticky facts about where the message came from (daemon routes: Slack channel, sender…). */
  sourceFacts?: SourceFacts;
  /**
   * Called after each save, where the run may give way to other work; a returned promise makes it
   * wait (the model's streamed bytes are paced by the transport, RuntimeOptions.pace). The daemon passes its Turnstile, so many runs cannot delay a new
   * message.
   */
  pace?: () => Promise<void> | undefined;
  /**
   * How long to wait for another process that writes the session (sessions/sessionLock.ts; default
   * 30 s), and where to say that it waits ("session S is in use by the Rein daemon (pid N); waiting…").
   */
  sessionWaitMs?: number;
  onSessionWait?: (message: string) => void;
}

/**
 * Loads or creates the session and starts the loop. The per-session prompt parts that take time
 * (instructions, memory — consolidated first when due) are gathered by the loop right after it has
 * announced the session (`prepare`), so session_start never waits for them.
 */
/** A started run: its session, its events, and `release` for a consumer done with the session early. */
export interface StartedRun {
  session: SessionFile;
  events: AsyncGenerator<ReinEvent, RunOutcome>;
  /**
   * The consumer has done all it does with the session after the end (the daemon: index it): hand it
   * back to the store now instead of on the next turn of the event loop, so a message that follows at
   * once continues this very object. Does nothing before the events are over, or a second time.
   */
  release: () => void;
}

export async function startRun(rt: Runtime, opts: StartRunOptions): Promise<StartedRun> {
  let session: SessionFile;
  // One writer per session across processes, from the load (or the first save) to the last save; an
  // isolated run saves nothing and takes none. A session handed in is its caller's to lock.
  let lock: HeldLock | undefined;
  const lockOpts = {
    ...(opts.sessionWaitMs !== undefined ? { waitMs: opts.sessionWaitMs } : {}),
    ...(opts.onSessionWait ? { onWait: opts.onSessionWait } : {}),
    signal: opts.signal,
  };
  try {
    if (opts.session) session = opts.session;
    else if (opts.sessionId) {
      if (!rt.isolated) lock = await rt.store.lock(opts.sessionId, lockOpts);
      session = await rt.store.load(opts.sessionId);
    } else {
      session = rt.store.create({
        agent: rt.agent,
        cwd: opts.cwd,
        source: rt.source,
        title: titleFromPrompt(opts.prompt),
      });
      if (!rt.isolated) lock = await rt.store.lock(session.id, { ...lockOpts, newSession: true });
    }
  } catch (err) {
    await lock?.release();
    // No events will run to stop them: a session that cannot be loaded stops the run's own MCP servers here.
    await closeRuntime(rt);
    throw err;
  }
  const unlock = () => void lock?.release();
  const start: RunStart = {
    session,
    source: rt.source,
    agent: rt.agent,
    origin: rt.origin,
    route: rt.route,
    model: rt.settings.model,
    cwd: opts.cwd,
    signal: opts.signal,
  };
  const events = runAgentWhenReady(start, async () => loopParts(rt, opts, session));
  // Long-lived processes: once the run is over its session goes back to the store, so the route's next
  // message continues this very object instead of parsing the file again (SessionStore.release).
  // A run's own MCP servers stop when its events are over.
  // The session's lock goes once the events are over (the last save is done by then).
  if (!rt.cache) {
    return {
      session,
      ...releasedWhenOver(events, () => {
        unlock();
        if (rt.mcp?.owned) void rt.mcp.manager.dispose();
      }),
    };
  }
  return {
    session,
    ...releasedWhenOver(events, () => {
      rt.store.release(session);
      unlock();
    }),
  };
}

/** What the daemon knows before a run's runtime is built: enough for its `session_start`. */
export interface EarlyRunStart extends Omit<StartRunOptions, 'session' | 'sessionId'> {
  session: SessionFile;
  agent: string;
  source: string;
  origin: RunOrigin;
  route: string;
  model: string;
}

/**
 * Starts the loop before the runtime exists: its `session_start` goes out at the first step, and the
 * runtime (`build`: tools, permissions, model client, prompt parts) is made right after. A runtime that
 * cannot be built ends the run with `error` and `session_end`. `release` hands the session back to its
 * store once the run is over (see StartedRun.release).
 */
export function startRunWhenReady(opts: EarlyRunStart, build: () => Promise<Runtime>, release: () => void): StartedRun {
  const { session } = opts;
  const start: RunStart = {
    session,
    source: opts.source,
    agent: opts.agent,
    origin: opts.origin,
    route: opts.route,
    model: opts.model,
    cwd: opts.cwd,
    signal: opts.signal,
  };
  const events = runAgentWhenReady(start, async () => loopParts(await build(), opts, session));
  return { session, ...releasedWhenOver(events, release) };
}
