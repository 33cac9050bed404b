/**
 * The approval step of admission, for a call the policy says to ask about: a signed conversation grant,
 * an "always allow" of this run or an earlier "allow once" lets it through; otherwise the question goes
 * to the broker (every face at once) and the answer is kept at the width of the grant the person saw.
 */
import type { ApprovalRequest, ReinEventBody } from '../../api/events.js';
import { maskSecretsIn } from '../../audit/maskSecrets.js';
import { errorMessage } from '../../errors.js';
import { newApprovalId } from '../../permissions/approvalBroker.js';
import type { PermissionPolicy } from '../../permissions/types.js';
import { describeGrant, exactGrant, grantKey, grantSigner, type GrantSigner } from '../../permissions/grants.js';
import { approvalSummary, errorResult, type Tool } from '../../tools/tool.js';
import { canonicalJson } from '../../util/canonicalJson.js';
import type { CallLedger } from './ledger.js';
import type { ExecutorDeps } from './types.js';

export type Verdict = Awaited<ReturnType<PermissionPolicy['check']>>;

const signerOf = (deps: ExecutorDeps): GrantSigner | undefined =>
  deps.grantSigner ?? (deps.ctx.reinHome ? grantSigner(deps.ctx.reinHome) : undefined);

/** The conversation holds a signed grant for this key (a forged or copied entry never counts). */
function sessionGranted(deps: ExecutorDeps, key: string): boolean {
  const grants = deps.sessionGrants?.grants;
  if (!grants || grants.length === 0) return false;
  const signer = signerOf(deps);
  if (!signer) return false;
  return grants.some((g) => signer.verify(deps.ctx.sessionId, deps.agent, g) === key);
}

/** One allowed or asked call: false when it was refused (the ledger has its result and the event went out). */
export async function* approveCall(
  ledger: CallLedger,
  index: number,
  tool: Tool,
  input: unknown,
  verdict: Verdict,
  pkey: string,
  deps: ExecutorDeps,
  signal: AbortSignal,
): AsyncGenerator<ReinEventBody, boolean> {
  // What a grant on this call covers (the policy says; else the exact call). `null`: only this call.
  const grant = verdict.grant === undefined ? exactGrant(tool.name, input) : verdict.grant;
  const gkey = grant ? grantKey(grant) : undefined;
  // "Allow once" covers this call again in the run, but not once a script it runs has changed.
  const onceKey = grant?.scripts ? `${pkey}\u0000${canonicalJson(grant.scripts)}` : pkey;
  if (verdict.decision !== 'ask') return true;
  if (gkey !== undefined && sessionGranted(deps, gkey)) {
    ledger.approvedBy.set(index, { layer: verdict.layer, by: 'session' });
    return true;
  }
  if (gkey !== undefined && deps.approvals.alwaysGrants.has(gkey)) {
    ledger.approvedBy.set(index, { layer: verdict.layer, by: 'always_allow' });
    return true;
  }
  if (deps.approvals.approved.has(onceKey)) return true;

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
    ledger.deniedAny = true;
    deps.approvals.denied.add(pkey);
    deps.approvals.deniedCount++;
    const why = whyNotApproved(answer.by, verdict, deps.source);
    // A protected place says what it is (an agent's memory points to memory_append), so the model can choose another way.
    const what = verdict.layer === 'protected' ? ` It needed a person because ${verdict.reason}.` : '';
    const name = ledger.calls[index]!.name;
    ledger.refuse(
      index,
      errorResult(
        'permission',
        `DENIED: ${name} did not run because ${why}.${what} Do not claim it ran; tell the user, or try a different approach that does not need this call.`,
      ),
      tool,
      input,
      { layer: verdict.layer, by: answer.by },
    );
    yield ledger.denied(index, tool, input, verdict.layer, `${verdict.reason}; not approved: ${why}`, answer.by);
    return false;
  }
  ledger.approvedBy.set(index, { layer: verdict.layer, by: answer.by });
  deps.approvals.approved.add(onceKey);
  const wider = answer.decision === 'allow_session' || answer.decision === 'always_allow';
  if (wider && !grant) {
    // The question offered only this call: a wider answer (a face that does not know) allows it once.
    yield {
      type: 'notice',
      level: 'info',
      message: `${tool.name} was allowed for this call only: ${verdict.reason}. Nothing wider can be granted there, so the next such call asks again.`,
    };
  }
  if (answer.decision === 'allow_session' && grant && gkey !== undefined) {
    const signer = signerOf(deps);
    if (deps.sessionGrants && signer && !sessionGranted(deps, gkey))
      deps.sessionGrants.grants.push(signer.sign(deps.ctx.sessionId, deps.agent, grant));
  }
  if (answer.decision === 'always_allow' && grant && gkey !== undefined) {
    // What "always" covers is the grant the person saw: one command in one folder, one path, one app…
    deps.approvals.alwaysGrants.add(gkey);
    if (deps.onAlwaysAllow) {
      try {
        const note = await deps.onAlwaysAllow(tool, input, answer.by, grant);
        if (note) yield { type: 'notice', level: 'info', message: note };
      } catch (err) {
        yield {
          type: 'notice',
          level: 'warning',
          message: `could not save "always allow" for ${tool.name}: ${errorMessage(err)}`,
        };
      }
    }
  }
  return true;
}

/** Why nobody approved the call, in the words the model reads. */
function whyNotApproved(by: string, verdict: Verdict, source: string): string {
  if (by === 'timeout') return 'nobody answered the approval request in time';
  if (by === 'cancelled') return 'the run was cancelled';
  if (by === 'unattended' || by === 'none') return `nobody is watching this ${source} run, so nobody could approve it`;
  if (by === 'no-terminal') {
    const how =
      verdict.layer === 'protected'
        ? "--yes and auto_approve never approve a change to Rein's protected places"
        : 'run it at a terminal, or approve such calls in advance';
    return `it needs a person, and there is no terminal to ask one (${how})`;
  }
  return 'the user denied it';
}
