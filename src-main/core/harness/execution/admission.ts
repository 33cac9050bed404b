/**
 * Admission of one call (serial and in order, after the executor's duplicate check): the input parsed
 * (lenient where zod wants a number or boolean), a tool's per-response limit and its own `admit`, a call
 * denied earlier in the turn refused without asking, then the permission policy and its question
 * (approval.ts), then the PreToolUse hooks, which may deny it or change its input.
 */
import type { ReinEventBody } from '../../api/events.js';
import { runHooks } from '../../hooks/runHooks.js';
import { parseLenient } from '../../tools/lenient.js';
import { errorResult, type Tool } from '../../tools/tool.js';
import { approveCall } from './approval.js';
import type { CallLedger } from './ledger.js';
import { canonicalKey, type Admitted, type ExecutorDeps } from './types.js';

/** What a sub-step returns for a call it refused (the ledger has its result). */
const REFUSED: unique symbol = Symbol('refused');

/** Valid calls per tool in this response, for tools with `maxCallsPerResponse`. */
export type PerToolCounts = Map<string, number>;

/** The call as it will run, or undefined when it was refused (the ledger has its result). */
export async function* admitCall(
  ledger: CallLedger,
  index: number,
  deps: ExecutorDeps,
  perTool: PerToolCounts,
  signal: AbortSignal,
): AsyncGenerator<ReinEventBody, Admitted | undefined> {
  const call = ledger.calls[index]!;
  const tool = deps.registry.get(call.name);
  if (!tool) {
    ledger.refuse(
      index,
      errorResult('validation', `unknown tool: ${call.name}. Available tools: ${deps.registry.names().join(', ')}`),
    );
    return undefined;
  }
  const input = yield* validInput(ledger, index, tool);
  if (input === REFUSED) return undefined;
  if (!withinLimit(ledger, index, tool, input, perTool)) return undefined;
  const refusal = tool.admit?.(input, deps.ctx);
  if (refusal) {
    ledger.refuse(index, refusal, tool, input);
    return undefined;
  }
  const pkey = canonicalKey(call.name, input);
  if (deps.approvals.denied.has(pkey)) {
    ledger.deniedAny = true;
    ledger.refuse(
      index,
      errorResult(
        'permission',
        `blocked: the user denied this exact ${call.name} call earlier in this turn; do not retry it, choose another approach or ask the user`,
      ),
      tool,
      input,
      { layer: 'turn_cache', by: null },
    );
    yield ledger.denied(index, tool, input, 'turn_cache', 'the same call was denied earlier in this turn');
    return undefined;
  }
  const verdict = await deps.policy.check({
    tool,
    input,
    cwd: deps.ctx.cwd,
    mode: deps.mode,
    source: deps.source,
    origin: deps.origin,
    agent: deps.agent,
  });
  if (verdict.decision === 'deny') {
    ledger.deniedAny = true;
    ledger.refuse(
      index,
      errorResult('permission', `denied (${verdict.layer}): ${verdict.reason}. The call did not run.`),
      tool,
      input,
      { layer: verdict.layer, by: null },
    );
    yield ledger.denied(index, tool, input, verdict.layer, verdict.reason);
    return undefined;
  }
  if (!(yield* approveCall(ledger, index, tool, input, verdict, pkey, deps, signal))) return undefined;
  const finalInput = yield* preToolHooks(ledger, index, tool, input, deps, signal);
  if (finalInput === REFUSED) return undefined;
  if (!ledger.approvedBy.has(index))
    ledger.approvedBy.set(index, { layer: verdict.layer, by: verdict.decision === 'ask' ? 'turn_cache' : 'policy' });
  return { index, call, tool, input: finalInput };
}

/** The input parsed for the tool; arguments cut off or invalid are refused, shown as a failed call. */
function* validInput(ledger: CallLedger, index: number, tool: Tool): Generator<ReinEventBody, unknown> {
  const call = ledger.calls[index]!;
  if (call.input && typeof call.input === 'object' && '__unparsed' in call.input) {
    const result = errorResult(
      'validation',
      `the arguments for ${call.name} were cut off or are not valid JSON; send the call again with complete arguments`,
    );
    ledger.refuse(index, result, tool);
    yield* ledger.invalid(index, tool, result);
    return REFUSED;
  }
  const parsed = parseLenient(tool.input, call.input);
  if (!parsed.ok) {
    const result = errorResult('validation', `invalid input for ${call.name}: ${parsed.error}`);
    ledger.refuse(index, result, tool);
    yield* ledger.invalid(index, tool, result);
    return REFUSED;
  }
  return parsed.value;
}

/** A tool with `maxCallsPerResponse`: the calls past it are refused. */
function withinLimit(ledger: CallLedger, index: number, tool: Tool, input: unknown, perTool: PerToolCounts): boolean {
  if (tool.maxCallsPerResponse === undefined) return true;
  const name = ledger.calls[index]!.name;
  const seen = perTool.get(tool.name) ?? 0;
  perTool.set(tool.name, seen + 1);
  if (seen < tool.maxCallsPerResponse) return true;
  const times = tool.maxCallsPerResponse === 1 ? 'once' : `${tool.maxCallsPerResponse} times`;
  ledger.refuse(
    index,
    errorResult(
      'business',
      `${name} may run only ${times} per response, so this call did not run. Wait for the result of the earlier ${name} call; call it again in a later response only if that one failed.`,
    ),
    tool,
    input,
  );
  return false;
}

/** The PreToolUse hooks: a deny refuses the call, a changed input must still be valid. */
async function* preToolHooks(
  ledger: CallLedger,
  index: number,
  tool: Tool,
  input: unknown,
  deps: ExecutorDeps,
  signal: AbortSignal,
): AsyncGenerator<ReinEventBody, unknown> {
  if (!deps.hooks || deps.hooks.pre.length === 0) return input;
  const hook = await runHooks(
    'PreToolUse',
    deps.hooks.pre,
    { session_id: deps.ctx.sessionId, agent: deps.agent, tool: tool.name, input },
    {
      cwd: deps.ctx.cwd,
      envPassthrough: deps.ctx.envPassthrough ?? [],
      signal,
      log: (e) => e.level === 'warning' && deps.warn?.(`${e.event} hook \`${e.command}\`: ${e.message}`),
    },
  );
  if (hook.deny) {
    ledger.deniedAny = true;
    ledger.refuse(
      index,
      errorResult('permission', `denied by hook: ${hook.deny.reason}. The call did not run.`),
      tool,
      input,
      { layer: 'hook', by: null },
    );
    yield ledger.denied(index, tool, input, 'hook', hook.deny.reason);
    return REFUSED;
  }
  if (!hook.input) return input;
  const reparsed = parseLenient(tool.input, hook.input);
  if (!reparsed.ok) {
    ledger.refuse(
      index,
      errorResult(
        'validation',
        `a PreToolUse hook changed the input of ${ledger.calls[index]!.name} into something invalid: ${reparsed.error}`,
      ),
      tool,
      input,
    );
    return REFUSED;
  }
  return reparsed.value;
}
