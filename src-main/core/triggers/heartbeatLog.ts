/**
 * The heartbeat's own record, one JSON line per beat in `<REIN_HOME>/agents/<name>/heartbeat.jsonl`:
 * when, what came of it (ok, alert, skipped, error), tokens, cost and the share of input read from the
 * prompt cache. It is what `rein heartbeat status` shows and what the daily spending cap adds up. The
 * file is bounded (past 1 MB it is cut back to the newest lines, at most MAX_RECORDS) and written under an inter-process lock, as
 * the daemon and a `rein heartbeat run` may write at once.
 *
 * Next to it, `heartbeat.state.json` says which process keeps the agent's timer and when it started,
 * so the status can tell when the next beat is due.
 */
import { appendFile, readFile, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { agentLayout } from '../agents/index.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { describeWriteError } from '../util/diskErrors.js';
import { withFileLock } from '../util/fileLock.js';

export type BeatOutcome = 'ok' | 'alert' | 'skipped' | 'error';
export type BeatTrigger = 'timer' | 'hand';
export type SkipReason = 'no_goals' | 'daily_cap' | 'overlap' | 'idle';

export interface BeatRecord {
  /** ISO-8601 time the beat started. */
  at: string;
  /** Its local day (`YYYY-MM-DD`), which the daily cap counts by. */
  day: string;
  agent: string;
  trigger: BeatTrigger;
  outcome: BeatOutcome;
  /** Why a beat was skipped. */
  reason?: SkipReason;
  /** The alert (cut to ALERT_PREVIEW characters), the error or the skip, in words. */
  message?: string;
  /** The error's code (`no_api_key`, `budget`, …) when the beat failed. */
  error_code?: string;
  model?: string;
  stop_reason?: string;
  /** The beat's own run; its session is never saved. */
  run_session_id?: string;
  /** The conversation the alert was added to. */
  appended_to?: string;
  /** Why an alert was not added to a conversation. */
  append_note?: string;
  duration_ms?: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
  /** Uncached, cached and cache-written input together. */
  total_input_tokens: number;
  /** cache_read_tokens / total_input_tokens (0 when nothing was sent). */
  cache_read_share: number;
  cost_usd: number;
  requests: number;
}

export const MAX_RECORDS = 1_000;
/** Trimmed back to MAX_RECORDS once the file grows past this size. */
const TRIM_AT_BYTES = 1_024 * 1_024;
export const ALERT_PREVIEW = 500;

export const heartbeatLogFile = (home: string, agent: string): string =>
  join(agentLayout(home, agent).dir, 'heartbeat.jsonl');
export const heartbeatStateFile = (home: string, agent: string): string =>
  join(agentLayout(home, agent).dir, 'heartbeat.state.json');

const pad = (n: number) => String(n).padStart(2, '0');
/** The local calendar day of `d`, `YYYY-MM-DD`. */
export function localDay(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** A record with no usage: a skipped beat, or one that failed before the model was called. */
export function emptyBeat(
  base: Pick<BeatRecord, 'at' | 'day' | 'agent' | 'trigger' | 'outcome'> & Partial<BeatRecord>,
): BeatRecord {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_creation_tokens: 0,
    total_input_tokens: 0,
    cache_read_share: 0,
    cost_usd: 0,
    requests: 0,
    ...base,
  };
}

/** Appends one record; past TRIM_AT_BYTES the file is cut back to the newest MAX_RECORDS lines, atomically. */
export async function appendBeat(home: string, record: BeatRecord): Promise<void> {
  const file = heartbeatLogFile(home, record.agent);
  await withFileLock(file, async () => {
    const before = await stat(file).then(
      (st) => st.size,
      () => 0,
    );
    try {
      await appendFile(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    } catch (e) {
      // A full disk may have taken part of the line: cut it off (under the lock, so only ours), or the
      // next record would be glued to it and both be lost.
      await truncate(file, before).catch(() => undefined);
      throw describeWriteError(e, file);
    }
    const size = (await stat(file)).size;
    if (size <= TRIM_AT_BYTES) return;
    // The newest lines, at most MAX_RECORDS and half the trigger size, so the next trim is far off.
    const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
    const kept: string[] = [];
    let bytes = 0;
    for (let i = lines.length - 1; i >= 0 && kept.length < MAX_RECORDS; i--) {
      bytes += Buffer.byteLength(lines[i]!) + 1;
      if (bytes > TRIM_AT_BYTES / 2) break;
      kept.push(lines[i]!);
    }
    await atomicWriteFile(file, `${kept.reverse().join('\n')}\n`, { mode: 0o600 });
  });
}

/** Every readable record, oldest first (a damaged line is skipped). */
export async function readBeats(home: string, agent: string): Promise<BeatRecord[]> {
  let text: string;
  try {
    text = await readFile(heartbeatLogFile(home, agent), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: BeatRecord[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const r = JSON.parse(line) as BeatRecord;
      if (r && typeof r === 'object' && typeof r.at === 'string' && typeof r.outcome === 'string') out.push(r);
    } catch {
      // A line cut by a crash mid-append: the others still count.
    }
  }
  return out;
}

/** What the agent's beats cost on the local day of `now`. */
export function spentOn(records: readonly BeatRecord[], now: Date): number {
  const day = localDay(now);
  let sum = 0;
  for (const r of records) if (r.day === day && Number.isFinite(r.cost_usd)) sum += r.cost_usd;
  return sum;
}

export interface HeartbeatState {
  /** The process that keeps the timer (the daemon or the desktop app). */
  pid: number;
  /** When the timer started: beats fall at anchor + k × every. */
  anchor: string;
  every_ms: number;
}

export async function writeHeartbeatState(home: string, agent: string, state: HeartbeatState): Promise<void> {
  await atomicWriteFile(heartbeatStateFile(home, agent), `${JSON.stringify(state)}\n`, { mode: 0o600 });
}

export async function readHeartbeatState(home: string, agent: string): Promise<HeartbeatState | undefined> {
  try {
    const s = JSON.parse(await readFile(heartbeatStateFile(home, agent), 'utf8')) as HeartbeatState;
    return typeof s.pid === 'number' && typeof s.anchor === 'string' && typeof s.every_ms === 'number' ? s : undefined;
  } catch {
    return undefined;
  }
}
