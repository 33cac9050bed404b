/**
 * Heartbeats and watchers follow the agents' configs without a restart: the service announces each
 * agent it creates, saves or deletes with `agent_changed` on its bus (that agent is read again), and a
 * rescan every `rescanMs` (a minute by default) catches files edited by hand.
 */
import { toDisposable, type Disposable } from '../base/lifecycle.js';
import type { TriggerHost } from './host.js';

export const DEFAULT_RESCAN_MS = 60_000;

/** `refresh(agent)` for an agent the bus names, `refresh()` (every agent) on each rescan. */
export function followAgents(
  host: TriggerHost,
  refresh: (agent?: string) => void,
  rescanMs = DEFAULT_RESCAN_MS,
): Disposable {
  const sub = host.subscribe((entry) => {
    const ev = entry.event;
    if (ev.type === 'agent_changed' && ev.change !== 'activated') refresh(ev.agent);
  });
  const timer = rescanMs > 0 ? setInterval(() => refresh(), rescanMs) : undefined;
  return toDisposable(() => {
    sub.dispose();
    if (timer) clearInterval(timer);
  });
}

/** Runs `fn` calls one after another, so two refreshes never interleave their reads and updates. */
export class Serial {
  #tail: Promise<void> = Promise.resolve();

  run(fn: () => Promise<void>): Promise<void> {
    const next = this.#tail.then(fn, fn);
    this.#tail = next.catch(() => undefined);
    return next;
  }

  /** Resolves once everything queued so far has run. */
  idle(): Promise<void> {
    return this.#tail;
  }
}
