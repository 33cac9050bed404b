/**
 * Execution of the admitted calls: consecutive concurrency-safe calls share a batch (at most
 * `maxParallel` at once), every other call runs alone, in order. Each call reports progress until it
 * returns, its result is spilled to a file when over budget, its audit line and PostToolUse hooks start,
 * and its events reach the run's stream between the batch's own (TOOL_EVENT_SINK).
 */
import type { ImageBlockParam, TextBlockParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { ReinEventBody } from '../../api/events.js';
import { errorMessage } from '../../errors.js';
import { runHooks } from '../../hooks/runHooks.js';
import { sessionSlots, slotKey } from '../../tools/sessionSlots.js';
import {
  concurrencySafe,
  DEFAULT_RESULT_BUDGET,
  errorResult,
  summarizeCall,
  type ToolContext,
  type ToolResult,
} from '../../tools/tool.js';
import { spillIfOverBudget } from '../spill.js';
import type { Auditor } from './audit.js';
import type { Admitted, ExecutedCall, ExecutorDeps } from './types.js';

/** Consecutive concurrency-safe calls share a batch; every other call is a batch of one. */
export function partition(admitted: readonly Admitted[], ctx: ToolContext): Admitted[][] {
  const batches: Admitted[][] = [];
  let current: Admitted[] = [];
  for (const a of admitted) {
    let safe = false;
    try {
      safe = concurrencySafe(a.tool, a.input, ctx);
    } catch {
      safe = false; // fail closed
    }
    if (safe) current.push(a);
    else {
      if (current.length) batches.push(current);
      batches.push([a]);
      current = [];
    }
  }
  if (current.length) batches.push(current);
  return batches;
}

/**
 * Where a running tool may add events to the run's stream while its call is under way (an MCP server's
 * question during the call goes out as `approval_request` / `approval_response`, so the daemon's desk
 * and every client see it). Set by the batch that runs the call; events land between the batch's own.
 */
export const TOOL_EVENT_SINK = slotKey<(event: ReinEventBody) => void>('tool_event_sink');

export async function* runBatch(
  batch: Admitted[],
  deps: ExecutorDeps,
  signal: AbortSignal,
  outcomes: (ExecutedCall | undefined)[],
  approvedBy: ReadonlyMap<number, { layer: string; by: string }>,
  audit: Auditor,
): AsyncGenerator<ReinEventBody, void> {
  const queue: ReinEventBody[] = [];
  let wake: (() => void) | undefined;
  const push = (e: ReinEventBody) => {
    queue.push(e);
    wake?.();
  };
  sessionSlots(deps.ctx).seed(TOOL_EVENT_SINK, push);
  let next = 0;
  let running = 0;
  let finished = 0;
  const limit = Math.max(1, deps.maxParallel);

  const runOne = async (a: Admitted) => {
    const started = Date.now();
    push({
      type: 'tool_call_start',
      call_id: a.call.id,
      tool: a.tool.name,
      input: a.input,
      summary: summarizeCall(a.tool, a.input),
    });
    // Progress is this call's until it returns: a report after that would come after its tool_call_end.
    let reporting = true;
    const ctx: ToolContext = {
      ...deps.ctx,
      progress: (update) => {
        if (!reporting || typeof update?.message !== 'string') return;
        push({
          type: 'tool_progress',
          call_id: a.call.id,
          tool: a.tool.name,
          message: update.message.length > 1_000 ? `${update.message.slice(0, 999)}…` : update.message,
          ...(update.data !== undefined ? { data: update.data } : {}),
        });
      },
    };
    let result: ToolResult;
    try {
      result = await a.tool.call(a.input, ctx, signal);
    } catch (err) {
      result = errorResult('business', `tool error: ${errorMessage(err)}`);
    }
    reporting = false;
    const answer = result.final === true && result.ok ? result.content : undefined;
    if (signal.aborted && result.ok === false && !result.content.includes('cancel')) {
      result = { ...result, content: `${result.content}\n(the run was cancelled)` };
    }
    const budget = Math.min(
      a.tool.resultBudget ?? deps.defaultBudget ?? DEFAULT_RESULT_BUDGET,
      deps.budgetCap ?? Number.POSITIVE_INFINITY,
    );
    let savedTo: string | undefined;
    try {
      const spilled = await spillIfOverBudget(result.content, budget, {
        sessionDir: deps.ctx.sessionDir,
        callId: a.call.id,
        tool: a.tool.name,
      });
      result = { ...result, content: spilled.content };
      savedTo = spilled.savedTo;
    } catch (err) {
      result = {
        ...result,
        content: `${result.content.slice(0, budget)}\n[result cut at ${budget} characters; saving the rest failed: ${errorMessage(err)}]`,
      };
    }
    const durationMs = Date.now() - started;
    outcomes[a.index] = {
      call: a.call,
      tool: a.tool,
      input: a.input,
      result,
      durationMs,
      savedTo,
      ran: true,
      ...(answer !== undefined ? { answer } : {}),
    };
    const approval = approvedBy.get(a.index);
    audit({
      tool: a.tool.name,
      input: a.input,
      decision: 'allow',
      layer: approval?.layer ?? 'policy',
      by: approval?.by ?? 'policy',
      durationMs,
      ok: result.ok,
    });
    if (deps.hooks && deps.hooks.post.length > 0) {
      const post = runHooks(
        'PostToolUse',
        deps.hooks.post,
        {
          session_id: deps.ctx.sessionId,
          agent: deps.agent,
          tool: a.tool.name,
          input: a.input,
          result: { ok: result.ok, content: result.content.slice(0, 10_000) },
        },
        {
          cwd: deps.ctx.cwd,
          envPassthrough: deps.ctx.envPassthrough ?? [],
          log: (e) => e.level === 'warning' && deps.warn?.(`${e.event} hook \`${e.command}\`: ${e.message}`),
        },
      ).catch((err: unknown) => deps.warn?.(`PostToolUse hook failed: ${errorMessage(err)}`));
      deps.background?.push(post);
    }
    push({
      type: 'tool_call_end',
      call_id: a.call.id,
      tool: a.tool.name,
      ok: result.ok,
      preview: result.content.slice(0, 300),
      duration_ms: durationMs,
      ...(savedTo ? { saved_to: savedTo } : {}),
    });
  };

  const pump = () => {
    while (running < limit && next < batch.length) {
      const a = batch[next++]!;
      running++;
      void runOne(a).finally(() => {
        running--;
        finished++;
        pump();
        wake?.();
      });
    }
  };
  pump();
  while (finished < batch.length || queue.length > 0) {
    if (queue.length > 0) {
      yield queue.shift()!;
      continue;
    }
    await new Promise<void>((r) => (wake = r));
    wake = undefined;
  }
}

export function toResultBlock(o: ExecutedCall): ToolResultBlockParam {
  const text = o.result.content.length > 0 ? o.result.content : o.result.ok ? '(no output)' : '(error without message)';
  const images = o.result.images ?? [];
  const content: ToolResultBlockParam['content'] =
    images.length === 0
      ? text
      : [
          { type: 'text', text } satisfies TextBlockParam,
          ...images.map((img): ImageBlockParam => ({
            type: 'image',
            source: { type: 'base64', media_type: img.mediaType, data: img.data },
          })),
        ];
  return { type: 'tool_result', tool_use_id: o.call.id, content, ...(o.result.ok ? {} : { is_error: true }) };
}
