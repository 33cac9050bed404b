/**
 * Hooks: commands from config.yaml that the harness runs at four moments. Each gets the event as JSON on
 * stdin and may answer JSON on stdout:
 *
 *   PreToolUse   exit 2, or {"decision":"deny","reason":…}, refuses the call; {"input":{…}} replaces its input.
 *   PostToolUse  observed only; failures are logged.
 *   SessionStart {"context":"…"} adds text to the session's context.
 *   Stop         exit 2, or {"decision":"block","message":…}, asks the loop to keep going with that message
 *                (the loop honours it through a StopHookGate).
 *
 * A hook that fails, times out or answers nonsense is logged and otherwise ignored: hooks must never
 * crash a run. A hook cannot grant anything — permission still comes from the permission engine.
 * Entries run one after another in config order; each PreToolUse hook sees the input as modified by the
 * ones before it.
 */
import { z } from 'zod';
import type { GlobalConfig } from '../config/schema.js';
import { describeIssues } from '../util/zodIssues.js';
import { childEnvironment } from '../process/childEnv.js';
import { runHookProcess, type HookProcessResult } from './hookProcess.js';
import { matchesTool } from './matcher.js';

export type HookEvent = keyof GlobalConfig['hooks'];
export type HookEntry = GlobalConfig['hooks'][HookEvent][number];

export const DEFAULT_HOOK_TIMEOUT_MS = 10_000;
/** Set in every hook's environment; a Rein started from inside a hook runs no hooks itself (no recursion). */
export const IN_HOOK_ENV = 'REIN_IN_HOOK';

export interface HookPayload {
  session_id: string;
  agent: string;
  tool?: string;
  input?: unknown;
  result?: unknown;
  [key: string]: unknown;
}

export interface HookLogEntry {
  level: 'info' | 'warning';
  event: HookEvent;
  command: string;
  message: string;
}

export interface RunHooksOptions {
  cwd: string;
  /** Added to (and overriding) the parent's environment for the hook. */
  env?: Record<string, string>;
  /**
   * `tools.env_passthrough`: secret-looking variables of Rein's environment the hook may see. The rest of
   * them, and Rein's own credentials always, are left out (core/process/childEnv.ts).
   */
  envPassthrough?: readonly string[];
  /** Default per-hook timeout; an entry's own `timeout` (seconds) wins. */
  timeoutMs?: number;
  log?: (entry: HookLogEntry) => void;
  signal?: AbortSignal;
}

export interface HookRunReport {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  /** Why this hook counts as failed (non-zero exit, timeout, bad JSON shape…); absent when it worked. */
  failure?: string;
}

export interface HookOutcome {
  /** PreToolUse: a hook refused the call. The tool must not run; the reason goes to the model. */
  deny?: { reason: string; command: string };
  /** PreToolUse: the input after every hook that replaced it; absent when none did. */
  input?: Record<string, unknown>;
  /** SessionStart: context text from the hooks that gave some, in config order. */
  context: string[];
  /** Stop: a hook asked the model to keep going with this message. */
  block?: { message: string; command: string };
  runs: HookRunReport[];
}

/** What a hook may print on stdout. Unknown keys are ignored so hooks written for other tools still work. */
const HookReply = z.looseObject({
  decision: z.enum(['allow', 'deny', 'block', 'continue']).optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  input: z.record(z.string(), z.unknown()).optional(),
  context: z.string().optional(),
});
type HookReply = z.infer<typeof HookReply>;

const defaultLog = (entry: HookLogEntry) => {
  if (entry.level === 'warning') console.warn(`rein: ${entry.event} hook \`${entry.command}\`: ${entry.message}`);
};

export async function runHooks(
  event: HookEvent,
  entries: readonly HookEntry[],
  payload: HookPayload,
  opts: RunHooksOptions,
): Promise<HookOutcome> {
  const outcome: HookOutcome = { context: [], runs: [] };
  const log = opts.log ?? defaultLog;
  const applicable = entries.filter((e) => matchesTool(e.matcher, payload.tool));
  if (applicable.length === 0) return outcome;
  if (process.env[IN_HOOK_ENV] === '1') {
    for (const e of applicable)
      log({ level: 'info', event, command: e.command, message: 'skipped: already inside a hook' });
    return outcome;
  }

  let input = payload.input;
  for (const entry of applicable) {
    const timeoutMs = entry.timeout !== undefined ? entry.timeout * 1000 : (opts.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS);
    const stdin = JSON.stringify({ event, cwd: opts.cwd, ...payload, ...(input !== undefined ? { input } : {}) });
    const env: NodeJS.ProcessEnv = {
      ...childEnvironment(process.env, { passthrough: opts.envPassthrough ?? [] }),
      ...opts.env,
      REIN_HOOK_EVENT: event,
      REIN_SESSION_ID: payload.session_id,
      REIN_AGENT: payload.agent,
      [IN_HOOK_ENV]: '1',
    };
    const proc = await runHookProcess(entry.command, { cwd: opts.cwd, env, stdin, timeoutMs, signal: opts.signal });
    const report = reportOf(entry.command, proc);
    outcome.runs.push(report);
    const warn = (message: string) => log({ level: 'warning', event, command: entry.command, message });

    if (proc.spawnError !== undefined || proc.timedOut || proc.aborted) {
      report.failure = proc.spawnError
        ? `could not start: ${proc.spawnError}`
        : proc.timedOut
          ? `timed out after ${timeoutMs} ms and was killed`
          : 'cancelled';
      warn(report.failure);
      if (proc.aborted) break;
      continue;
    }

    const reply = parseReply(proc.stdout);
    const exit2 = proc.exitCode === 2;
    if (reply.problem) {
      warn(reply.problem);
      // A malformed answer is ignored, but an exit code of 2 still says what the hook meant.
      if (!exit2) {
        report.failure = reply.problem;
        continue;
      }
    }
    const json = reply.value;

    if (proc.exitCode !== 0 && !exit2) {
      report.failure = `exited with code ${proc.exitCode ?? 'null'}${proc.stderr.trim() ? `: ${oneLine(proc.stderr)}` : ''}`;
      warn(report.failure);
      continue;
    }

    if (event === 'PreToolUse') {
      if (exit2 || json?.decision === 'deny' || json?.decision === 'block') {
        const reason =
          json?.reason?.trim() || (exit2 ? proc.stderr.trim() : '') || `blocked by hook \`${entry.command}\``;
        outcome.deny = { reason, command: entry.command };
        break;
      }
      if (json?.input !== undefined) {
        input = json.input;
        outcome.input = json.input;
      }
    } else if (event === 'SessionStart') {
      if (json?.context?.trim()) outcome.context.push(json.context.trim());
    } else if (event === 'Stop') {
      if (exit2 || json?.decision === 'block') {
        const message =
          json?.message?.trim() ||
          json?.reason?.trim() ||
          (exit2 ? proc.stderr.trim() : '') ||
          'A Stop hook asked you to continue working before finishing.';
        outcome.block = { message, command: entry.command };
        break;
      }
    } else if (exit2) {
      // PostToolUse cannot undo a call; exit 2 there is just a failure to report.
      report.failure = `exited with code 2${proc.stderr.trim() ? `: ${oneLine(proc.stderr)}` : ''}`;
      warn(report.failure);
    }
  }
  return outcome;
}

function reportOf(command: string, proc: HookProcessResult): HookRunReport {
  return {
    command,
    exitCode: proc.exitCode,
    timedOut: proc.timedOut,
    durationMs: proc.durationMs,
    stdout: proc.stdout,
    stderr: proc.stderr,
  };
}

/** stdout that is not JSON is simply not an answer; JSON of the wrong shape is a mistake worth reporting. */
function parseReply(stdout: string): { value?: HookReply; problem?: string } {
  const text = stdout.trim();
  if (!text.startsWith('{')) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return {};
  }
  const parsed = HookReply.safeParse(raw);
  if (parsed.success) return { value: parsed.data };
  const problems = describeIssues(parsed.error.issues, raw).map((p) => `${p.field}: ${p.message}`);
  return { problem: `ignored its JSON answer: ${problems.join('; ')}` };
}

const oneLine = (text: string, max = 300): string => {
  const flat = text.trim().replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
