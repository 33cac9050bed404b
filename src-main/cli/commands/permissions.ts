/**
 * `rein permissions check [--agent A] [--mode M] [--source S] [--cwd DIR] --tool T --input JSON [--json]`:
 * what the permission engine would decide for one tool call, without running anything. It builds the
 * same runtime a run would (agent config, tools, modes), so the answer is exactly what a run would get.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../../core/config/load.js';
import { reinHome } from '../../core/config/paths.js';
import { PermissionMode } from '../../core/config/schema.js';
import { isReinError } from '../../core/errors.js';
import { explainDecision, toolByName } from '../../core/permissions/engine.js';
import { createRuntime } from '../../core/runtime/runtime.js';
import type { LlmClient } from '../../core/llm/client.js';
import { UsageError, type CliIo } from '../io.js';

export const PERMISSIONS_HELP = `Usage:
  rein permissions check --tool TOOL --input JSON [--agent NAME] [--mode MODE] [--source SRC] [--cwd DIR] [--json]

Prints allow, deny or ask with the layer that decided, the reason and the risk. Nothing is run.
Example: rein permissions check --tool bash --input '{"command":"rm -rf ~/Documents"}'
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
  if (sub !== 'check') throw new UsageError(`unknown permissions command "${sub}" (try: rein permissions check --help)`);
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
  if (!values.tool) throw new UsageError('--tool is required');
  let input: unknown = {};
  if (values.input !== undefined) {
    try {
      input = JSON.parse(values.input);
    } catch (err) {
      throw new UsageError(`--input is not valid JSON: ${(err as Error).message}`);
    }
  }
  let mode: PermissionMode | undefined;
  if (values.mode !== undefined) {
    const m = PermissionMode.safeParse(values.mode);
    if (!m.success) throw new UsageError(`--mode: "${values.mode}" is not one of ${PermissionMode.options.join(', ')}`);
    mode = m.data;
  }
  const cwd = values.cwd ? resolve(io.cwd, values.cwd) : io.cwd;
  const home = reinHome(io.env);
  try {
    const { config } = await loadConfig({ home, cwd });
    const rt = await createRuntime({
      home,
      cwd,
      env: io.env,
      config,
      ...(values.agent ? { agent: values.agent } : {}),
      source: values.source ?? 'cli',
      ...(mode ? { mode } : {}),
      faces: [],
      llm: noModel,
    });
    const tool = rt.registry.get(values.tool) ?? toolByName(values.tool);
    const parsed = rt.registry.get(values.tool) ? tool.input.safeParse(input) : { success: true as const, data: input };
    const decision = await rt.policy.check({
      tool,
      input: parsed.success ? parsed.data : input,
      cwd,
      origin: rt.origin,
      mode: rt.settings.mode,
      source: rt.source,
      agent: rt.agent,
    });
    if (values.json) io.stdout.write(`${JSON.stringify({ decision: decision.decision, layer: decision.layer, reason: decision.reason, risk: decision.risk, riskExplanation: decision.riskExplanation })}\n`);
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
