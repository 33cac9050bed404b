/**
 * Runs the tool calls of one model response. Admission is serial and in order (dedup, validation,
 * permission, approval: execution/admission.ts, execution/approval.ts); execution groups consecutive
 * concurrency-safe calls into one parallel batch (at most `maxParallel` at once) and runs every other
 * call alone, in order (execution/batch.ts); results go back in call order, each call's audit line on
 * disk first (execution/audit.ts). Failures become error results for the model, never throws.
 */
import type { ReinEventBody } from '../api/events.js';
import { drivesGui } from '../tools/traits.js';
import { sessionSlots } from '../tools/sessionSlots.js';
import { errorResult } from '../tools/tool.js';
import { canonicalJson } from '../util/canonicalJson.js';
import { auditTrail } from './execution/audit.js';
import { CallLedger } from './execution/ledger.js';
import { admitCall, type PerToolCounts } from './execution/admission.js';
import { partition, runBatch, toResultBlock } from './execution/batch.js';
import {
  canonicalKey,
  type Admitted,
  type BatchOutcome,
  type ExecutedCall,
  type ExecutorDeps,
  type ToolCallRequest,
} from './execution/types.js';

export {
  TurnApprovals,
  canonicalKey,
  type BatchOutcome,
  type ExecutedCall,
  type ExecutorDeps,
  type ToolCallRequest,
} from './execution/types.js';
export { TOOL_EVENT_SINK } from './execution/batch.js';
export { canonicalJson };

export async function* executeToolCalls(
  calls: readonly ToolCallRequest[],
  deps: ExecutorDeps,
  signal: AbortSignal,
): AsyncGenerator<ReinEventBody, BatchOutcome> {
  // Each call's audit line is written while the batch goes on, and all of them are on disk before the
  // outcome is returned: the loop saves the results right after, so no saved call lacks its line.
  const trail = auditTrail(deps);
  const ledger = new CallLedger(calls, trail.audit);
  const firstIndexOfKey = new Map<string, number>();
  const duplicates: Array<{ index: number; of: number }> = [];
  const admitted: Admitted[] = [];
  const perTool: PerToolCounts = new Map();
  // Each call gets its own context (its progress reporter); the run's slots must exist first, so all share them.
  sessionSlots(deps.ctx);

  // Phase 1: admission, serial and in order.
  for (const [index, call] of calls.entries()) {
    if (signal.aborted) {
      ledger.refuse(index, errorResult('transient', 'not run: the run was cancelled'));
      continue;
    }
    const key = canonicalKey(call.name, call.input);
    const first = firstIndexOfKey.get(key);
    if (first !== undefined) {
      duplicates.push({ index, of: first });
      continue;
    }
    firstIndexOfKey.set(key, index);
    const admission = yield* admitCall(ledger, index, deps, perTool, signal);
    if (admission) admitted.push(admission);
  }

  // Phase 2: execution in batches.
  let guiUsed = false;
  for (const batch of partition(admitted, deps.ctx)) {
    if (signal.aborted) {
      for (const a of batch)
        ledger.refuse(a.index, errorResult('transient', 'not run: the run was cancelled'), a.tool, a.input);
      continue;
    }
    yield* runBatch(batch, deps, signal, ledger.outcomes, ledger.approvedBy, trail.audit);
    if (batch.some((a) => drivesGui(a.tool.traits))) guiUsed = true;
  }

  const executed = withDuplicates(ledger.outcomes, duplicates, calls);
  for (const o of executed) {
    deps.detector?.record({
      tool: o.call.name,
      traits: o.tool?.traits,
      input: o.input ?? o.call.input,
      ok: o.result.ok,
      content: o.result.content,
      ...(o.result.errorKind ? { errorKind: o.result.errorKind } : {}),
    });
  }
  const results = executed.map((o) => toResultBlock(o));
  await trail.written();
  return { results, executed, guiUsed, deniedAny: ledger.deniedAny };
}

/** An identical call of the same response ran once: its duplicates get its result, marked as such. */
function withDuplicates(
  outcomes: (ExecutedCall | undefined)[],
  duplicates: readonly { index: number; of: number }[],
  calls: readonly ToolCallRequest[],
): ExecutedCall[] {
  for (const d of duplicates) {
    const orig = outcomes[d.of]!;
    outcomes[d.index] = {
      call: calls[d.index]!,
      tool: orig.tool,
      input: orig.input,
      result: {
        ...orig.result,
        content: `(identical to an earlier call in this response, which ran once)\n${orig.result.content}`,
      },
      durationMs: 0,
      ran: false,
    };
  }
  return outcomes as ExecutedCall[];
}
