/**
 * One heartbeat beat for one agent, whoever asks for it (the agent's timer in the daemon, or a person
 * with `rein heartbeat run`):
 *
 * 1. HEARTBEAT.md missing or empty → skipped: no run, no model call, nothing spent.
 * 2. The agent's beats already spent `heartbeat.max_usd_per_day` today (local day) → skipped until
 *    midnight; the run's own cap is lowered to what the day has left.
 * 3. With overlap prevention (the default) a beat still going — in this process or another — makes
 *    this one a skip (`heartbeat.pid` next to the agent's files, taken over when its process is gone).
 * 4. One unattended run through the service (entry and source `heartbeat`, a one-off lane, the model
 *    of `heartbeat.model`) in a light, isolated context (RunOverrides.isolated): persona plus the
 *    heartbeat brief and goals as a byte-stable system prompt, one user message with a short excerpt of
 *    the latest conversation. Its session is never saved. With `every` ≤ 1 h the tools and system
 *    prompt carry 1-hour cache marks, so the next beat still reads them (heartbeatCacheTtl).
 * 5. An answer that is `HEARTBEAT_OK` (isHeartbeatOk: with markdown around it, punctuation, or a short
 *    remark with no sign of a finding) is silent. Anything else is an alert: a
 *    `heartbeat_alert` on the bus (the desktop app shows a notification) and an assistant message in
 *    the agent's latest conversation (appendAlert.ts). A run that fails says so the same way on the
 *    bus ("Heartbeat error: …"), but nothing is added to a conversation.
 *
 * Every beat, skipped or not, ends as one record in `heartbeat.jsonl` (heartbeatLog.ts); a skip of the
 * same kind as the previous record is not written again, so a quiet agent's file does not fill up.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReinEvent, UsageTotals } from '../api/events.js';
import type { MessageResult } from '../api/protocol.js';
import { agentLayout, type AgentRuntimeConfig } from '../agents/index.js';
import { errorMessage, isReinError } from '../errors.js';
import { originFor, type RunRequest } from '../runtime/runRequest.js';
import { isSessionId } from '../sessions/id.js';
import { appendAlert } from './appendAlert.js';
import {
  ALERT_PREVIEW,
  appendBeat,
  emptyBeat,
  localDay,
  readBeats,
  spentOn,
  type BeatRecord,
  type BeatTrigger,
  type SkipReason,
} from './heartbeatLog.js';
import {
  heartbeatBrief,
  heartbeatPrompt,
  isHeartbeatOk,
  lastWordFromPerson,
  latestConversation,
  readGoals,
} from './heartbeatPrompt.js';
import { agentConfigOf, type TriggerHost } from './host.js';
import { isProcessAlive } from '../util/processAlive.js';

export const DEFAULT_MAX_USD_PER_DAY = 1;
export const HEARTBEAT_SOURCE = 'heartbeat';

export interface BeatOptions {
  trigger?: BeatTrigger;
  now?: () => Date;
  /** Aborting ends the beat's run (cancelled) and any wait for a busy conversation. */
  signal?: AbortSignal;
  /** The events of the beat's run as they come. */
  onEvent?: (event: ReinEvent) => void;
  /** How long an alert waits for a busy conversation (appendAlert.ts). */
  appendWaitMs?: number;
  warn?: (message: string) => void;
  /** Is this process id alive? (the overlap guard across processes; tests replace it) */
  isAlive?: (pid: number) => boolean;
}

/** The settings a beat runs with: the agent's `heartbeat` block, or its defaults for a beat by hand. */
export interface BeatSettings {
  model: string;
  overlapPrevention: boolean;
  /** 0 = no daily cap. */
  maxUsdPerDay: number;
  /** heartbeat.pause_when_idle in ms; absent = beat however long nobody wrote. */
  pauseWhenIdleMs?: number;
  /** The TTL of the beat's cache marks on tools and system prompt (heartbeatCacheTtl). */
  cacheTtl: '5m' | '1h';
}

/** Beats at most this far apart find the previous beat's 1-hour cache entry still there. */
export const ONE_HOUR_CACHE_MS = 60 * 60_000;

/**
 * The cache TTL of a heartbeat's stable prefix: a 5-minute entry is gone long before the next beat of a
 * 30-minute heartbeat, a 1-hour entry is not (each beat's read renews it). Beats further apart than an
 * hour find nothing either way: they keep the cheaper 5-minute marks, which still serve the tool calls
 * within one beat. A beat by hand of an agent without a heartbeat block is a one-off: 5 minutes.
 */
export function heartbeatCacheTtl(everyMs: number | undefined): '5m' | '1h' {
  return everyMs !== undefined && everyMs <= ONE_HOUR_CACHE_MS ? '1h' : '5m';
}

export function beatSettings(rc: AgentRuntimeConfig): BeatSettings {
  const hb = rc.effective.heartbeat;
  return {
    model: hb?.model ?? rc.effective.model,
    overlapPrevention: hb?.overlapPrevention ?? true,
    maxUsdPerDay: rc.agentConfig.heartbeat?.max_usd_per_day ?? DEFAULT_MAX_USD_PER_DAY,
    cacheTtl: heartbeatCacheTtl(hb?.everyMs),
    ...(hb?.pauseWhenIdleMs !== undefined ? { pauseWhenIdleMs: hb.pauseWhenIdleMs } : {}),
  };
}

/** Runs one beat; resolves with its record (already written). Throws only when the agent cannot be loaded. */
export async function runHeartbeat(host: TriggerHost, agent: string, opts: BeatOptions = {}): Promise<BeatRecord> {
  const now = opts.now ?? (() => new Date());
  const started = now();
  const trigger = opts.trigger ?? 'hand';
  const base = { at: started.toISOString(), day: localDay(started), agent, trigger };
  const rc = await agentConfigOf(host, agent);
  const settings = beatSettings(rc);
  const history = await readBeats(host.home, agent).catch(() => []);

  const skip = async (reason: SkipReason, message: string): Promise<BeatRecord> => {
    const record = emptyBeat({ ...base, outcome: 'skipped', reason, message });
    const last = history[history.length - 1];
    // The same skip again (a day at its cap, a missing HEARTBEAT.md) is not news: one record says it.
    const repeat =
      last?.outcome === 'skipped' && last.reason === reason && (reason !== 'daily_cap' || last.day === record.day);
    if (!repeat || trigger === 'hand') await write(host, record, opts.warn);
    return record;
  };

  const goals = await readGoals(host.home, agent);
  if (!goals) return skip('no_goals', 'HEARTBEAT.md is missing or empty: nothing to check, nothing spent');
  const spent = spentOn(history, started);
  if (settings.maxUsdPerDay > 0 && spent >= settings.maxUsdPerDay) {
    return skip(
      'daily_cap',
      `the daily cap is reached ($${spent.toFixed(4)} of $${settings.maxUsdPerDay.toFixed(2)} today, heartbeat.max_usd_per_day); beats resume after midnight`,
    );
  }
  const latest = await latestConversation(rc.sessionsDir).catch(() => undefined);
  if (settings.pauseWhenIdleMs !== undefined) {
    const wrote = latest ? lastWordFromPerson(latest) : undefined;
    if (wrote === undefined || started.getTime() - wrote >= settings.pauseWhenIdleMs) {
      const since =
        wrote === undefined
          ? 'nobody has written to the agent yet'
          : `nobody has written to the agent since ${new Date(wrote).toISOString()}`;
      return skip('idle', `paused: ${since} (heartbeat.pause_when_idle); beats resume with the next message`);
    }
  }
  const guard = settings.overlapPrevention
    ? takeGuard(agentLayout(host.home, agent).dir, opts.isAlive ?? isProcessAlive)
    : { release: () => undefined };
  if ('busy' in guard) return skip('overlap', `the previous beat is still running (pid ${guard.busy})`);

  try {
    const request: RunRequest = {
      agent,
      text: heartbeatPrompt(latest),
      source: HEARTBEAT_SOURCE,
      origin: originFor('heartbeat', HEARTBEAT_SOURCE),
      entry: 'heartbeat',
      // A lane of its own: a beat never waits behind, injects into or cancels a person's run.
      session: { kind: 'ephemeral' },
      overrides: {
        model: settings.model,
        isolated: {
          instructions: heartbeatBrief(goals),
          ...(settings.cacheTtl === '1h' ? { cache_ttl: '1h' as const } : {}),
          ...(settings.maxUsdPerDay > 0 ? { max_usd: settings.maxUsdPerDay - spent } : {}),
        },
      },
    };
    const t0 = Date.now();
    let result: RunResult;
    let runSession: string | undefined;
    try {
      result = await runOnce(host, request, opts, (id) => (runSession = id));
    } catch (err) {
      const message = isReinError(err) ? err.message : errorMessage(err);
      const code = isReinError(err) ? err.code : 'internal';
      host.publish({ type: 'heartbeat_alert', at: now().toISOString(), agent, text: `Heartbeat error: ${message}` });
      return await write(
        host,
        emptyBeat({
          ...base,
          outcome: 'error',
          error_code: code,
          model: settings.model,
          message,
          duration_ms: Date.now() - t0,
        }),
        opts.warn,
      );
    } finally {
      if (runSession) await forgetRunSession(host, rc, agent, runSession);
    }

    const answer = result.text.trim();
    const usage = usageFields(result.usage);
    const common = {
      ...base,
      model: settings.model,
      stop_reason: result.stop_reason,
      ...(runSession ? { run_session_id: runSession } : {}),
      duration_ms: Date.now() - t0,
      ...usage,
    };
    if (result.stop_reason !== 'final' || answer === '') {
      const message =
        result.stop_reason === 'cancelled'
          ? 'cancelled'
          : (result.error?.message ??
            (answer === '' ? 'the beat ended without an answer' : `stopped: ${result.stop_reason}`));
      if (result.stop_reason !== 'cancelled')
        host.publish({ type: 'heartbeat_alert', at: now().toISOString(), agent, text: `Heartbeat error: ${message}` });
      const code = result.error?.code ?? (result.stop_reason === 'final' ? 'empty_answer' : result.stop_reason);
      return await write(host, { ...common, outcome: 'error', error_code: code, message }, opts.warn);
    }
    if (isHeartbeatOk(answer)) return await write(host, { ...common, outcome: 'ok' }, opts.warn);

    host.publish({
      type: 'heartbeat_alert',
      at: now().toISOString(),
      agent,
      text: answer,
      ...(latest ? { session_id: latest.id } : {}),
    });
    const appended = await appendAlert(host, rc, answer, {
      now,
      ...(opts.appendWaitMs !== undefined ? { waitMs: opts.appendWaitMs } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    return await write(
      host,
      {
        ...common,
        outcome: 'alert',
        message: answer.length > ALERT_PREVIEW ? `${answer.slice(0, ALERT_PREVIEW - 1)}…` : answer,
        ...(appended.sessionId ? { appended_to: appended.sessionId } : {}),
        ...(appended.note ? { append_note: appended.note } : {}),
      },
      opts.warn,
    );
  } finally {
    guard.release();
  }
}

/** Submits the beat's run and waits for its result; aborting `opts.signal` cancels it. */
type RunResult = Extract<MessageResult, { injected: false }>;

async function runOnce(
  host: TriggerHost,
  request: RunRequest,
  opts: BeatOptions,
  started: (sessionId: string) => void,
): Promise<RunResult> {
  if (opts.signal?.aborted) throw new Error('the heartbeat was stopped before its run started');
  const outcome = await host.submit(request, {
    listener: (entry) => {
      const ev = entry.event;
      if (!('session_id' in ev && 'seq' in ev)) return;
      if (ev.type === 'session_start') started(ev.session_id);
      opts.onEvent?.(ev as ReinEvent);
    },
  });
  // An ephemeral lane is always new: nothing can be in flight there to inject into.
  if (outcome.injected) throw new Error('internal: a heartbeat was injected into a run in flight');
  const run = outcome.run;
  const stop = () => run.controller.abort(new Error('the heartbeat was stopped'));
  opts.signal?.addEventListener('abort', stop, { once: true });
  try {
    const result = await run.done;
    if (result.injected) throw new Error('internal: a heartbeat was injected into a run in flight');
    return result;
  } finally {
    opts.signal?.removeEventListener('abort', stop);
  }
}

/** The beat's run session was never saved: remove what a tool may have spilled for it, and its index entry. */
async function forgetRunSession(host: TriggerHost, rc: AgentRuntimeConfig, agent: string, id: string): Promise<void> {
  if (!isSessionId(id)) return;
  await rm(join(rc.sessionsDir, id), { recursive: true, force: true }).catch(() => undefined);
  host.forgetUnsavedSession?.(agent, id);
}

function usageFields(
  u: UsageTotals,
): Pick<
  BeatRecord,
  | 'input_tokens'
  | 'output_tokens'
  | 'cache_read_tokens'
  | 'cache_creation_tokens'
  | 'total_input_tokens'
  | 'cache_read_share'
  | 'cost_usd'
  | 'requests'
> {
  const total = u.input_tokens + u.cache_read_tokens + u.cache_creation_tokens;
  return {
    input_tokens: u.input_tokens,
    output_tokens: u.output_tokens,
    cache_read_tokens: u.cache_read_tokens,
    cache_creation_tokens: u.cache_creation_tokens,
    total_input_tokens: total,
    cache_read_share: total > 0 ? u.cache_read_tokens / total : 0,
    cost_usd: u.cost_usd,
    requests: u.requests,
  };
}

async function write(
  host: TriggerHost,
  record: BeatRecord,
  warn: ((m: string) => void) | undefined,
): Promise<BeatRecord> {
  try {
    await appendBeat(host.home, record);
  } catch (err) {
    warn?.(`heartbeat of ${record.agent}: could not write its record: ${errorMessage(err)}`);
  }
  return record;
}

/**
 * `heartbeat.pid` made exclusively, so two processes (the daemon and `rein heartbeat run`) never beat
 * one agent at once; one whose process is gone (a beat killed mid-way) is taken over. Synchronous, so
 * two beats of one process cannot both find it free.
 */
function takeGuard(dir: string, alive: (pid: number) => boolean): { release: () => void } | { busy: number } {
  const file = join(dir, 'heartbeat.pid');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      let released = false;
      return {
        release: () => {
          if (released) return;
          released = true;
          rmSync(file, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      let pid = NaN;
      try {
        pid = Number(readFileSync(file, 'utf8').trim());
      } catch {
        // Gone meanwhile: try again.
      }
      // Our own pid is a beat of this very process still going.
      if (Number.isInteger(pid) && pid > 0 && (pid === process.pid || alive(pid))) return { busy: pid };
      rmSync(file, { force: true });
    }
  }
  return { busy: -1 };
}
