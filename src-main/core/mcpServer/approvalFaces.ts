/**
 * Who answers a tool call that needs approval when an MCP client called it. In this order:
 *
 * 1. The client itself, when it said at `initialize` that it can show forms (`elicitation.form`): the
 *    question goes back to it as an `elicitation/create` request, a confirm form with one choice —
 *    allow once, always allow, deny. Declining or dismissing the form is a deny.
 * 2. Otherwise the approval desk of the Rein daemon running for this REIN_HOME (daemon.json names it and
 *    its process is alive): `POST /approvals/ask` with the one ApprovalRequest, authenticated with the
 *    daemon's token, which only Rein's own processes can read (it is a hard-blocked secret for every
 *    tool). The daemon puts the question on its bus, so every connected client — the desktop app, the
 *    web UI, `GET /events` and WebSocket clients — sees it and can answer with `POST /approval`; the
 *    request returns with the first answer.
 * 3. Otherwise nobody: the call is refused at once (permission layer `origin`), with no question asked.
 *
 * No tool runs ungated: an unreachable daemon, a client that fails to answer or a malformed answer is a
 * deny, and nobody answering within `permissions.approval_timeout_seconds` is a deny (the broker's).
 */
import { daemonRequest, type DaemonAnswer } from '../daemon/client.js';
import { z } from 'zod';
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { ApprovalDecisionKind, type ApprovalRequest } from '../api/events.js';
import { visibleText } from '../api/visibleText.js';
import type { DaemonInfo } from '../daemon/daemonFile.js';
import { errorMessage } from '../errors.js';
import type { ApprovalAnswer, ApprovalFace, PermissionDecision, PermissionPolicy } from '../permissions/types.js';

/** `by` of an answer that no person gave: the face could not ask (see FaceProblems). */
export const FACE_FAILED = 'face_failed';

/** Why a face could not ask, by request id, so the caller can tell the client instead of "denied". */
export class FaceProblems {
  readonly #byRequest = new Map<string, string>();
  note(requestId: string, problem: string): void {
    this.#byRequest.set(requestId, problem);
    if (this.#byRequest.size > 200) this.#byRequest.delete(this.#byRequest.keys().next().value!);
  }
  take(requestId: string): string | undefined {
    const p = this.#byRequest.get(requestId);
    this.#byRequest.delete(requestId);
    return p;
  }
}

// ---- 1. the client's own form -----------------------------------------------------------------------

/** The choices of the confirm form, and what each means to the broker. */
export const ELICIT_CHOICES = {
  allow_once: 'allow',
  always_allow: 'always_allow',
  deny: 'deny',
} as const satisfies Record<string, ApprovalDecisionKind>;

/**
 * The form: one required choice. `enum` + `enumNames` are understood by every elicitation version.
 * The message is shown by another program's UI, maybe a terminal: the call's words go through
 * visibleText, so an ESC, CR or bidi override in a command is seen there, not obeyed.
 */
export function approvalForm(req: ApprovalRequest): ElicitRequestFormParams {
  const lines = [
    visibleText(`Rein (agent "${req.agent}") wants to run ${req.tool}:`),
    `  ${visibleText(req.summary, { keepNewlines: true }).replace(/\n/g, '\n  ')}`,
    visibleText(`Why it asks: ${req.reason}`),
    visibleText(`Risk: ${req.risk}${req.risk_explanation ? ` (${req.risk_explanation})` : ''}`),
  ];
  // Nothing wider than the call may be granted (a protected or persistence place): no "Always allow".
  const once = req.grant === null;
  if (req.grant) lines.push(visibleText(`"Always allow" covers ${req.grant.covers}.`));
  return {
    mode: 'form',
    message: lines.join('\n'),
    requestedSchema: {
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          title: 'Run this call?',
          description: once
            ? 'Only this call can be allowed: it changes a place that decides what later runs may do.'
            : '"Always allow" runs this call and the same call again on this connection without asking; keeping it for later waits for a person to confirm it (`rein changes accept` in a shell on this machine, or the Rein desktop app).',
          enum: once ? ['allow_once', 'deny'] : Object.keys(ELICIT_CHOICES),
          enumNames: once ? ['Allow once', 'Deny'] : ['Allow once', 'Always allow', 'Deny'],
        },
      },
      required: ['decision'],
    },
  };
}

/** The broker's answer for what the client sent back: anything but an accepted, known choice is a deny. */
export function answerOfElicitation(result: ElicitResult): ApprovalAnswer {
  if (result.action !== 'accept') return { decision: 'deny', by: 'mcp_client' };
  const choice = result.content?.decision;
  const decision =
    typeof choice === 'string' && Object.hasOwn(ELICIT_CHOICES, choice)
      ? ELICIT_CHOICES[choice as keyof typeof ELICIT_CHOICES]
      : 'deny';
  return { decision, by: 'mcp_client' };
}

export type Elicit = (
  params: ElicitRequestFormParams,
  opts: { signal: AbortSignal; timeoutMs: number },
) => Promise<ElicitResult>;

/** Asks the MCP client that made the call. `timeoutMs` only bounds the request; the broker's timeout decides. */
export function elicitationFace(elicit: Elicit, timeoutMs: number, problems: FaceProblems): ApprovalFace {
  return {
    name: 'mcp_client',
    ask: async (req, signal) => {
      try {
        return answerOfElicitation(await elicit(approvalForm(req), { signal, timeoutMs }));
      } catch (e) {
        if (signal.aborted) return { decision: 'deny', by: 'withdrawn' };
        problems.note(req.request_id, `the MCP client did not answer the approval form: ${errorMessage(e)}`);
        return { decision: 'deny', by: FACE_FAILED };
      }
    },
  };
}

// ---- 2. the daemon's desk ---------------------------------------------------------------------------

/** `POST /approvals/ask`'s answer (docs/daemon-api.md, *Remote approvals*). */
export const AskApprovalAnswer = z.object({ request_id: z.string(), decision: ApprovalDecisionKind, by: z.string() });

/** Asks the daemon's approval desk, holding the request open until it answers (or the broker withdraws). */
export function daemonDeskFace(info: Pick<DaemonInfo, 'port' | 'token'>, problems: FaceProblems): ApprovalFace {
  return {
    name: 'daemon',
    ask: async (req, signal) => {
      try {
        const answer = await postJson(info, '/approvals/ask', req, signal);
        if (answer.status === 200) {
          const parsed = AskApprovalAnswer.safeParse(answer.json);
          if (parsed.success && parsed.data.request_id === req.request_id)
            return { decision: parsed.data.decision, by: parsed.data.by };
          problems.note(
            req.request_id,
            'the Rein daemon answered the approval request with something that is not an answer',
          );
        } else {
          const why = (answer.json as { error?: unknown } | undefined)?.error;
          problems.note(
            req.request_id,
            answer.status === 404
              ? 'the running Rein daemon is older and cannot take approval requests from the MCP server (POST /approvals/ask); restart it'
              : `the Rein daemon refused the approval request (HTTP ${answer.status}${typeof why === 'string' ? `: ${why}` : ''})`,
          );
        }
      } catch (e) {
        if (signal.aborted) return { decision: 'deny', by: 'withdrawn' };
        problems.note(req.request_id, `the Rein daemon could not be reached to ask for approval: ${errorMessage(e)}`);
      }
      return { decision: 'deny', by: FACE_FAILED };
    },
  };
}

/** One JSON request to the local daemon that waits as long as it takes and stops when `signal` aborts. */
function postJson(
  info: Pick<DaemonInfo, 'port' | 'token'>,
  path: string,
  body: unknown,
  signal: AbortSignal,
): Promise<DaemonAnswer> {
  return daemonRequest(info, 'POST', path, body, { timeoutMs: 0, signal });
}

// ---- "always allow" ---------------------------------------------------------------------------------

/**
 * What an "always allow" given to `rein mcp serve` becomes: never a write to config.yaml here — the
 * answer came from the MCP client's form or over the daemon's desk, and neither proves a person at
 * this Mac. The running daemon is handed the call (`POST /changes/always-allow`) and makes it a
 * pending change for a person (`rein changes accept` in a shell, the desktop app), exactly as for an
 * API answer to a run's question; the line
 * returned is the daemon's (pending, or refused with how to make the change by hand). `fallback`
 * gives the line when the daemon cannot take it (it is older, or unreachable).
 */
export async function proposeToDaemon(
  info: Pick<DaemonInfo, 'port' | 'token'>,
  call: { agent: string; tool: string; input: unknown; cwd: string },
  fallback: () => Promise<string>,
): Promise<string> {
  let answer: DaemonAnswer;
  try {
    answer = await daemonRequest(info, 'POST', '/changes/always-allow', call, { timeoutMs: 30_000 });
  } catch (e) {
    return `${await fallback()} (the Rein daemon could not be reached to keep it: ${errorMessage(e)})`;
  }
  const said = answer.json as { message?: unknown; error?: unknown; code?: unknown } | undefined;
  if (answer.status === 202 && typeof said?.message === 'string')
    return `"always allow" holds for this MCP connection. ${said.message}`;
  if (answer.status === 403 && said?.code === 'confirmation_required' && typeof said.error === 'string')
    return `"always allow" holds for this MCP connection only. ${said.error}`;
  const why = typeof said?.error === 'string' ? `: ${said.error}` : '';
  return answer.status === 404 && said?.code === 'not_found'
    ? `${await fallback()} (the running Rein daemon is older and cannot keep it: restart it)`
    : `${await fallback()} (the Rein daemon refused to keep it, HTTP ${answer.status}${why})`;
}

// ---- 3. nobody --------------------------------------------------------------------------------------

/** Why a call that needs approval is refused when nobody can be asked. */
export function nobodyToAsk(deskOnly: boolean): string {
  const client = deskOnly
    ? 'rein mcp serve runs with --desk-only, so it never asks the client'
    : 'this MCP client cannot show an approval form (it did not declare elicitation)';
  return (
    `${client}, and no Rein daemon is running for this REIN_HOME to ask through its approval desk, so a call that needs approval is not run; ` +
    `start \`rein daemon\` or the desktop app${deskOnly ? '' : ', or use a client that supports elicitation'}`
  );
}

/** The policy with every `ask` turned into a deny from the `origin` layer, decided before any question. */
export function refusingAsks(policy: PermissionPolicy, reason: string): PermissionPolicy {
  const apply = (d: PermissionDecision): PermissionDecision =>
    d.decision === 'ask'
      ? { ...d, decision: 'deny', layer: 'origin', reason: `${reason} (it would have asked: ${d.reason})` }
      : d;
  return {
    check(call) {
      const d = policy.check(call);
      return d instanceof Promise ? d.then(apply) : apply(d);
    },
  };
}
