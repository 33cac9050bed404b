/**
 * An MCP server's questions during one of its calls, answered by the run: a form or a page to open
 * (elicitation) and a turn of the run's model (sampling). They go to the run's approval faces through
 * its broker, announced on its events like a tool call's approval.
 */
import {
  acceptDefaults,
  acceptValues,
  type ElicitationAnswer,
  type ElicitationRequest,
  type Elicitor,
} from '../mcpClient/elicitation.js';
import { MAX_SAMPLING_PER_RUN, SamplingRefused, type Sampler } from '../mcpClient/sampling.js';
import { sessionSlots } from '../tools/sessionSlots.js';
import type { ToolContext } from '../tools/tool.js';
import { TOOL_EVENT_SINK } from '../harness/executor.js';
import { RUN_SPENDING, type RunSpending } from '../harness/loop.js';
import { maskSecretsIn } from '../audit/maskSecrets.js';
import { newApprovalId } from '../permissions/approvalBroker.js';
import type { ApprovalRequest } from '../api/events.js';
import type { Runtime } from './types.js';

/**
 * The run's answer to an MCP server that asks for input during a call: with `--yes` the form's
 * defaults (when they fill it), else the run's approval faces show the form — the same broker, the
 * same `approval_request` / `approval_response` events as an approval — and a run nobody may be asked
 * in (unattended) declines. A yes brings the filled-in values; a no declines; no answer cancels.
 */
export function runElicitor(rt: Runtime, ctx: ToolContext): Elicitor {
  return async (req, signal) => {
    if (rt.elicitation?.yes) {
      const defaults = acceptDefaults(req);
      if (defaults) return defaults;
    }
    if (!(rt.elicitation?.mayAsk() ?? { ok: true }).ok) return { action: 'decline' };
    if (req.url !== undefined) return askToOpen(rt, ctx, req, signal);
    const request = serverQuestion(rt, ctx, req, {
      summary: `${req.server} asks: ${oneLine(req.message)}`,
      reason: `the MCP server ${req.server} asks for input while ${req.tool} runs`,
      risk_explanation: `what you fill in is sent to the MCP server ${req.server}`,
      form: { message: req.message, schema: req.schema },
    });
    const answer = await askPerson(rt, ctx, request, signal);
    if (answer.decision === 'deny') return refusal(answer.by);
    return acceptValues(req, answer.values).answer;
  };
}

/** The approval request of an MCP server's question during one of its calls (layer elicitation, medium risk). */
function serverQuestion(
  rt: Runtime,
  ctx: ToolContext,
  req: Pick<ElicitationRequest, 'tool' | 'input'>,
  words: Pick<ApprovalRequest, 'summary' | 'reason' | 'risk_explanation'> & Partial<Pick<ApprovalRequest, 'form'>>,
): ApprovalRequest {
  return {
    request_id: newApprovalId(),
    session_id: ctx.sessionId,
    agent: rt.agent,
    route: rt.route,
    source: rt.source,
    origin: rt.origin,
    tool: req.tool,
    input: maskSecretsIn(req.input),
    layer: 'elicitation',
    risk: 'medium',
    asked_at: new Date().toISOString(),
    ...words,
  };
}

/** A server's message on one line, at most 300 characters. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}

/**
 * An MCP server asking the run's model (sampling.ts): unattended runs refuse; `--yes` answers without
 * asking; otherwise a person allows it, seeing what is asked and how many tokens it may take. One turn,
 * no tools; the small model when the server prefers speed or cost; the tokens are told to the run.
 */
export function runSampler(rt: Runtime, ctx: ToolContext): Sampler {
  let used = 0;
  return async (req, signal) => {
    // A server that keeps asking cannot go on without end; what it spends counts in the run's cap.
    if (++used > MAX_SAMPLING_PER_RUN)
      throw new SamplingRefused(`this run has answered ${MAX_SAMPLING_PER_RUN} sampling requests already`);
    const spending = sessionSlots(ctx).slot(RUN_SPENDING, () => undefined as RunSpending | undefined);
    if (spending?.overBudget()) throw new SamplingRefused("the run's spending cap (budget.max_usd_per_run) is reached");
    const model = req.preferSmall ? (rt.settings.smallModel ?? rt.settings.model) : rt.settings.model;
    if (!rt.elicitation?.yes) {
      const may = rt.elicitation?.mayAsk() ?? { ok: true };
      if (!may.ok) throw new SamplingRefused(`nobody is watching this ${rt.source} run to allow it`);
      const last = [...req.messages].reverse().find((m) => m.role === 'user')!;
      const request = serverQuestion(rt, ctx, req, {
        summary: `${req.server} asks ${model} (up to ${req.maxTokens} tokens): ${oneLine(last.text)}`,
        reason: `the MCP server ${req.server} wants an answer from the model while ${req.tool} runs; the answer goes to the server`,
        risk_explanation: `what the server wrote goes to the model and costs tokens; the answer goes to the MCP server ${req.server}`,
      });
      const answer = await askPerson(rt, ctx, request, signal);
      if (answer.decision === 'deny')
        throw new SamplingRefused(answer.by === 'timeout' ? 'nobody answered in time' : 'the person declined');
    }
    const turn = rt.llm.turn(
      {
        model,
        maxTokens: req.maxTokens,
        ...(req.temperature !== undefined ? { temperature: Math.max(0, Math.min(1, req.temperature)) } : {}),
        system: req.systemPrompt ? [{ type: 'text', text: req.systemPrompt }] : [],
        messages: req.messages.map((m) => ({ role: m.role, content: m.text })),
        tools: [],
      },
      signal,
    );
    let step = await turn.next();
    while (!step.done) step = await turn.next();
    const response = step.value;
    spending?.add(response.model, response.usage);
    const emit = sessionSlots(ctx).slot(TOOL_EVENT_SINK, () => () => undefined);
    emit({
      type: 'notice',
      level: 'info',
      message: `MCP server ${req.server} used ${response.model}: ${response.usage.inputTokens} input and ${response.usage.outputTokens} output tokens`,
    });
    const text = response.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    return {
      text,
      model: response.model,
      stopReason:
        response.stopReason === 'max_tokens'
          ? 'maxTokens'
          : response.stopReason === 'stop_sequence'
            ? 'stopSequence'
            : 'endTurn',
    };
  };
}

/** An MCP server's question through the run's broker, announced on the run's events like a tool's. */
async function askPerson(rt: Runtime, ctx: ToolContext, request: ApprovalRequest, signal: AbortSignal) {
  const emit = sessionSlots(ctx).slot(TOOL_EVENT_SINK, () => () => undefined);
  const { session_id: _session, ...asked } = request;
  emit({ type: 'approval_request', ...asked });
  const answer = await rt.broker.request(request, signal);
  emit({ type: 'approval_response', request_id: request.request_id, decision: answer.decision, by: answer.by });
  return answer;
}

/** A deny by nobody (timed out, cancelled) cancels the server's question; a person's declines it. */
export const refusal = (by: string): ElicitationAnswer =>
  ['timeout', 'cancelled', 'withdrawn', 'error'].includes(by) ? { action: 'cancel' } : { action: 'decline' };

/**
 * An MCP server asks the person to open a page (URL-mode elicitation): only an http(s) address, only with
 * somewhere to open it, and only when a person allows it (its whole address is in the question).
 */
async function askToOpen(
  rt: Runtime,
  ctx: ToolContext,
  req: ElicitationRequest,
  signal: AbortSignal,
): Promise<ElicitationAnswer> {
  const open = rt.elicitation?.openUrl;
  let url: URL;
  try {
    url = new URL(req.url!);
  } catch {
    return { action: 'decline' };
  }
  if (!open || (url.protocol !== 'https:' && url.protocol !== 'http:')) return { action: 'decline' };
  const said = oneLine(req.message);
  const request = serverQuestion(rt, ctx, req, {
    summary: `${req.server} asks you to open ${url.href}`,
    reason: `the MCP server ${req.server} wants a page opened in your browser while ${req.tool} runs${said ? `: ${said}` : ''}`,
    risk_explanation: `the page is the MCP server's choice (${url.host}): check its address before you allow it`,
  });
  const answer = await askPerson(rt, ctx, request, signal);
  if (answer.decision === 'deny') return refusal(answer.by);
  try {
    await open(url);
  } catch {
    return { action: 'cancel' };
  }
  return { action: 'accept', content: {} };
}
