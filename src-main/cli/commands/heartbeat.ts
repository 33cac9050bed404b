/**
 * `rein heartbeat run AGENT | status [AGENT]`: an agent's heartbeat by hand, and what its beats did.
 * A beat by hand goes to the daemon when one is running (`POST /agents/{name}/heartbeat`: its alert
 * waits for the person's run on the same conversation and reaches the app), else it runs here,
 * headless; either way with origin unattended (as the daemon's timer would run it: a call that needs
 * approval is refused). Timed beats only run in the daemon or the desktop app; the status says when
 * the next one is due.
 */
import { homedir } from 'node:os';
import { parseArgs } from 'node:util';
import {
  listAgents,
  parseDailyWindow,
  resolveAgentRuntimeConfig,
  type AgentRuntimeConfig,
} from '../../core/agents/index.js';
import { loadConfig } from '../../core/config/load.js';
import { storedTrust } from '../folderTrust.js';
import { AGENT_NAME_RE, DEFAULT_AGENT, reinHome } from '../../core/config/paths.js';
import type { GlobalConfig } from '../../core/config/schema.js';
import { daemonRequest } from '../../core/daemon/client.js';
import { runningDaemon, type DaemonInfo } from '../../core/daemon/daemonFile.js';
import { ReinError, errorMessage, isReinError, type ReinErrorCode } from '../../core/errors.js';
import { ReinService } from '../../core/service/reinService.js';
import {
  beatSettings,
  localDay,
  nextBeatAt,
  readBeats,
  readGoals,
  readHeartbeatState,
  runHeartbeat,
  spentOn,
  type BeatRecord,
} from '../../core/triggers/index.js';
import { UsageError, type CliIo } from '../io.js';
import { groupDigits } from '../../core/util/groupDigits.js';
import { isProcessAlive } from '../../core/util/processAlive.js';
import { stopOnSignals } from '../stopSignals.js';

export const HEARTBEAT_HELP = `Usage:
  rein heartbeat run AGENT [--json]       one beat now (unattended): in the running daemon, else here
  rein heartbeat status [AGENT] [--json]  last beat, outcome, tokens, cost, today's spend, next beat

A beat works through the agent's HEARTBEAT.md. The answer HEARTBEAT_OK is silent (markdown around it,
punctuation or a short remark that tells nothing included: "HEARTBEAT_OK - nothing new"); anything else
is an alert: a notification, and a message in the agent's latest conversation. Timed beats (config.yaml
heartbeat.every) run in the daemon or the desktop app. Records: $REIN_HOME/agents/AGENT/heartbeat.jsonl.
run exits 0 for ok, alert or skipped, 1 when the beat failed; --json prints its record.
status --json prints one object for AGENT, else an array.
`;

export async function heartbeatCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(HEARTBEAT_HELP);
    return sub === undefined ? 2 : 0;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(HEARTBEAT_HELP);
    return 0;
  }
  if (positionals.length > 1) throw new UsageError(`heartbeat ${sub}: one AGENT at most`);
  const agent = positionals[0];
  if (agent !== undefined && !AGENT_NAME_RE.test(agent)) throw new UsageError(`"${agent}" is not a valid agent name`);
  if (agent === DEFAULT_AGENT) throw new UsageError('the built-in agent has no heartbeat: name one of your agents');
  const home = reinHome(io.env);
  const fail = (code: number, message: string) => {
    io.stderr.write(`rein: ${message}\n`);
    return code;
  };
  try {
    const { config } = await loadConfig({ home, cwd: io.cwd, ...storedTrust(io) });
    if (sub === 'run') {
      if (agent === undefined) throw new UsageError('heartbeat run needs an AGENT');
      return await runOne(home, config, agent, io, values.json ?? false);
    }
    if (sub === 'status') return await status(home, config, agent, io, values.json ?? false);
    throw new UsageError(`unknown heartbeat subcommand "${sub}"`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (isReinError(err))
      return fail(err.code === 'invalid_input' || err.code === 'config_invalid' ? 2 : 1, err.message);
    return fail(1, err instanceof Error ? (err.stack ?? err.message) : String(err));
  }
}

async function runOne(home: string, config: GlobalConfig, agent: string, io: CliIo, json: boolean): Promise<number> {
  const warnings: string[] = [];
  // SIGTERM, SIGINT, SIGHUP: the beat is cancelled and recorded, and the command exits (cli/stopSignals.ts).
  const stop = stopOnSignals();
  const controller = { signal: stop.signal };
  let record: BeatRecord;
  try {
    const daemon = await runningDaemon(home);
    if (daemon) record = await beatInDaemon(daemon, agent, controller.signal);
    else {
      const service = await ReinService.create({
        home,
        cwd: io.env.HOME ?? homedir(),
        env: io.env,
        config,
        version: 'cli',
        warn: (m) => warnings.push(m),
      });
      try {
        record = await runHeartbeat(service, agent, {
          trigger: 'hand',
          signal: controller.signal,
          warn: (m) => warnings.push(m),
        });
      } finally {
        await service.dispose();
      }
    }
  } finally {
    stop.dispose();
  }
  for (const w of warnings) io.stderr.write(`rein: warning: ${w}\n`);
  if (json) io.stdout.write(`${JSON.stringify(record)}\n`);
  else io.stdout.write(`${describeBeat(record)}\n`);
  if (record.outcome === 'error' && record.error_code === 'no_api_key') return 2;
  return record.outcome === 'error' ? 1 : 0;
}

/** The beat, made by the running daemon; its refusals keep their code (not_found: exit 1, like a beat here). */
async function beatInDaemon(daemon: DaemonInfo, agent: string, signal: AbortSignal): Promise<BeatRecord> {
  const res = await daemonRequest(daemon, 'POST', `/agents/${encodeURIComponent(agent)}/heartbeat`, undefined, {
    timeoutMs: 0,
    signal,
  });
  if (res.status === 200) return res.json as BeatRecord;
  const body = (res.json ?? {}) as { error?: unknown; code?: unknown };
  const message = typeof body.error === 'string' ? body.error : `HTTP ${res.status}`;
  throw new ReinError(
    typeof body.code === 'string' ? (body.code as ReinErrorCode) : 'internal',
    `the daemon refused the beat (${res.status}): ${message}`,
  );
}

/** One beat in words: outcome first, then what it cost. */
function describeBeat(r: BeatRecord): string {
  const cost = r.requests > 0 ? ` · ${tokens(r)} · $${r.cost_usd.toFixed(4)}` : '';
  switch (r.outcome) {
    case 'ok':
      return `ok: HEARTBEAT_OK, nothing needs attention${cost}`;
    case 'alert':
      return `alert${cost}${r.appended_to ? ` · added to conversation ${r.appended_to}` : r.append_note ? ` · ${r.append_note}` : ''}\n${r.message ?? ''}`;
    case 'skipped':
      return `skipped: ${r.message ?? r.reason ?? ''}`;
    case 'error':
      return `error: ${r.message ?? 'the beat failed'}${cost}`;
  }
}

function tokens(r: BeatRecord): string {
  return `${groupDigits(r.total_input_tokens)} input tokens (${Math.round(r.cache_read_share * 100)}% from cache), ${groupDigits(r.output_tokens)} output`;
}

interface AgentStatus {
  agent: string;
  /** The agent's config.yaml has a heartbeat block. */
  configured: boolean;
  every?: string;
  active_hours?: string;
  model?: string;
  max_usd_per_day?: number;
  pause_when_idle?: string;
  /** HEARTBEAT.md exists and is not empty. */
  goals: boolean;
  last: BeatRecord | null;
  /** The newest beat that ran (not skipped). */
  last_run: BeatRecord | null;
  today_usd: number;
  beats_today: number;
  /** When the next timed beat is due; null when no daemon or app keeps the timer. */
  next_beat: string | null;
  timer_pid: number | null;
  error?: string;
}

async function status(
  home: string,
  config: GlobalConfig,
  agent: string | undefined,
  io: CliIo,
  json: boolean,
): Promise<number> {
  const names = agent ? [agent] : await listAgents(home);
  const now = new Date();
  const all: AgentStatus[] = [];
  for (const name of names) {
    let rc: AgentRuntimeConfig | undefined;
    let error: string | undefined;
    try {
      rc = await resolveAgentRuntimeConfig(home, config, name);
    } catch (err) {
      if (agent !== undefined && isReinError(err, 'not_found')) throw err;
      error = errorMessage(err);
    }
    const records = await readBeats(home, name);
    if (!agent && !rc?.effective.heartbeat && records.length === 0 && !error) continue;
    all.push(await statusOf(home, name, rc, records, now, error));
  }
  if (json) {
    io.stdout.write(`${JSON.stringify(agent ? all[0] : all)}\n`);
    return 0;
  }
  if (all.length === 0) {
    io.stdout.write(
      "No agent has a heartbeat (set heartbeat.every in an agent's config.yaml and write its HEARTBEAT.md).\n",
    );
    return 0;
  }
  io.stdout.write(`${all.map(render).join('\n\n')}\n`);
  return 0;
}

async function statusOf(
  home: string,
  name: string,
  rc: AgentRuntimeConfig | undefined,
  records: BeatRecord[],
  now: Date,
  error: string | undefined,
): Promise<AgentStatus> {
  const hb = rc?.effective.heartbeat;
  const own = rc?.agentConfig.heartbeat;
  const settings = rc ? beatSettings(rc) : undefined;
  const today = localDay(now);
  const state = hb ? await readHeartbeatState(home, name) : undefined;
  const timer = state && isProcessAlive(state.pid) ? state : undefined;
  const window = own?.active_hours ? parseDailyWindow(own.active_hours) : undefined;
  const next =
    timer && hb
      ? nextBeatAt(new Date(timer.anchor), hb.everyMs, window?.ok ? window.value : undefined, now)
      : undefined;
  const ran = [...records].reverse().find((r) => r.outcome !== 'skipped');
  return {
    agent: name,
    configured: hb !== undefined,
    ...(own ? { every: own.every } : {}),
    ...(own?.active_hours ? { active_hours: own.active_hours } : {}),
    ...(own?.pause_when_idle ? { pause_when_idle: own.pause_when_idle } : {}),
    ...(settings ? { model: settings.model, max_usd_per_day: settings.maxUsdPerDay } : {}),
    goals: (await readGoals(home, name).catch(() => undefined)) !== undefined,
    last: records[records.length - 1] ?? null,
    last_run: ran ?? null,
    today_usd: spentOn(records, now),
    beats_today: records.filter((r) => r.day === today && r.outcome !== 'skipped').length,
    next_beat: next ? next.toISOString() : null,
    timer_pid: timer ? timer.pid : null,
    ...(error ? { error } : {}),
  };
}

function render(s: AgentStatus): string {
  const lines: string[] = [];
  const schedule = s.configured
    ? `every ${s.every}${s.active_hours ? `, ${s.active_hours}` : ''}${s.pause_when_idle ? `, paused after ${s.pause_when_idle} without a message` : ''}`
    : 'no heartbeat in config.yaml';
  lines.push(`${s.agent}  ${schedule}${s.model ? ` · model ${s.model}` : ''}`);
  if (s.error) lines.push(`  problem     ${s.error}`);
  if (!s.goals) lines.push('  goals       HEARTBEAT.md is missing or empty: beats do nothing');
  if (s.last_run) {
    const r = s.last_run;
    const cost = r.requests > 0 ? ` · ${tokens(r)} · $${r.cost_usd.toFixed(4)}` : '';
    lines.push(`  last beat   ${stamp(r.at)}  ${r.outcome}${cost}`);
    if (r.outcome !== 'ok' && r.message) lines.push(`              ${oneLine(r.message)}`);
  } else lines.push('  last beat   none yet');
  if (s.last && s.last.outcome === 'skipped')
    lines.push(`  last skip   ${stamp(s.last.at)}  ${s.last.message ?? s.last.reason ?? ''}`);
  const cap = s.max_usd_per_day ? ` of $${s.max_usd_per_day.toFixed(2)}` : '';
  lines.push(`  today       $${s.today_usd.toFixed(4)}${cap} (${s.beats_today} beat${s.beats_today === 1 ? '' : 's'})`);
  if (s.next_beat) lines.push(`  next beat   ${stamp(s.next_beat)} (timer in pid ${s.timer_pid})`);
  else if (s.configured)
    lines.push('  next beat   not scheduled: timed beats run while the daemon or the desktop app runs');
  return lines.join('\n');
}

function stamp(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${localDay(d)} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function oneLine(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}
