/**
 * Drives one run from its lane to its result: opens the session (failures there reach the caller as
 * errors, with no session), starts the loop — whose first event, `session_start`, goes out before the
 * run's runtime is built — gives way for one turn of the event loop right after that announcement, and
 * from then on passes the Turnstile between events, so fifty runs cannot hold up a new message. Every
 * event goes to the bus with the run's route, and to the listeners of the request that started it.
 * Messages that arrived after the loop's last look at its inbox become a follow-up run on the lane.
 */
import { emptyUsage, type ReinEvent } from '../../api/events.js';
import type { MessageResult } from '../../api/protocol.js';
import { errorMessage, isReinError } from '../../errors.js';
import type { RunOutcome } from '../../harness/loop.js';
import { startRunWhenReady, type Runtime, type StartedRun } from '../../runtime/runtime.js';
import type { SessionFile } from '../../sessions/types.js';
import type { Turnstile } from '../../util/turnstile.js';
import type { ApprovalDesk } from '../approvalDesk.js';
import type { OpenedSession, SessionOpener } from './sessionOpener.js';
import type { RouteRun } from './routeRun.js';

export interface RunDriverDeps {
  home: string;
  opener: SessionOpener;
  desk: ApprovalDesk;
  turnstile: Turnstile;
  pace: () => Promise<void> | undefined;
  runtimeFor(run: RouteRun): Promise<Runtime>;
  /** The session is open: its lane and the route table remember it. */
  opened(run: RouteRun, session: SessionFile): void;
  publish(run: RouteRun, event: ReinEvent): void;
  /**
   * Published on the bus only, not to the request's own listeners (they get the error itself): how
   * everyone following the route — the page or the window that was told "accepted" — hears that the run
   * could not start.
   */
  announce(run: RouteRun, event: ReinEvent): void;
  /** Told about each session a run worked on, as saved (the search index). */
  afterRun?(session: SessionFile): void;
  /** The run is over: free its lane, maybe start a follow-up. */
  finished(run: RouteRun, leftover: string[], outcome: RunOutcome, sessionId: string): void;
  /** The run could not start (its session could not be opened): free its lane. */
  abandoned(run: RouteRun): void;
  warn(message: string): void;
}

export async function driveRun(run: RouteRun, deps: RunDriverDeps): Promise<void> {
  let opened: OpenedSession;
  try {
    opened = await deps.opener.open(run);
  } catch (err) {
    // Nothing ran (no agent config, no model access, no session): the caller gets the error itself,
    // and the route hears it as `error` + `session_end`, so no client waits on "Starting…" for a run
    // that will never start. No session was opened: the events carry an empty session_id.
    run.state = 'done';
    deps.abandoned(run);
    announceFailure(run, err, deps);
    run.fail(err);
    return;
  }
  const { session, store, lock, cwd, model } = opened;
  run.sessionId = session.id;
  deps.opened(run, session);

  const started: StartedRun = startRunWhenReady(
    {
      ...runBase(run, cwd, deps),
      session,
      agent: run.agent,
      source: run.source,
      origin: run.request.origin,
      route: run.key,
      model,
    },
    () => deps.runtimeFor(run),
    () => {
      store.release(session);
      // The last save is done: another process may write the session now.
      void lock.release();
    },
  );
  let outcome: RunOutcome;
  let seq = 0;
  try {
    for (;;) {
      const step = await started.events.next();
      if (step.done) {
        outcome = step.value;
        break;
      }
      seq = step.value.seq + 1;
      publishEvent(run, step.value, deps);
      // Right after session_start the run gives way: fifty messages arriving together all get their
      // session_start before any of them goes on. From then on runs take turns (see Turnstile).
      if (step.value.type === 'session_start') await deps.turnstile.yieldTurn();
      else await deps.turnstile.pass();
    }
  } catch (err) {
    // The loop ends every run with a value, a failed save included; should anything still throw out of
    // it, the run ends with an error like any other (its caller gets a result, the route hears the end)
    // instead of a rejection nobody handles, which would take the daemon down.
    outcome = thrownOutcome(err);
    deps.warn(`run on ${run.key} failed: ${outcome.error!.message}`);
    const at = new Date().toISOString();
    publishEvent(
      run,
      { type: 'error', session_id: session.id, seq, at, code: outcome.error!.code, message: outcome.error!.message },
      deps,
    );
    publishEvent(
      run,
      {
        type: 'session_end',
        session_id: session.id,
        seq: seq + 1,
        at,
        stop_reason: 'error',
        text: '',
        usage: outcome.usage,
        iterations: 0,
      },
      deps,
    );
  }
  run.state = 'done';
  // Only a session the loop worked on (and saved) is worth indexing.
  if (outcome.started && deps.afterRun) {
    try {
      deps.afterRun(session);
    } catch (err) {
      deps.warn(`after run on ${run.key}: ${errorMessage(err)}`);
    }
  }
  // Done with the session: the route's next message, which may already be waiting, continues it as it is.
  started.release();
  const leftover = run.inbox.drain();
  const result: MessageResult = {
    injected: false,
    route: run.key,
    agent: run.agent,
    session_id: session.id,
    text: outcome.text,
    stop_reason: outcome.stopReason,
    usage: outcome.usage,
    iterations: outcome.iterations,
    ...(outcome.error ? { error: outcome.error } : {}),
  };
  deps.finished(run, leftover, outcome, session.id);
  run.settle(result);
}

function thrownOutcome(err: unknown): RunOutcome {
  const error = {
    code: isReinError(err) ? err.code : 'internal',
    message: isReinError(err) ? err.message : `run failed: ${errorMessage(err)}`,
  };
  return { stopReason: 'error', text: '', usage: emptyUsage(), iterations: 0, error, started: true };
}

function runBase(run: RouteRun, cwd: string, deps: RunDriverDeps) {
  const req = run.request;
  // Where the message came from (source, channel, thread, sender) goes into the stable part of the prompt.
  const sourceFacts = {
    source: run.source,
    ...(req.channel ? { channel: req.channel } : {}),
    ...(req.thread ? { thread: req.thread } : {}),
    ...(req.sender ? { sender: req.sender } : {}),
  };
  return {
    prompt: req.text,
    cwd,
    home: deps.home,
    signal: run.controller.signal,
    inbox: run.inbox,
    sourceFacts,
    pace: deps.pace,
  };
}

function announceFailure(run: RouteRun, err: unknown, deps: RunDriverDeps): void {
  const at = new Date().toISOString();
  const code = isReinError(err) ? err.code : 'internal';
  const message = isReinError(err) ? err.message : `run failed: ${errorMessage(err)}`;
  deps.announce(run, { type: 'error', session_id: '', seq: 0, at, code, message });
  deps.announce(run, {
    type: 'session_end',
    session_id: '',
    seq: 1,
    at,
    stop_reason: 'error',
    text: '',
    usage: emptyUsage(),
    iterations: 0,
  });
}

function publishEvent(run: RouteRun, ev: ReinEvent, deps: RunDriverDeps): void {
  // Registered before the loop asks the broker, so even an instant answer finds its question.
  if (ev.type === 'approval_request') deps.desk.open(ev);
  deps.publish(run, ev);
}
