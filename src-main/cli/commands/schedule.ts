/**
 * `rein schedule …`: schedules that run an agent's prompt on a cron, as launchd jobs on macOS (so they
 * run with the app closed and after the Mac wakes) or inside the daemon elsewhere. docs/schedules.md.
 * Exit codes: 0 ok, 1 failure (a run that did not finish), 2 bad usage or a bad cron / prompt / field.
 */
import { homedir } from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/load.js';
import { storedTrust } from '../folderTrust.js';
import { reinHome } from '../../core/config/paths.js';
import type { GlobalConfig } from '../../core/config/schema.js';
import { daemonRequest } from '../../core/daemon/client.js';
import { runningDaemon } from '../../core/daemon/daemonFile.js';
import { errorMessage, isReinError } from '../../core/errors.js';
import { catchUpDecision, latestMissedFireTime } from '../../core/schedule/catchUp.js';
import { checkCron } from '../../core/schedule/cronCheck.js';
import { Schedules } from '../../core/schedule/schedules.js';
import { launchdLogPaths } from '../../core/schedule/launchdPlist.js';
import { rotateLaunchdLogs, writeRunLog } from '../../core/schedule/runLogs.js';
import { MAX_RUN_LOGS, pruneScheduleLogs, scheduleLogsDir, type Schedule } from '../../core/schedule/store.js';
import { noteSavedSession } from '../../core/search/pendingIndex.js';
import { isNotifier, systemNotifier } from '../../core/notify/systemNotifier.js';
import { windowlessNotice } from '../../core/notify/windowlessNotices.js';
import { ReinService } from '../../core/service/reinService.js';
import { dropRunGuardSync, type ScheduleRunOutcome } from '../../core/triggers/scheduleRuns.js';
import { readScheduleLog, scheduleLogs, scheduleView } from '../../core/service/schedules.js';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError, type CliIo } from '../io.js';
import { stopOnSignals } from '../stopSignals.js';

export const SCHEDULE_HELP = `Usage:
  rein schedule create --cron EXPR --prompt TEXT [--agent NAME] [--catch-up WHEN] [--json]
  rein schedule list [--json]
  rein schedule show ID [--json]
  rein schedule update ID [--cron EXPR] [--prompt TEXT] [--agent NAME] [--catch-up WHEN] [--json]
  rein schedule enable ID | disable ID | remove ID
  rein schedule run ID [--json]          run it now (unattended), by hand
  rein schedule logs ID [--all] [--json] the newest run log (--all: list every log)
  rein schedule next ID [--count N] [--json]   upcoming fire times, in local time
  rein schedule sync [--json]            rewrite launchd jobs that no longer start this Rein (node
                                         upgraded, Rein moved), remove plists of gone schedules

EXPR is classic five-field cron in local time: minute hour day-of-month month day-of-week, with names
(MON, JAN), ranges, lists, steps and @hourly/@daily/@weekly/@monthly/@yearly. On macOS each schedule is
a launchd job (~/Library/LaunchAgents/dev.rein.schedule.<id>.plist) and runs while the app is closed;
elsewhere the daemon runs them (config schedule.backend, REIN_SCHEDULE_BACKEND). Runs are unattended:
a tool call that needs approval is refused (see docs/schedules.md).

WHEN is what a time missed while the Mac was off or asleep gets: once (the default: one catch-up run),
skip (none), or "within DURATION" (one, only if the missed time is at most that long ago: within 2h).
`;

interface Flags {
  cron?: string;
  prompt?: string;
  agent?: string;
  'catch-up'?: string;
  json?: boolean;
  all?: boolean;
  count?: string;
  'from-launchd'?: boolean;
}

export async function scheduleCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(SCHEDULE_HELP);
    return sub === undefined ? 2 : 0;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        cron: { type: 'string' },
        prompt: { type: 'string' },
        agent: { type: 'string' },
        'catch-up': { type: 'string' },
        json: { type: 'boolean' },
        all: { type: 'boolean' },
        count: { type: 'string' },
        'from-launchd': { type: 'boolean' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const flags = parsed.values as Flags;
  const [id, ...extra] = parsed.positionals;
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const home = reinHome(io.env);
  const out = (s: string) => io.stdout.write(s.endsWith('\n') ? s : `${s}\n`);
  const needId = (): string => {
    if (!id) throw new UsageError(`schedule ${sub} needs the schedule's ID (rein schedule list shows them)`);
    return id;
  };

  try {
    const { config } = await loadConfig({ home, cwd: io.cwd, ...storedTrust(io) });
    const schedules = new Schedules({
      home,
      env: io.env,
      config,
      ...(process.argv[1] ? { launcher: process.argv[1] } : {}),
    });
    const show = (s: Schedule, count = 3, detail = false) => {
      const view = scheduleView(s, schedules.backend, count);
      if (flags.json) out(JSON.stringify(view));
      else out(detail ? describeInFull(view) : describe(view));
    };
    switch (sub) {
      case 'create': {
        if (flags.cron === undefined) throw new UsageError('schedule create needs --cron EXPR');
        if (flags.prompt === undefined) throw new UsageError('schedule create needs --prompt TEXT');
        show(
          await schedules.create({
            cron: flags.cron,
            prompt: flags.prompt,
            ...(flags.agent !== undefined ? { agent: flags.agent } : {}),
            ...(flags['catch-up'] !== undefined ? { catch_up: flags['catch-up'] } : {}),
          }),
        );
        return 0;
      }
      case 'list': {
        const all = await schedules.list();
        if (flags.json) out(JSON.stringify(all.map((s) => scheduleView(s, schedules.backend))));
        else if (all.length === 0)
          out('No schedules. Create one with `rein schedule create --cron EXPR --prompt TEXT`.');
        else for (const s of all) out(describe(scheduleView(s, schedules.backend, 1)));
        return 0;
      }
      case 'show':
        show(await schedules.get(needId()), 5, true);
        return 0;
      case 'update': {
        if (
          flags.cron === undefined &&
          flags.prompt === undefined &&
          flags.agent === undefined &&
          flags['catch-up'] === undefined
        ) {
          throw new UsageError('schedule update needs at least one of --cron, --prompt, --agent, --catch-up');
        }
        show(
          await schedules.update(needId(), {
            ...(flags.cron !== undefined ? { cron: flags.cron } : {}),
            ...(flags.prompt !== undefined ? { prompt: flags.prompt } : {}),
            ...(flags.agent !== undefined ? { agent: flags.agent } : {}),
            ...(flags['catch-up'] !== undefined ? { catch_up: flags['catch-up'] } : {}),
          }),
        );
        return 0;
      }
      case 'enable':
        show(await schedules.enable(needId()));
        return 0;
      case 'disable':
        show(await schedules.disable(needId()));
        return 0;
      case 'remove': {
        const s = await schedules.remove(needId());
        out(flags.json ? JSON.stringify({ removed: true, id: s.id }) : `removed schedule ${s.id}`);
        return 0;
      }
      case 'next': {
        const count = flags.count === undefined ? 5 : Number(flags.count);
        if (!Number.isInteger(count) || count < 1 || count > 1000)
          throw new UsageError('--count: expected a whole number from 1 to 1000');
        const times = await schedules.next(needId(), count);
        if (flags.json) out(JSON.stringify({ id, next: times.map((t) => t.toISOString()) }));
        else for (const t of times) out(localTime(t));
        return 0;
      }
      case 'logs': {
        const sid = needId();
        await schedules.get(sid);
        if (flags.all) {
          const logs = await scheduleLogs(home, sid);
          if (flags.json)
            out(JSON.stringify(logs.map((l) => ({ ...l, file: join(scheduleLogsDir(home, sid), l.name) }))));
          else if (logs.length === 0) out('No runs yet.');
          else for (const l of logs) out(`${l.name}  ${l.size} bytes`);
          return 0;
        }
        const log = await readScheduleLog(home, sid).catch((e: unknown) => {
          if (isReinError(e, 'not_found')) return undefined;
          throw e;
        });
        if (!log) out(flags.json ? JSON.stringify(null) : 'No runs yet.');
        else if (flags.json) out(JSON.stringify({ ...log, file: join(scheduleLogsDir(home, sid), log.name) }));
        else io.stdout.write(log.text);
        return 0;
      }
      case 'sync': {
        const report = await schedules.sync();
        if (flags.json) out(JSON.stringify({ backend: schedules.backend, ...report }));
        else if (report.problem) io.stderr.write(`rein: ${report.problem}\n`);
        else if (schedules.backend !== 'launchd')
          out('Nothing to sync: the daemon runs the schedules (backend: daemon).');
        else if (report.jobs.length === 0) out('No launchd jobs to sync.');
        else
          for (const j of report.jobs)
            out(`${j.id}  ${j.action}${j.reason ? `: ${j.reason}` : ''}${j.error ? `: ${j.error}` : ''}`);
        return report.problem || report.jobs.some((j) => j.action === 'failed') ? 1 : 0;
      }
      case 'run':
        return await runNow(needId(), flags, { home, io, config, schedules, out });
      default:
        throw new UsageError(`unknown schedule command "${sub}"; see rein schedule --help`);
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (isReinError(err, 'invalid_input') || isReinError(err, 'invalid_request')) {
      io.stderr.write(`rein: ${err.message}\n`);
      return 2;
    }
    if (isReinError(err)) {
      io.stderr.write(`rein: ${err.message}\n`);
      return err.code === 'config_invalid' ? 2 : 1;
    }
    io.stderr.write(`rein: ${errorMessage(err)}\n`);
    return 1;
  }
}

interface RunContext {
  home: string;
  io: CliIo;
  config: GlobalConfig;
  schedules: Schedules;
  out(s: string): void;
}

/**
 * `schedule run ID [--from-launchd]`. From launchd, the minute is checked first: launchd fires on
 * dicts that classic cron reads the same way, but around days 29–31 and Month with Weekday it can
 * differ, and after a sleep it starts missed jobs once on wake. A run at a minute the cron does not name
 * goes ahead only as that catch-up (and its log says so). Then the run goes to the daemon when one is
 * running (its approvals and notifications reach the app), else it runs here, headless.
 */
async function runNow(id: string, flags: Flags, c: RunContext): Promise<number> {
  const schedule = await c.schedules.get(id);
  const trigger = flags['from-launchd'] ? 'launchd' : 'hand';
  const now = new Date();
  let note: string | undefined;
  if (flags['from-launchd']) {
    // launchd only ever appends to the job's stdout/stderr: what earlier runs wrote is rotated now
    // (over 1 MiB → `.1`; launchd's open descriptor follows the renamed file: runLogs.ts).
    const launchdLogs = launchdLogPaths(c.home, id);
    await rotateLaunchdLogs([launchdLogs.stdout, launchdLogs.stderr]);
    const skip = async (why: string) => {
      const dir = scheduleLogsDir(c.home, id);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await pruneScheduleLogs(c.home, id, MAX_RUN_LOGS - 1);
      writeRunLog(dir, now, `${now.toISOString()} launchd started schedule ${id}: ${why}\n`);
      c.out(why);
      return 0;
    };
    if (!schedule.enabled) return skip('skipped: the schedule is disabled');
    const cron = checkCron(schedule.cron);
    if (!cron.isDue(now)) {
      // The latest time missed since the schedule last ran or was set (an edit or enable starts afresh).
      const missed = latestMissedFireTime(schedule, now, 60_000);
      if (missed === undefined)
        return skip(`skipped: ${localTime(now)} is not a time of "${schedule.cron}" and no run was missed`);
      const decision = catchUpDecision(schedule.catch_up, missed, now, localTime);
      if (!decision.run) return skip(decision.why);
      note = `catching up: launchd started this run on wake or at login, while the Mac slept or was off; ${decision.note}`;
    }
  }

  // SIGTERM (logout, shutdown, launchctl bootout), SIGINT, SIGHUP: the run is cancelled, its session
  // saved, its outcome recorded as interrupted and its guard dropped, and the command exits.
  const stop = stopOnSignals({ stderr: c.io.stderr });
  // The deadline's last resort: no guard of this process outlives it (its last_run then reads interrupted).
  stop.onDeadline(() => dropRunGuardSync(c.home, id));
  try {
    return await runHere(id, schedule, trigger, note, flags, c, stop.signal).then((code) => stop.exitCode ?? code);
  } finally {
    stop.dispose();
  }
}

async function runHere(
  id: string,
  schedule: Schedule,
  trigger: 'launchd' | 'hand',
  note: string | undefined,
  flags: Flags,
  c: RunContext,
  signal: AbortSignal,
): Promise<number> {
  let outcome: ScheduleRunOutcome;
  const daemon = await runningDaemon(c.home);
  if (daemon) {
    let res;
    try {
      // Stopped meanwhile, this request goes away, and the daemon stops the run (and records it).
      res = await daemonRequest(
        daemon,
        'POST',
        `/schedules/${id}/run`,
        { trigger, ...(note ? { note } : {}), wait: true },
        { timeoutMs: 0, signal },
      );
    } catch (e) {
      if (!signal.aborted) throw e;
      c.out(`interrupted: ${errorMessage(signal.reason)}; the daemon stops the run, saves its session and records it`);
      return 1;
    }
    if (res.status >= 400)
      throw new Error(
        `the daemon refused the run (${res.status}): ${String((res.json as { error?: unknown })?.error ?? '')}`,
      );
    outcome = res.json as ScheduleRunOutcome;
  } else {
    const service = await ReinService.create({
      home: c.home,
      cwd: homedir(),
      env: c.io.env,
      config: c.config,
      version: 'cli',
    });
    try {
      outcome = await service.runScheduleNow(id, trigger, note, signal);
    } finally {
      await service.dispose();
    }
    if (outcome.session_id) await indexSession(c.home, schedule.agent, outcome.session_id, c.io);
    // Nobody is watching a launchd run made here: its end becomes a system notification (a daemon notifies itself).
    if (trigger === 'launchd' && c.config.daemon.notifications) await notifyOutcome(schedule.agent, id, outcome, c.io);
  }
  if (flags.json) c.out(JSON.stringify(outcome));
  else {
    c.out(
      `${outcome.status}${outcome.session_id ? ` · session ${outcome.session_id}` : ''}${outcome.log ? ` · log ${outcome.log}` : ''}`,
    );
    if (outcome.text) c.out(outcome.text);
    else if (outcome.message) c.out(outcome.message);
  }
  return outcome.status === 'finished' || (outcome.status === 'skipped' && trigger === 'launchd') ? 0 : 1;
}

/** The notice the app would show for this outcome, as a system notification; a failure only warns. */
async function notifyOutcome(agent: string, id: string, outcome: ScheduleRunOutcome, io: CliIo): Promise<void> {
  if (outcome.status !== 'finished' && outcome.status !== 'failed') return;
  const content = windowlessNotice({
    kind: 'schedule_ended',
    agent,
    schedule_id: id,
    ok: outcome.status === 'finished',
    ...(outcome.message !== undefined ? { message: outcome.message } : {}),
  });
  if (!content) return;
  const notifier = systemNotifier({ env: io.env });
  try {
    if (!isNotifier(notifier)) throw new Error(notifier.why);
    await notifier.show({ title: content.title, body: content.body });
  } catch (err) {
    io.stderr.write(`rein: warning: no notification for the run: ${errorMessage(err)}\n`);
  }
}

/** Keeps the search index current for a run made here (search/pendingIndex.ts; a failure only warns). */
async function indexSession(home: string, agent: string, sessionId: string, io: CliIo): Promise<void> {
  try {
    await noteSavedSession(home, { agent, id: sessionId });
  } catch (err) {
    io.stderr.write(
      `rein: warning: the run's session was saved but the search index was not told (${errorMessage(err)}); \`rein sessions reindex\` repairs it\n`,
    );
  }
}

function localTime(d: Date): string {
  return d.toLocaleString('en-GB', {
    weekday: 'short',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hour12: false,
  });
}

/** `show`: the list's line, then the whole prompt, every upcoming time (five) and the last run. */
function describeInFull(s: ReturnType<typeof scheduleView>): string {
  const lines = [describe(s), `  prompt: ${s.prompt.replace(/\n/g, '\n          ')}`];
  if (s.next.length > 0)
    lines.push(
      `  next ${s.next.length === 1 ? 'run' : `${s.next.length} runs`}:`,
      ...s.next.map((at) => `    ${localTime(new Date(at))}`),
    );
  else
    lines.push(
      s.enabled
        ? '  next runs: none (the expression has no upcoming time)'
        : '  next runs: none while disabled (rein schedule enable ID)',
    );
  if (s.last_run) {
    const r = s.last_run;
    const session = r.session ?? r.session_id;
    lines.push(
      `  last run: ${r.status} ${localTime(new Date(r.started_at))}${session ? ` · session ${session}` : ''}${r.error ? ` · ${r.error}` : ''}`,
    );
  } else lines.push('  last run: never');
  return lines.join('\n');
}

function describe(s: ReturnType<typeof scheduleView>): string {
  const next = s.next[0] ? `next ${localTime(new Date(s.next[0]))}` : s.enabled ? 'no upcoming time' : 'disabled';
  const last = s.last_run ? ` · last ${s.last_run.status} ${localTime(new Date(s.last_run.started_at))}` : '';
  const catchUp = s.catch_up === 'once' ? '' : ` · catch-up ${s.catch_up}`;
  const prompt = s.prompt.length > 60 ? `${s.prompt.slice(0, 59)}…` : s.prompt;
  return `${s.id}  ${s.cron.padEnd(15)} ${s.agent.padEnd(10)} ${next}${last}${catchUp}  ${prompt}`;
}
