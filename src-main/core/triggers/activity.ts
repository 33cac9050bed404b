/**
 * What an agent does on its own, for the agent editor: its heartbeat (settings, the last beat, today's
 * spend, the next beat) and its file watchers (each folder, its glob, whether it is being watched and,
 * when it is not, why: `unreadable` with what to do, `missing`, `not_a_folder`).
 */
import { errorMessage } from '../errors.js';
import { localDay, readBeats, spentOn, type BeatRecord } from './heartbeatLog.js';
import type { HeartbeatManager } from './heartbeatManager.js';
import { agentConfigOf, type TriggerHost } from './host.js';
import type { WatcherManager, WatchState } from './fileWatcher.js';

export interface AgentActivity {
  agent: string;
  heartbeat: null | {
    every: string;
    active_hours?: string;
    model: string;
    /** HEARTBEAT.md has goals (without them a beat spends nothing). */
    has_goals: boolean;
    next_at?: string;
    last?: Pick<BeatRecord, 'at' | 'outcome' | 'message' | 'cost_usd' | 'total_input_tokens' | 'cache_read_share'>;
    spent_today_usd: number;
    beats_today: number;
  };
  watchers: Array<{
    path: string;
    glob?: string;
    debounce_ms: number;
    watching: boolean;
    state?: WatchState;
    reason?: string;
    hint?: string;
  }>;
  problem?: string;
}

export async function agentActivity(
  host: TriggerHost,
  managers: { heartbeats?: HeartbeatManager; watchers?: WatcherManager },
  agent: string,
  now = new Date(),
): Promise<AgentActivity> {
  let rc;
  try {
    rc = await agentConfigOf(host, agent);
  } catch (e) {
    return { agent, heartbeat: null, watchers: [], problem: errorMessage(e) };
  }
  const hb = rc.effective.heartbeat;
  const raw = rc.agentConfig.heartbeat;
  let heartbeat: AgentActivity['heartbeat'] = null;
  if (hb && raw) {
    const beats = await readBeats(host.home, agent).catch(() => [] as BeatRecord[]);
    const last = beats.at(-1);
    const next = managers.heartbeats?.nextBeat(agent);
    const day = localDay(now);
    const today = beats.filter((b) => b.day === day && b.outcome !== 'skipped');
    heartbeat = {
      every: String(raw.every),
      ...(raw.active_hours ? { active_hours: raw.active_hours } : {}),
      model: hb.model,
      has_goals: rc.heartbeatFile !== undefined,
      ...(next ? { next_at: next.toISOString() } : {}),
      ...(last
        ? {
            last: {
              at: last.at,
              outcome: last.outcome,
              ...(last.message ? { message: last.message } : {}),
              cost_usd: last.cost_usd,
              total_input_tokens: last.total_input_tokens,
              cache_read_share: last.cache_read_share,
            },
          }
        : {}),
      spent_today_usd: spentOn(beats, now),
      beats_today: today.length,
    };
  }
  const states = new Map((managers.watchers?.status(agent) ?? []).map((s) => [s.path, s]));
  const watchers = rc.watch.map((w) => {
    const s = states.get(w.path);
    return {
      path: w.path,
      ...(w.glob ? { glob: w.glob } : {}),
      debounce_ms: w.debounceMs,
      watching: s?.state === 'watching',
      ...(s ? { state: s.state } : {}),
      ...(s?.reason !== undefined ? { reason: s.reason } : {}),
      ...(s?.hint !== undefined ? { hint: s.hint } : {}),
    };
  });
  return { agent, heartbeat, watchers };
}
