/**
 * The heartbeat timers of a long-lived process (the daemon, the desktop app): one per agent whose
 * config.yaml has a `heartbeat` block, the first beat one period after it starts (or after the agent's
 * heartbeat settings change), then every period. A tick outside `active_hours` (local time, minute
 * granularity; `22:00-06:00` crosses midnight) does nothing and is not recorded. Overlap prevention,
 * the daily cap and everything about the beat itself are heartbeatRunner.ts's.
 *
 * Owned: `dispose()` stops every timer and the config follower, cancels beats still running and waits
 * for them to write their records; nothing is left behind.
 */
import { rm } from 'node:fs/promises';
import { inDailyWindow, type DailyWindow } from '../agents/index.js';
import type { AsyncDisposable, Disposable } from '../base/lifecycle.js';
import { errorMessage, isReinError } from '../errors.js';
import { followAgents, Serial } from './followAgents.js';
import { heartbeatStateFile, writeHeartbeatState, type BeatRecord } from './heartbeatLog.js';
import { runHeartbeat, type BeatOptions } from './heartbeatRunner.js';
import { agentConfigOf, agentsToRefresh, type TriggerHost } from './host.js';

export interface HeartbeatManagerOptions {
  warn?: (message: string) => void;
  now?: () => Date;
  /** How often agent configs are read again for edits made by hand (default a minute; 0: only on `agent_changed`). */
  rescanMs?: number;
  /** The beat itself (tests replace it); default runHeartbeat on the host. */
  beat?: (agent: string, opts: BeatOptions) => Promise<BeatRecord>;
}

interface AgentTimer {
  /** What the timer was made from: a change rebuilds it. */
  signature: string;
  everyMs: number;
  window?: DailyWindow;
  anchor: Date;
  interval: NodeJS.Timeout;
}

export class HeartbeatManager implements AsyncDisposable {
  readonly #host: TriggerHost;
  readonly #opts: HeartbeatManagerOptions;
  readonly #warn: (m: string) => void;
  readonly #now: () => Date;
  readonly #timers = new Map<string, AgentTimer>();
  readonly #inFlight = new Set<Promise<void>>();
  readonly #stateOps = new Map<string, Promise<void>>();
  readonly #stop = new AbortController();
  readonly #serial = new Serial();
  /** Problems already reported, so a broken config.yaml is said once, not every minute. */
  readonly #reported = new Map<string, string>();
  #follow: Disposable | undefined;
  #disposed = false;

  constructor(host: TriggerHost, opts: HeartbeatManagerOptions = {}) {
    this.#host = host;
    this.#opts = opts;
    this.#warn = opts.warn ?? (() => undefined);
    this.#now = opts.now ?? (() => new Date());
  }

  /** Reads every agent and starts their timers; from then on follows their configs. */
  async start(): Promise<void> {
    if (this.#disposed || this.#follow) return;
    this.#follow = followAgents(this.#host, (agent) => void this.refresh(agent), this.#opts.rescanMs);
    await this.refresh();
  }

  /** Reads one agent (or every agent) again and adds, rebuilds or stops timers to match. */
  refresh(agent?: string): Promise<void> {
    return this.#serial.run(() => this.#refresh(agent));
  }

  /** Agents with a timer now. */
  get agents(): string[] {
    return [...this.#timers.keys()].sort();
  }

  /** When the agent's next beat is due (inside its active hours), if it has a timer. */
  nextBeat(agent: string): Date | undefined {
    const t = this.#timers.get(agent);
    return t ? nextBeatAt(t.anchor, t.everyMs, t.window, this.#now()) : undefined;
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#follow?.dispose();
    await this.#serial.idle();
    for (const name of [...this.#timers.keys()]) this.#clear(name);
    this.#stop.abort(new Error('heartbeats stopped'));
    // Beats (cancelled now) write their records; state files are written or removed.
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  async #refresh(only?: string): Promise<void> {
    if (this.#disposed) return;
    const found = await agentsToRefresh(this.#host, only, (m) => this.#warn(`heartbeats: ${m}`));
    if (!found) return;
    const names = found.names;
    if (found.complete) for (const name of this.#timers.keys()) if (!names.includes(name)) this.#clear(name);
    for (const name of names) {
      if (this.#disposed) return;
      let heartbeat;
      try {
        heartbeat = (await agentConfigOf(this.#host, name)).effective.heartbeat;
        this.#reported.delete(name);
      } catch (err) {
        this.#clear(name);
        if (isReinError(err, 'not_found') || isReinError(err, 'agent_not_found')) continue;
        const message = errorMessage(err);
        if (this.#reported.get(name) !== message)
          this.#warn(`heartbeat of ${name} is off: its config cannot be read: ${message}`);
        this.#reported.set(name, message);
        continue;
      }
      if (this.#disposed) return;
      if (!heartbeat) {
        this.#clear(name);
        continue;
      }
      const signature = JSON.stringify([heartbeat.everyMs, heartbeat.activeHours ?? null]);
      if (this.#timers.get(name)?.signature === signature) continue;
      this.#clear(name);
      this.#schedule(name, signature, heartbeat.everyMs, heartbeat.activeHours);
    }
  }

  #schedule(name: string, signature: string, everyMs: number, window: DailyWindow | undefined): void {
    const anchor = this.#now();
    const interval = setInterval(() => this.#tick(name), everyMs);
    this.#timers.set(name, { signature, everyMs, ...(window ? { window } : {}), anchor, interval });
    this.#stateOp(name, () =>
      writeHeartbeatState(this.#host.home, name, { pid: process.pid, anchor: anchor.toISOString(), every_ms: everyMs }),
    );
  }

  /** Stops the agent's timer; its state file goes too (the status then says no beat is scheduled). */
  #clear(name: string): void {
    const t = this.#timers.get(name);
    if (!t) return;
    clearInterval(t.interval);
    this.#timers.delete(name);
    this.#stateOp(name, () => rm(heartbeatStateFile(this.#host.home, name), { force: true }));
  }

  /** Writes and removals of an agent's state file, one after another (dispose waits for them). */
  #stateOp(name: string, op: () => Promise<void>): void {
    const p = (this.#stateOps.get(name) ?? Promise.resolve()).then(op).catch(() => undefined);
    this.#stateOps.set(name, p);
    this.#inFlight.add(p);
    void p.finally(() => {
      this.#inFlight.delete(p);
      if (this.#stateOps.get(name) === p) this.#stateOps.delete(name);
    });
  }

  #tick(name: string): void {
    const t = this.#timers.get(name);
    if (this.#disposed || !t) return;
    if (t.window && !inActiveHours(t.window, this.#now())) return;
    const beat = this.#opts.beat ?? ((agent: string, o: BeatOptions) => runHeartbeat(this.#host, agent, o));
    const p: Promise<void> = beat(name, {
      trigger: 'timer',
      now: this.#now,
      signal: this.#stop.signal,
      warn: this.#warn,
    })
      .then(
        () => undefined,
        (err: unknown) => this.#warn(`heartbeat of ${name} failed: ${errorMessage(err)}`),
      )
      .finally(() => this.#inFlight.delete(p));
    this.#inFlight.add(p);
  }
}

/** Whether local time `at` falls inside the window (minute granularity; overnight windows wrap). */
export function inActiveHours(window: DailyWindow, at: Date): boolean {
  return inDailyWindow(window, at.getHours() * 60 + at.getMinutes());
}

/**
 * The first beat after `now` on the timer that started at `anchor` (beats at anchor + k × every, k ≥ 1)
 * that falls inside the active hours; undefined when none does within eight days.
 */
export function nextBeatAt(
  anchor: Date,
  everyMs: number,
  window: DailyWindow | undefined,
  now: Date,
): Date | undefined {
  const k = Math.max(1, Math.floor((now.getTime() - anchor.getTime()) / everyMs) + 1);
  const limit = now.getTime() + 8 * 86_400_000;
  for (let t = anchor.getTime() + k * everyMs; t <= limit; t += everyMs) {
    const at = new Date(t);
    if (!window || inActiveHours(window, at)) return at;
  }
  return undefined;
}
