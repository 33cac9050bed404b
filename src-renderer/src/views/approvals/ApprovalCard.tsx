/**
 * One question for a person: which tool wants to do what (the whole summary, never cut: people must
 * see the full command they allow), why it asks, how risky it is, and the three answers. The card
 * does not go away when the window loses focus; it goes when someone answers (here, in another
 * window, in the terminal or in Slack) or the request times out.
 */
import { useState } from 'react';
import type { ApprovalDecisionKind } from '../../../../src-main/core/api/index.js';
import { errorText, toApiError } from '../../api/apiError.js';
import { formatArgs } from '../../util/format.js';

export interface ApprovalCardProps {
  request_id: string;
  tool: string;
  summary: string;
  reason: string;
  risk: string;
  risk_explanation: string;
  /** Where it comes from, for the queue (agent, route). */
  origin?: string;
  input?: unknown;
  /** Set once decided (the chat keeps decided cards as a record). */
  decision?: ApprovalDecisionKind;
  by?: string;
  onAnswer(decision: ApprovalDecisionKind): Promise<unknown>;
}

const DECISION_TEXT: Record<ApprovalDecisionKind, string> = { allow: 'Allowed once', always_allow: 'Always allowed', deny: 'Denied' };

export function ApprovalCard(p: ApprovalCardProps) {
  const [busy, setBusy] = useState<ApprovalDecisionKind | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const titleId = `apr-title-${p.request_id}`;

  async function answer(decision: ApprovalDecisionKind) {
    setBusy(decision);
    setProblem(undefined);
    try {
      await p.onAnswer(decision);
    } catch (e) {
      const err = toApiError(e);
      setProblem(err.code === 'approval_already_decided' ? 'Someone already answered this elsewhere.' : errorText(err));
      setBusy(undefined);
    }
  }

  const decided = p.decision !== undefined;
  return (
    <section className={`approval-card risk-${p.risk}${decided ? ' decided' : ''}`} role="group" aria-labelledby={titleId} data-request-id={p.request_id}>
      <header className="approval-head">
        <span className={`risk-badge risk-${p.risk}`}>{p.risk} risk</span>
        <h3 id={titleId}>
          <code>{p.tool}</code> wants approval
        </h3>
        {p.origin && <span className="approval-origin">{p.origin}</span>}
      </header>
      <pre className="approval-summary">{p.summary}</pre>
      <p className="approval-reason">{p.reason}</p>
      {p.risk_explanation && <p className="approval-risk-text">{p.risk_explanation}</p>}
      {p.input !== undefined && (
        <details className="approval-args">
          <summary>Arguments</summary>
          <pre>{formatArgs(p.input)}</pre>
        </details>
      )}
      {decided ? (
        <p className="approval-decision" role="status">
          {DECISION_TEXT[p.decision!]}
          {p.by && p.by !== 'daemon' && p.by !== 'desktop' ? ` (${p.by})` : ''}
        </p>
      ) : (
        <div className="approval-actions">
          <button type="button" className="primary" disabled={busy !== undefined} onClick={() => void answer('allow')}>
            {busy === 'allow' ? 'Allowing…' : 'Allow once'}
          </button>
          <button type="button" disabled={busy !== undefined} onClick={() => void answer('always_allow')}>
            {busy === 'always_allow' ? 'Saving…' : 'Always allow'}
          </button>
          <button type="button" className="danger" disabled={busy !== undefined} onClick={() => void answer('deny')}>
            {busy === 'deny' ? 'Denying…' : 'Deny'}
          </button>
        </div>
      )}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
