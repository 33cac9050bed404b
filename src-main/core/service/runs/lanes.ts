/**
 * Lanes and the queue. Each route key is a lane with at most one run in flight and the session its
 * next run continues; a message for a busy lane goes into that run's inbox instead of starting a
 * second run. Runs of different lanes go at once up to `maxConcurrent`; the rest wait in a FIFO queue
 * and are told their position.
 */
import { emptyUsage } from '../../api/events.js';
import type { RouteRun } from './routeRun.js';

interface Lane {
  run?: RouteRun;
  /** The session the next run on this lane continues. */
  sessionId?: string;
}

export interface LanesOptions {
  maxConcurrent: number;
  /** Runs a started run to its end. */
  execute(run: RouteRun): Promise<void>;
  /** A run waits: tell its listeners where it is in the queue. */
  queued(run: RouteRun, position: number): void;
}

export class Lanes {
  readonly #lanes = new Map<string, Lane>();
  readonly #queue: RouteRun[] = [];
  readonly #running = new Set<RouteRun>();
  readonly #opts: LanesOptions;

  constructor(opts: LanesOptions) {
    this.#opts = opts;
  }

  get running(): readonly RouteRun[] {
    return [...this.#running];
  }

  get queued(): readonly RouteRun[] {
    return [...this.#queue];
  }

  /** The lane's run in flight (queued or running), if any. */
  active(key: string): RouteRun | undefined {
    const run = this.#lanes.get(key)?.run;
    return run && run.state !== 'done' ? run : undefined;
  }

  sessionOf(key: string): string | undefined {
    return this.#lanes.get(key)?.sessionId;
  }

  setSession(key: string, sessionId: string | undefined): void {
    const lane = this.#lanes.get(key);
    if (lane) lane.sessionId = sessionId;
  }

  /** A run in flight whose session is `sessionId` (running, or queued to continue it). */
  bySession(sessionId: string): RouteRun | undefined {
    return [...this.#running, ...this.#queue].find(
      (r) => r.sessionId === sessionId || (r.state === 'queued' && this.#lanes.get(r.key)?.sessionId === sessionId),
    );
  }

  /** Takes the lane for the run, and starts it or queues it. */
  take(run: RouteRun): void {
    const lane = this.#lanes.get(run.key) ?? {};
    lane.run = run;
    this.#lanes.set(run.key, lane);
    if (this.#running.size < this.#opts.maxConcurrent) {
      this.#start(run);
      return;
    }
    this.#queue.push(run);
    this.#opts.queued(run, this.#queue.length);
  }

  /** The run is over (or never started): its lane is free for the next message. */
  release(run: RouteRun): void {
    const lane = this.#lanes.get(run.key);
    if (lane?.run === run) {
      lane.run = undefined;
      if (run.ephemeral) this.#lanes.delete(run.key);
    }
  }

  /** A queued run leaves the queue with a `cancelled` result; a running one is aborted. */
  cancel(run: RouteRun, why: string): void {
    if (run.state === 'queued') {
      const i = this.#queue.indexOf(run);
      if (i >= 0) this.#queue.splice(i, 1);
      run.state = 'done';
      this.release(run);
      run.settle({
        injected: false,
        route: run.key,
        agent: run.agent,
        session_id: this.#lanes.get(run.key)?.sessionId ?? '',
        text: '',
        stop_reason: 'cancelled',
        usage: emptyUsage(),
        iterations: 0,
        error: { code: 'cancelled', message: `the run was ${why} before it started` },
      });
      return;
    }
    run.controller.abort(new Error(why));
  }

  /** Every run in flight of the agent, after its lane's remembered session is forgotten. */
  forgetAgent(agent: string): RouteRun[] {
    const runs: RouteRun[] = [];
    for (const [key, lane] of this.#lanes) {
      if (lane.run && lane.run.agent === agent && lane.run.state !== 'done') runs.push(lane.run);
      if (key === `agent:${agent}`) lane.sessionId = undefined;
    }
    return runs;
  }

  /** Drops the agent's idle lanes (after its runs ended). */
  dropIdleLanes(agent: string): void {
    for (const [key, lane] of this.#lanes) if (key === `agent:${agent}` && !lane.run) this.#lanes.delete(key);
  }

  #start(run: RouteRun): void {
    run.state = 'running';
    run.startedAt = new Date().toISOString();
    this.#running.add(run);
    void this.#opts
      .execute(run)
      .catch((err: unknown) => {
        // driveRun settles every run itself; a failure past that must still free the lane and reach the
        // caller, never become a rejection nobody handles (which would end the daemon).
        run.state = 'done';
        this.release(run);
        run.fail(err);
      })
      .finally(() => {
        this.#running.delete(run);
        this.#next();
      });
  }

  #next(): void {
    while (this.#running.size < this.#opts.maxConcurrent && this.#queue.length > 0) this.#start(this.#queue.shift()!);
  }
}
