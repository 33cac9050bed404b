/**
 * What one response's calls came to, kept in call order while admission and the batches go on: each
 * call's outcome, who approved the admitted ones, whether any was denied; and how a refusal is told.
 */
import type { ReinEventBody } from '../../api/events.js';
import { summarizeCall, type Tool, type ToolResult } from '../../tools/tool.js';
import type { Auditor } from './audit.js';
import type { ExecutedCall, ToolCallRequest } from './types.js';

export class CallLedger {
  readonly outcomes: (ExecutedCall | undefined)[];
  /** Index of an admitted call → the layer that decided and who approved (policy, a face, a grant). */
  readonly approvedBy = new Map<number, { layer: string; by: string }>();
  deniedAny = false;

  constructor(
    readonly calls: readonly ToolCallRequest[],
    readonly audit: Auditor,
  ) {
    this.outcomes = new Array(calls.length);
  }

  /** The call did not run; a permission refusal (`denial`) gets its audit line. */
  refuse(
    index: number,
    result: ToolResult,
    tool?: Tool,
    input?: unknown,
    denial?: { layer: string; by: string | null },
  ): void {
    const call = this.calls[index]!;
    this.outcomes[index] = { call, tool, input, result, durationMs: 0, ran: false };
    if (denial)
      this.audit({
        tool: call.name,
        input: input ?? call.input,
        decision: 'deny',
        layer: denial.layer,
        by: denial.by,
        durationMs: null,
      });
  }

  /** A call refused for a permission reason is told as `tool_call_denied` (it gets no tool_call_start/end). */
  denied(index: number, tool: Tool, input: unknown, layer: string, reason: string, by?: string): ReinEventBody {
    return {
      type: 'tool_call_denied',
      call_id: this.calls[index]!.id,
      tool: tool.name,
      summary: summarizeCall(tool, input),
      layer,
      reason,
      ...(by !== undefined ? { by } : {}),
    };
  }

  /**
   * A call of a known tool refused for its input (validation) still shows as a call: a tool_call_start
   * with the input as sent and a tool_call_end that is not ok, so faces and logs see what was tried.
   */
  *invalid(index: number, tool: Tool, result: ToolResult): Generator<ReinEventBody> {
    const call = this.calls[index]!;
    let summary: string;
    try {
      summary = summarizeCall(tool, call.input);
    } catch {
      summary = tool.name;
    }
    yield { type: 'tool_call_start', call_id: call.id, tool: tool.name, input: call.input, summary };
    yield {
      type: 'tool_call_end',
      call_id: call.id,
      tool: tool.name,
      ok: false,
      preview: result.content.slice(0, 300),
      duration_ms: 0,
    };
  }
}
