/**
 * `rein permissions check [--agent A] [--mode M] [--source S] [--cwd DIR] --tool T --input JSON [--json]`:
 * what the permission engine would decide for one tool call, without running anything. It builds the
 * same runtime a run would (agent config, tools, modes), so the answer is exactly what a run would get.
 *
 * `rein permissions check --batch`: the same for every JSON line on stdin
 * (`{"tool", "input", "mode"?, "source"?, "agent"?}`), one JSON answer per line on stdout in order,
 * in one process: one runtime per agent, mode and source, built once. A policy author's regression
 * suite. A bad line gets `{"line", "error", "field"}` on its own line and the exit code is 1.
 */
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { AgentName, SourceName } from '../../core/api/patterns.js';
import { loadConfig } from '../../core/config/load.js';
import { storedTrust } from '../folderTrust.js';
import { reinHome } from '../../core/config/paths.js';
import { PermissionMode, type GlobalConfig } from '../../core/config/schema.js';
import { errorMessage, isReinError } from '../../core/errors.js';
import { explainDecision, toolByName } from '../../core/permissions/engine.js';
import type { PermissionDecision } from '../../core/permissions/types.js';
import { originOfSource } from '../../core/permissions/runPolicy.js';
import { createRuntime, type Runtime } from '../../core/runtime/runtime.js';
import type { LlmClient } from '../../core/llm/client.js';
import { describeIssues } from '../../core/util/zodIssues.js';
import { UsageError, type CliIo } from '../io.js';

export const PERMISSIONS_HELP = `Usage:
  rein permissions check --tool TOOL --input JSON [--agent NAME] [--mode MODE] [--source SRC] [--cwd DIR] [--json]
  rein permissions check --batch [--agent NAME] [--mode MODE] [--source SRC] [--cwd DIR] < calls.jsonl

Prints allow, deny or ask with the layer that decided, the reason and the risk. Nothing is run.
Example: rein permissions check --tool bash --input '{"command":"rm -rf ~/Documents"}'

--batch reads one call per line of stdin, as JSON: {"tool": "bash", "input": {"command": "ls"}},
optionally with "mode", "source" and "agent" (which override the flags for that line). It prints one
JSON object per line, in order: {"line": N, "decision", "layer", "reason", "risk", "riskExplanation"},
or {"line": N, "error": "...", "field": "..."} for a line it cannot check. Blank lines are skipped.
Exit code: 0 when every line was checked, 1 when any line was not, 2 for bad flags.
`;

const noModel: LlmClient = {
  // eslint-disable-next-line require-yield
  async *turn() {
    throw new Error('permissions check never calls the model');
  },
};

export async function permissionsCommand(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    io.stdout.write(PERMISSIONS_HELP);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'check')
    throw new UsageError(`unknown permissions command "${sub}" (try: rein permissions check --help)`);
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        tool: { type: 'string' },
        input: { type: 'string' },
        agent: { type: 'string' },
        mode: { type: 'string' },
        source: { type: 'string' },
        cwd: { type: 'string' },
        json: { type: 'boolean' },
        batch: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) {
    io.stdout.write(PERMISSIONS_HELP);
    return 0;
  }
  if (values.batch) {
    if (values.tool !== undefined || values.input !== undefined)
      throw new UsageError('--batch reads the calls from stdin: give no --tool or --input');
    return checkBatch(io, {
      agent: values.agent,
      mode: parseMode(values.mode),
      source: values.source,
      cwd: values.cwd,
    });
  }
  if (!values.tool) throw new UsageError('--tool is required');
  let input: unknown = {};
  if (values.input !== undefined) {
    try {
      input = JSON.parse(values.input);
    } catch (err) {
      throw new UsageError(`--input is not valid JSON: ${(err as Error).message}`);
    }
  }
  const mode = parseMode(values.mode);
  const cwd = values.cwd ? resolve(io.cwd, values.cwd) : io.cwd;
  const home = reinHome(io.env);
  try {
    const { config } = await loadConfig({ home, cwd, ...storedTrust(io) });
    const rt = await checkRuntime(
      { home, cwd, env: io.env, config },
      { agent: values.agent, mode, source: values.source },
    );
    const decision = await decide(rt, cwd, values.tool, input);
    if (values.json) io.stdout.write(`${JSON.stringify(decisionJson(decision))}\n`);
    else io.stdout.write(`${explainDecision(decision)}\n`);
    return 0;
  } catch (err) {
    if (isReinError(err)) {
      io.stderr.write(`rein: ${err.message}\n`);
      return err.code === 'config_invalid' || err.code === 'invalid_input' ? 2 : 1;
    }
    throw err;
  }
}

function parseMode(value: string | undefined): PermissionMode | undefined {
  if (value === undefined) return undefined;
  const m = PermissionMode.safeParse(value);
  if (!m.success) throw new UsageError(`--mode: "${value}" is not one of ${PermissionMode.options.join(', ')}`);
  return m.data;
}

interface CheckBase {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  config: GlobalConfig;
}

/**
 * The runtime a run of this agent, mode and source would have; nothing in it calls the model. The
 * source decides who is behind the run, as it would for a real one: `cli` and `desktop` a person at
 * the screen, `schedule`, `heartbeat` and `watcher` nobody (asks are refused), any other a remote client.
 */
function checkRuntime(
  base: CheckBase,
  who: { agent?: string | undefined; mode?: PermissionMode | undefined; source?: string | undefined },
): Promise<Runtime> {
  const source = who.source ?? 'cli';
  return createRuntime({
    ...base,
    ...(who.agent ? { agent: who.agent } : {}),
    source,
    origin: originOfSource(source),
    ...(who.mode ? { mode: who.mode } : {}),
    faces: [],
    llm: noModel,
  });
}

/** What the policy decides for one call. Input the tool's schema refuses is judged as given. */
async function decide(rt: Runtime, cwd: string, toolName: string, input: unknown): Promise<PermissionDecision> {
  const known = rt.registry.get(toolName);
  const tool = known ?? toolByName(toolName);
  const parsed = known ? tool.input.safeParse(input) : { success: true as const, data: input };
  return rt.policy.check({
    tool,
    input: parsed.success ? parsed.data : input,
    cwd,
    origin: rt.origin,
    mode: rt.settings.mode,
    source: rt.source,
    agent: rt.agent,
  });
}

const decisionJson = (d: PermissionDecision) => ({
  decision: d.decision,
  layer: d.layer,
  reason: d.reason,
  risk: d.risk,
  riskExplanation: d.riskExplanation,
});

/** One line of `--batch` input. Unknown keys are refused, so a misspelt field is named, not ignored. */
const BatchLine = z.strictObject({
  tool: z.string().min(1, 'expected a tool name'),
  input: z.record(z.string(), z.unknown()).default({}),
  mode: PermissionMode.optional(),
  source: SourceName.optional(),
  agent: AgentName.optional(),
});

/**
 * `--batch`: every line of stdin checked in order, in this one process. A runtime is built once per
 * (agent, mode, source) and reused, so a thousand lines cost about what one does plus the checks.
 */
async function checkBatch(
  io: CliIo,
  flags: {
    agent: string | undefined;
    mode: PermissionMode | undefined;
    source: string | undefined;
    cwd: string | undefined;
  },
): Promise<number> {
  const cwd = flags.cwd ? resolve(io.cwd, flags.cwd) : io.cwd;
  const home = reinHome(io.env);
  let base: CheckBase;
  try {
    base = { home, cwd, env: io.env, config: (await loadConfig({ home, cwd, ...storedTrust(io) })).config };
  } catch (err) {
    if (isReinError(err)) {
      io.stderr.write(`rein: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const runtimes = new Map<string, Promise<Runtime>>();
  const runtimeFor = (who: {
    agent?: string | undefined;
    mode?: PermissionMode | undefined;
    source?: string | undefined;
  }) => {
    const key = JSON.stringify([who.agent ?? '', who.mode ?? '', who.source ?? '']);
    let rt = runtimes.get(key);
    if (!rt) {
      rt = checkRuntime(base, who);
      runtimes.set(key, rt);
    }
    return rt;
  };
  const write = (obj: unknown) => io.stdout.write(`${JSON.stringify(obj)}\n`);
  let failed = false;
  let n = 0;
  for await (const text of createInterface({ input: io.stdin, crlfDelay: Infinity })) {
    n++;
    if (text.trim() === '') continue;
    const line = n;
    const fail = (error: string, field?: string) => {
      failed = true;
      write({ line, error: `line ${line}: ${error}`, ...(field !== undefined ? { field } : {}) });
    };
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      fail(`not valid JSON: ${errorMessage(e)}`);
      continue;
    }
    const parsed = BatchLine.safeParse(raw);
    if (!parsed.success) {
      const p = describeIssues(parsed.error.issues, raw)[0]!;
      if (p.path.length === 0) fail(`expected an object {"tool", "input", "mode"?, "source"?, "agent"?}: ${p.message}`);
      else fail(`${p.field}: ${p.message}`, p.field);
      continue;
    }
    const call = parsed.data;
    const who = {
      agent: call.agent ?? flags.agent,
      mode: call.mode ?? flags.mode,
      source: call.source ?? flags.source,
    };
    let rt: Runtime;
    try {
      rt = await runtimeFor(who);
    } catch (e) {
      // Which field led to the runtime that could not be built: the line's own, else the flag's.
      fail(errorMessage(e), call.agent !== undefined || flags.agent !== undefined ? 'agent' : undefined);
      continue;
    }
    try {
      write({ line, ...decisionJson(await decide(rt, cwd, call.tool, call.input)) });
    } catch (e) {
      fail(errorMessage(e), 'input');
    }
  }
  return failed ? 1 : 0;
}
