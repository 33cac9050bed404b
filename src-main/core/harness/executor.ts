/**
 * Runs the tool calls of one model response. Admission is serial and in order (dedup, validation,
 * permission, approval); execution groups consecutive concurrency-safe calls into one parallel batch
 * (at most `maxParallel` at once) and runs every other call alone, in order; results go back in call
 * order. Failures become error results for the model, never throws.
 */
import type { ImageBlockParam, TextBlockParam, ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { ApprovalRequest, ReinEventBody } from '../api/events.js';
import type { RunOrigin } from '../api/patterns.js';
import { maskSecretsIn } from '../audit/maskSecrets.js';
import { ApprovalBroker, newApprovalId } from '../permissions/approvalBroker.js';
import type { PermissionPolicy } from '../permissions/types.js';
import type { PermissionMode } from '../config/schema.js';
import { parseLenient } from '../tools/lenient.js';
import type { ToolRegistry } from '../tools/registry.js';
import { drivesGui } from '../tools/traits.js';
import { sessionSlots, slotKey } from '../tools/sessionSlots.js';
import {
  approvalSummary,
  concurrencySafe,
  DEFAULT_RESULT_BUDGET,
  errorResult,
  summarizeCall,
  type Tool,
  type ToolContext,
  type ToolResult,
} from '../tools/tool.js';
import { errorMessage, isReinError } from '../errors.js';
import type { AuditLog } from '../audit/auditLog.js';
import { runHooks, type HookEntry } from '../hooks/runHooks.js';
import type { LoopDetector } from './loopDetector.js';
import { spillIfOverBudget } from './spill.js';
import { canonicalJson } from '../util/canonicalJson.js';
import type { SessionApprovals } from '../context/contextState.js';
import type { GrantEntry } from '../config/schema.js';
import { describeGrant, exactGrant, grantKey, grantSigner, type GrantSigner } from '../permissions/grants.js';

const signerOf = (deps: ExecutorDeps): GrantSigner | undefined => deps.grantSigner ?? (deps.ctx.reinHome ? grantSigner(deps.ctx.reinHome) : undefined);

/** The conversation holds a signed grant for this key (a forged or copied entry never counts). */
function sessionGranted(deps: ExecutorDeps, key: string): boolean {
  const grants = deps.sessionGrants?.grants;
  if (!grants || grants.length === 0) return false;
  const signer = signerOf(deps);
  if (!signer) return false;
  return grants.some((g) => signer.verify(deps.ctx.sessionId, deps.agent, g) === key);
}

export interface ToolCallRequest {
  id: string;
  name: string;
  input: unknown;
}

/** Per-turn memory of approvals: an approved call is not asked again, a denied one is refused without asking. */
export class TurnApprovals {
  readonly approved = new Set<string>();
  readonly denied = new Set<string>();
  /** The grants (grants.ts keys) answered "always allow" during this run: they hold for the rest of it (saving is the caller's). */
  readonly alwaysGrants = new Set<string>();
  deniedCount = 0;
}

export interface ExecutorDeps {
  registry: ToolRegistry;
  policy: PermissionPolicy;
  broker: ApprovalBroker;
  ctx: ToolContext;
  mode: PermissionMode;
  source: string;
  agent: string;
  /** Who is behind the run (attended, remote, unattended): decides who may be asked. */
  origin: RunOrigin;
  /** The run's lane, carried on its approval requests. */
  route: string;
  approvals: TurnApprovals;
  maxParallel: number;
  defaultBudget?: number;
  /** The conversation's "allow in this conversation" grants (saved with the session, each signed). */
  sessionGrants?: SessionApprovals;
  /** Signs and checks those grants (default: the key in the tool context's REIN_HOME). */
  grantSigner?: GrantSigner;
  /** No result goes to the model longer than this, whatever its tool's budget (the window's share). */
  budgetCap?: number;
  /**
   * Called when the user answers "always allow" (persist the grant), with the face that answered.
   * A returned line is told to the run as a notice (the grant waits for a person); errors are reported, not thrown.
   */
  onAlwaysAllow?: (tool: Tool, input: unknown, by: string, grant: GrantEntry) => Promise<string | void>;
  hooks?: { pre: readonly HookEntry[]; post: readonly HookEntry[] };
  audit?: AuditLog;
  /** Every finished call (run or refused) is recorded here, in call order. */
  detector?: LoopDetector;
  /** Work that must finish before the run ends but need not hold up the loop (PostToolUse hooks). */
  background?: Promise<unknown>[];
  /** Where hook and audit failures are reported. */
  warn?: (message: string) => void;
}

export interface ExecutedCall {
  call: ToolCallRequest;
  tool?: Tool;
  input?: unknown;
  result: ToolResult;
  durationMs: number;
  savedTo?: string;
  /** False when the call never ran (denied, invalid, duplicate…). */
  ran: boolean;
  /** A successful result marked `final`: its whole content as the tool returned it (before any spill). */
  answer?: string;
}

export interface BatchOutcome {
  results: ToolResultBlockParam[];
  executed: ExecutedCall[];
  guiUsed: boolean;
  deniedAny: boolean;
}

export const canonicalKey = (name: string, input: unknown): string => `${name}\u0000${canonicalJson(input)}`;

export { canonicalJson };

interface Admitted {
  index: number;
  call: ToolCallRequest;
  tool: Tool;
  input: unknown;
}

export async function* executeToolCalls(
  calls: readonly ToolCallRequest[],
  deps: ExecutorDeps,
  signal: AbortSignal,
): AsyncGenerator<ReinEventBody, BatchOutcome> {
  const outcomes: (ExecutedCall | undefined)[] = new Array(calls.length);
  const firstIndexOfKey = new Map<string, number>();
  const duplicates: Array<{ index: number; of: number }> = [];
  const admitted: Admitted[] = [];
  let deniedAny = false;
  // Each call's audit line is written while the batch goes on, and all of them are on disk before the
  // outcome is returned: the loop saves the results right after, so no saved call lacks its line.
  const audits: Promise<void>[] = [];
  const audit: Auditor = (e) => {
    const line = record(deps, e);
    if (line) audits.push(line);
  };

  const refuse = (index: number, result: ToolResult, tool?: Tool, input?: unknown, denial?: { layer: string; by: string | null }) => {
    outcomes[index] = { call: calls[index]!, tool, input, result, durationMs: 0, ran: false };
    if (denial) audit({ tool: calls[index]!.name, input: input ?? calls[index]!.input, decision: 'deny', layer: denial.layer, by: denial.by, durationMs: null });
  };
  /** A call refused for a permission reason is told as `tool_call_denied` (it gets no tool_call_start/end). */
  const denied = (index: number, tool: Tool, input: unknown, layer: string, reason: string, by?: string): ReinEventBody => ({
    type: 'tool_call_denied',
    call_id: calls[index]!.id,
    tool: tool.name,
    summary: summarizeCall(tool, input),
    layer,
    reason,
    ...(by !== undefined ? { by } : {}),
  });
  /**
   * A call of a known tool refused for its input (validation) still shows as a call: a tool_call_start
   * with the input as sent and a tool_call_end that is not ok, so faces and logs see what was tried.
   */
  const invalid = function* (index: number, tool: Tool, result: ToolResult): Generator<ReinEventBody> {
    const call = calls[index]!;
    let summary: string;
    try {
      summary = summarizeCall(tool, call.input);
    } catch {
      summary = tool.name;
    }
    yield { type: 'tool_call_start', call_id: call.id, tool: tool.name, input: call.input, summary };
    yield { type: 'tool_call_end', call_id: call.id, tool: tool.name, ok: false, preview: result.content.slice(0, 300), duration_ms: 0 };
  };
  const approvedBy = new Map<number, { layer: string; by: string }>();
  /** Valid calls per tool in this response, for tools with `maxCallsPerResponse`. */
  const perTool = new Map<string, number>();
  // Each call gets its own context (its progress reporter); the run's slots must exist first, so all share them.
  sessionSlots(deps.ctx);

  // Phase 1: admission, serial and in order.
  for (const [index, call] of calls.entries()) {
    if (signal.aborted) {
      refuse(index, errorResult('transient', 'not run: the run was cancelled'));
      continue;
    }
    const key = canonicalKey(call.name, call.input);
    const first = firstIndexOfKey.get(key);
    if (first !== undefined) {
      duplicates.push({ index, of: first });
      continue;
    }
    firstIndexOfKey.set(key, index);

    const tool = deps.registry.get(call.name);
    if (!tool) {
      refuse(index, errorResult('validation', `unknown tool: ${call.name}. Available tools: ${deps.registry.names().join(', ')}`));
      continue;
    }
    if (call.input && typeof call.input === 'object' && '__unparsed' in call.input) {
      const result = errorResult('validation', `the arguments for ${call.name} were cut off or are not valid JSON; send the call again with complete arguments`);
      refuse(index, result, tool);
      yield* invalid(index, tool, result);
      continue;
    }
    const parsed = parseLenient(tool.input, call.input);
    if (!parsed.ok) {
      const result = errorResult('validation', `invalid input for ${call.name}: ${parsed.error}`);
      refuse(index, result, tool);
      yield* invalid(index, tool, result);
      continue;
    }
    const input = parsed.value;
    if (tool.maxCallsPerResponse !== undefined) {
      const seen = perTool.get(tool.name) ?? 0;
      perTool.set(tool.name, seen + 1);
      if (seen >= tool.maxCallsPerResponse) {
        const times = tool.maxCallsPerResponse === 1 ? 'once' : `${tool.maxCallsPerResponse} times`;
        refuse(index, errorResult('business', `${call.name} may run only ${times} per response, so this call did not run. Wait for the result of the earlier ${call.name} call; call it again in a later response only if that one failed.`), tool, input);
        continue;
      }
    }
    const refusal = tool.admit?.(input, deps.ctx);
    if (refusal) {
      refuse(index, refusal, tool, input);
      continue;
    }
    const pkey = canonicalKey(call.name, input);
    if (deps.approvals.denied.has(pkey)) {
      deniedAny = true;
      refuse(index, errorResult('permission', `blocked: the user denied this exact ${call.name} call earlier in this turn; do not retry it, choose another approach or ask the user`), tool, input, { layer: 'turn_cache', by: null });
      yield denied(index, tool, input, 'turn_cache', 'the same call was denied earlier in this turn');
      continue;
    }
    const verdict = await deps.policy.check({ tool, input, cwd: deps.ctx.cwd, mode: deps.mode, source: deps.source, origin: deps.origin, agent: deps.agent });
    if (verdict.decision === 'deny') {
      deniedAny = true;
      refuse(index, errorResult('permission', `denied (${verdict.layer}): ${verdict.reason}. The call did not run.`), tool, input, { layer: verdict.layer, by: null });
      yield denied(index, tool, input, verdict.layer, verdict.reason);
      continue;
    }
    // What a grant on this call covers (the policy says; else the exact call). `null`: only this call.
    const grant = verdict.grant === undefined ? exactGrant(tool.name, input) : verdict.grant;
    const gkey = grant ? grantKey(grant) : undefined;
    // "Allow once" covers this call again in the run, but not once a script it runs has changed.
    const onceKey = grant?.scripts ? `${pkey}\u0000${canonicalJson(grant.scripts)}` : pkey;
    if (verdict.decision === 'ask' && gkey !== undefined && sessionGranted(deps, gkey)) approvedBy.set(index, { layer: verdict.layer, by: 'session' });
    else if (verdict.decision === 'ask' && gkey !== undefined && deps.approvals.alwaysGrants.has(gkey)) approvedBy.set(index, { layer: verdict.layer, by: 'always_allow' });
    else if (verdict.decision === 'ask' && !deps.approvals.approved.has(onceKey)) {
      const request: ApprovalRequest = {
        request_id: newApprovalId(),
        session_id: deps.ctx.sessionId,
        agent: deps.agent,
        route: deps.route,
        source: deps.source,
        origin: deps.origin,
        tool: tool.name,
        input: maskSecretsIn(input),
        summary: approvalSummary(tool, input),
        reason: verdict.reason,
        layer: verdict.layer,
        risk: verdict.risk,
        risk_explanation: verdict.riskExplanation,
        asked_at: new Date().toISOString(),
        grant: grant ? { covers: describeGrant(grant, process.env.HOME) } : null,
      };
      // The event goes out before the broker asks, so a client (the daemon's desk) knows the question
      // before any face can answer it.
      const { session_id: _session, ...asked } = request;
      yield { type: 'approval_request', ...asked };
      const answer = await deps.broker.request(request, signal);
      yield { type: 'approval_response', request_id: request.request_id, decision: answer.decision, by: answer.by };
      if (answer.decision === 'deny') {
        deniedAny = true;
        deps.approvals.denied.add(pkey);
        deps.approvals.deniedCount++;
        const why =
          answer.by === 'timeout'
            ? 'nobody answered the approval request in time'
            : answer.by === 'cancelled'
              ? 'the run was cancelled'
              : answer.by === 'unattended' || answer.by === 'none'
                ? `nobody is watching this ${deps.source} run, so nobody could approve it`
                : answer.by === 'no-terminal'
                  ? `it needs a person, and there is no terminal to ask one (${verdict.layer === 'protected' ? '--yes and auto_approve never approve a change to Rein\'s protected places' : 'run it at a terminal, or approve such calls in advance'})`
                  : 'the user denied it';
        // A protected place says what it is (an agent's memory points to memory_append), so the model can choose another way.
        const what = verdict.layer === 'protected' ? ` It needed a person because ${verdict.reason}.` : '';
        refuse(index, errorResult('permission', `DENIED: ${call.name} did not run because ${why}.${what} Do not claim it ran; tell the user, or try a different approach that does not need this call.`), tool, input, { layer: verdict.layer, by: answer.by });
        yield denied(index, tool, input, verdict.layer, `${verdict.reason}; not approved: ${why}`, answer.by);
        continue;
      }
      approvedBy.set(index, { layer: verdict.layer, by: answer.by });
      deps.approvals.approved.add(onceKey);
      const wider = answer.decision === 'allow_session' || answer.decision === 'always_allow';
      if (wider && !grant) {
        // The question offered only this call: a wider answer (a face that does not know) allows it once.
        yield { type: 'notice', level: 'info', message: `${tool.name} was allowed for this call only: ${verdict.reason}. Nothing wider can be granted there, so the next such call asks again.` };
      }
      if (answer.decision === 'allow_session' && grant && gkey !== undefined) {
        const signer = signerOf(deps);
        if (deps.sessionGrants && signer && !sessionGranted(deps, gkey)) deps.sessionGrants.grants.push(signer.sign(deps.ctx.sessionId, deps.agent, grant));
      }
      if (answer.decision === 'always_allow' && grant && gkey !== undefined) {
        // What "always" covers is the grant the person saw: one command in one folder, one path, one app…
        deps.approvals.alwaysGrants.add(gkey);
        if (deps.onAlwaysAllow) {
          try {
            const note = await deps.onAlwaysAllow(tool, input, answer.by, grant);
            if (note) yield { type: 'notice', level: 'info', message: note };
          } catch (err) {
            yield { type: 'notice', level: 'warning', message: `could not save "always allow" for ${tool.name}: ${errorMessage(err)}` };
          }
        }
      }
    }
    let finalInput: unknown = input;
    if (deps.hooks && deps.hooks.pre.length > 0) {
      const hook = await runHooks(
        'PreToolUse',
        deps.hooks.pre,
        { session_id: deps.ctx.sessionId, agent: deps.agent, tool: tool.name, input },
        { cwd: deps.ctx.cwd, envPassthrough: deps.ctx.envPassthrough ?? [], signal, log: (e) => e.level === 'warning' && deps.warn?.(`${e.event} hook \`${e.command}\`: ${e.message}`) },
      );
      if (hook.deny) {
        deniedAny = true;
        refuse(index, errorResult('permission', `denied by hook: ${hook.deny.reason}. The call did not run.`), tool, input, { layer: 'hook', by: null });
        yield denied(index, tool, input, 'hook', hook.deny.reason);
        continue;
      }
      if (hook.input) {
        const reparsed = parseLenient(tool.input, hook.input);
        if (!reparsed.ok) {
          refuse(index, errorResult('validation', `a PreToolUse hook changed the input of ${call.name} into something invalid: ${reparsed.error}`), tool, input);
          continue;
        }
        finalInput = reparsed.value;
      }
    }
    if (!approvedBy.has(index)) approvedBy.set(index, { layer: verdict.layer, by: verdict.decision === 'ask' ? 'turn_cache' : 'policy' });
    admitted.push({ index, call, tool, input: finalInput });
  }

  // Phase 2: execution in batches.
  let guiUsed = false;
  for (const batch of partition(admitted)) {
    if (signal.aborted) {
      for (const a of batch) refuse(a.index, errorResult('transient', 'not run: the run was cancelled'), a.tool, a.input);
      continue;
    }
    yield* runBatch(batch, deps, signal, outcomes, approvedBy, audit);
    if (batch.some((a) => drivesGui(a.tool.traits))) guiUsed = true;
  }

  for (const d of duplicates) {
    const orig = outcomes[d.of]!;
    outcomes[d.index] = {
      call: calls[d.index]!,
      tool: orig.tool,
      input: orig.input,
      result: { ...orig.result, content: `(identical to an earlier call in this response, which ran once)\n${orig.result.content}` },
      durationMs: 0,
      ran: false,
    };
  }

  const executed = outcomes as ExecutedCall[];
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
  await Promise.all(audits);
  return { results, executed, guiUsed, deniedAny };
}

interface AuditFacts {
  tool: string;
  input: unknown;
  decision: 'allow' | 'deny';
  layer: string;
  by: string | null;
  durationMs: number | null;
  ok?: boolean;
}
type Auditor = (e: AuditFacts) => void;

/** Starts the call's audit line; the promise never rejects (a failure is a warning). */
function record(deps: ExecutorDeps, e: AuditFacts): Promise<void> | undefined {
  if (!deps.audit) return undefined;
  const line = deps.audit
    .append({
      session: deps.ctx.sessionId,
      agent: deps.agent,
      source: deps.source,
      tool: e.tool,
      args: e.input,
      decision: e.decision,
      layer: e.layer,
      approved_by: e.decision === 'allow' ? e.by : null,
      duration_ms: e.durationMs,
      ...(e.ok !== undefined ? { ok: e.ok } : {}),
    })
    // AuditLog's own errors already say "could not write the audit log FILE: …".
    .catch((err: unknown) => void deps.warn?.(isReinError(err) ? err.message : `could not write the audit log: ${errorMessage(err)}`));
  // Also awaited by the run's end, should the batch be abandoned before it returns.
  deps.background?.push(line);
  return line;
}

/** Consecutive concurrency-safe calls share a batch; every other call is a batch of one. */
function partition(admitted: readonly Admitted[]): Admitted[][] {
  const batches: Admitted[][] = [];
  let current: Admitted[] = [];
  for (const a of admitted) {
    let safe = false;
    try {
      safe = concurrencySafe(a.tool, a.input);
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

async function* runBatch(
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
    push({ type: 'tool_call_start', call_id: a.call.id, tool: a.tool.name, input: a.input, summary: summarizeCall(a.tool, a.input) });
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
    const budget = Math.min(a.tool.resultBudget ?? deps.defaultBudget ?? DEFAULT_RESULT_BUDGET, deps.budgetCap ?? Number.POSITIVE_INFINITY);
    let savedTo: string | undefined;
    try {
      const spilled = await spillIfOverBudget(result.content, budget, { sessionDir: deps.ctx.sessionDir, callId: a.call.id, tool: a.tool.name });
      result = { ...result, content: spilled.content };
      savedTo = spilled.savedTo;
    } catch (err) {
      result = { ...result, content: `${result.content.slice(0, budget)}\n[result cut at ${budget} characters; saving the rest failed: ${errorMessage(err)}]` };
    }
    const durationMs = Date.now() - started;
    outcomes[a.index] = { call: a.call, tool: a.tool, input: a.input, result, durationMs, savedTo, ran: true, ...(answer !== undefined ? { answer } : {}) };
    const approval = approvedBy.get(a.index);
    audit({ tool: a.tool.name, input: a.input, decision: 'allow', layer: approval?.layer ?? 'policy', by: approval?.by ?? 'policy', durationMs, ok: result.ok });
    if (deps.hooks && deps.hooks.post.length > 0) {
      const post = runHooks(
        'PostToolUse',
        deps.hooks.post,
        { session_id: deps.ctx.sessionId, agent: deps.agent, tool: a.tool.name, input: a.input, result: { ok: result.ok, content: result.content.slice(0, 10_000) } },
        { cwd: deps.ctx.cwd, envPassthrough: deps.ctx.envPassthrough ?? [], log: (e) => e.level === 'warning' && deps.warn?.(`${e.event} hook \`${e.command}\`: ${e.message}`) },
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

function toResultBlock(o: ExecutedCall): ToolResultBlockParam {
  const text = o.result.content.length > 0 ? o.result.content : o.result.ok ? '(no output)' : '(error without message)';
  const images = o.result.images ?? [];
  const content: ToolResultBlockParam['content'] =
    images.length === 0
      ? text
      : [
          { type: 'text', text } satisfies TextBlockParam,
          ...images.map(
            (img): ImageBlockParam => ({ type: 'image', source: { type: 'base64', media_type: img.mediaType, data: img.data } }),
          ),
        ];
  return { type: 'tool_result', tool_use_id: o.call.id, content, ...(o.result.ok ? {} : { is_error: true }) };
}
