/**
 * The agent loop: an async generator of ReinEvents, run as a sequence of one-job steps over one run
 * state (runState.ts; the steps are in runner/). One call = one user turn: it appends the prompt to the
 * session, then alternates model turns and tool batches until the model answers without tools, the
 * iteration cap or spending cap is hit, the run is cancelled, or an error ends it. Every run ends with
 * exactly one `session_end` carrying the stop reason, and the session file is saved after every
 * iteration (nothing is lost on a crash).
 *
 * Per iteration: stop checks (runner/stopChecks.ts) → turn preparation (runner/prepareTurn.ts: warnings,
 * the inbox) → compaction (runner/compaction.ts) → the model turn (runner/modelTurn.ts: streaming,
 * retries, continuations) → either the answer's checks (stopChecks.ts) or the tool turn
 * (runner/toolTurn.ts, then the loop detector) — each step says what comes next (NextStep) and the
 * runner alone ends the run (runner/persistence.ts: the last save and `session_end`).
 */
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { emptyUsage, type ReinEvent, type ReinEventBody } from '../api/events.js';
import { errorMessage, isReinError } from '../errors.js';
import type { RunDeps, RunInput, RunOutcome, RunSetup, RunStart } from './runTypes.js';
import { endWith, type NextStep, type RunState, type Stamp } from './runState.js';
import { prepareRun } from './runner/prepareRun.js';
import { prepareTurn } from './runner/prepareTurn.js';
import { compactBeforeRequest } from './runner/compaction.js';
import { continueCutReply, forcedAnswer, modelTurn } from './runner/modelTurn.js';
import { toolTurn } from './runner/toolTurn.js';
import { answerWithoutTools, beforeIteration } from './runner/stopChecks.js';
import { finish, saveFailureEnd } from './runner/persistence.js';

export * from './runTypes.js';

export function runAgent(input: RunInput, deps: RunDeps): AsyncGenerator<ReinEvent, RunOutcome> {
  return runAgentWhenReady(input, async () => ({ input, deps }));
}

/**
 * The loop, announcing the session before `setup` builds the rest of the run: `session_start` is the
 * first event whatever happens next, and a setup that fails ends the run with `error` and
 * `session_end` (nothing is saved: the run never started). The loop alone makes both events.
 */
export async function* runAgentWhenReady(start: RunStart, setup: RunSetup): AsyncGenerator<ReinEvent, RunOutcome> {
  const stamp = stamper(start);
  const resumed = start.session.messages.length > 0;
  yield stamp({
    type: 'session_start',
    agent: start.agent,
    source: start.source,
    origin: start.origin,
    model: start.model,
    resumed,
    cwd: start.cwd,
  });

  let ready: Awaited<ReturnType<RunSetup>>;
  try {
    ready = await setup();
  } catch (err) {
    const error = {
      code: isReinError(err) ? err.code : 'internal',
      message: isReinError(err) ? err.message : `run failed: ${errorMessage(err)}`,
    };
    yield stamp({ type: 'error', ...error });
    const usage = emptyUsage();
    yield stamp({ type: 'session_end', stop_reason: 'error', text: '', usage, iterations: 0 });
    return { stopReason: 'error', text: '', usage, iterations: 0, error, started: false };
  }

  const state = await prepareRun({ ...ready.input, ...start }, ready.deps, stamp);
  for (;;) {
    const next = yield* iteration(state);
    if (next.type === 'run_again') continue;
    const end = next.type === 'force_answer' ? yield* forcedAnswer(state) : next.end;
    return yield* finish(state, end);
  }
}

/** One iteration: stop checks, turn preparation, compaction, the model turn, then the answer's checks or the tool turn. */
async function* iteration(state: RunState): AsyncGenerator<ReinEvent, NextStep> {
  const stop = beforeIteration(state);
  if (stop) return endWith(stop);
  yield* prepareTurn(state);

  state.iterations++;
  yield* compactBeforeRequest(state);
  const unsaved = saveFailureEnd(state);
  if (unsaved) return endWith(unsaved);

  const reply = yield* modelTurn(state);
  if (reply.type === 'end') return endWith(reply.end);
  if (reply.toolUses.length > 0) return yield* toolTurn(state, reply);
  if (await continueCutReply(state, reply)) return { type: 'run_again' };
  return yield* answerWithoutTools(state, reply);
}

/** Events of one run: its session id, a per-run `seq` from 0, and the time. */
function stamper(start: RunStart): Stamp {
  const now = start.now ?? (() => new Date());
  let seq = 0;
  return (body: ReinEventBody): ReinEvent =>
    ({ ...body, session_id: start.session.id, seq: seq++, at: now().toISOString() }) as ReinEvent;
}

export type { MessageParam };
