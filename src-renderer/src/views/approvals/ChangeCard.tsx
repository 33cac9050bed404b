/**
 * A change to Rein's permissions that something asked for over the daemon's API (a script, the web
 * page, a relay holding the token): what it would raise, the request itself, and — in the desktop app
 * only — Apply and Reject. Nothing was changed yet. In a browser the card says where to confirm it, with
 * the exact command (`rein changes accept chg_…` in a shell on the daemon's machine): the token that page
 * holds is exactly what must not be enough. What the change adds (a command line, a tool) came from the
 * caller: it goes through visibleText, so a CR or bidi override in it is seen.
 */
import { useState } from 'react';
import { visibleText, type PendingChange } from '../../../../src-main/core/api/index.js';
import { errorText, toApiError } from '../../api/apiError.js';
import { formatArgs, formatWhen } from '../../util/format.js';

const KIND_TEXT: Record<string, string> = {
  create_agent: 'Create agent',
  save_agent: 'Change agent',
  save_settings: 'Change the global settings',
  always_allow: 'Always allow',
  trust_folder: 'Trust the project folder',
};

export function ChangeCard({
  change,
  onAnswer,
}: {
  change: PendingChange;
  onAnswer?: (decision: 'apply' | 'reject') => Promise<unknown>;
}) {
  const [busy, setBusy] = useState<'apply' | 'reject' | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const titleId = `chg-title-${change.change_id}`;
  // trust_folder: the daemon's own question about the folder it works in (request.folder), not an API request.
  const trustFolder = change.kind === 'trust_folder';
  const request = change.request as { folder?: unknown } | null | undefined;
  const folder = trustFolder && typeof request?.folder === 'string' ? request.folder : undefined;

  async function answer(decision: 'apply' | 'reject') {
    if (!onAnswer) return;
    setBusy(decision);
    setProblem(undefined);
    try {
      await onAnswer(decision);
    } catch (e) {
      const err = toApiError(e);
      setProblem(
        err.code === 'change_not_found'
          ? 'This change is no longer waiting (answered, expired, or Rein restarted).'
          : errorText(err),
      );
      setBusy(undefined);
    }
  }

  return (
    <section
      className="approval-card change-card risk-high"
      role="group"
      aria-labelledby={titleId}
      data-change-id={change.change_id}
    >
      <header className="approval-head">
        <span className="risk-badge risk-high">permissions</span>
        <h3 id={titleId}>
          {KIND_TEXT[change.kind] ?? visibleText(change.kind)}
          {change.agent ? (
            <>
              {' '}
              <code>{visibleText(change.agent)}</code>
            </>
          ) : null}
          {trustFolder && folder ? (
            <>
              {' '}
              <code>{visibleText(folder)}</code>
            </>
          ) : null}
        </h3>
        <span className="approval-origin">
          {trustFolder ? 'found by Rein’s daemon' : 'asked over Rein’s API'} · {formatWhen(change.requested_at)}
        </span>
      </header>
      <p className="approval-reason">
        {trustFolder
          ? 'The folder Rein’s daemon works in has a .rein/config.yaml that sets these. They are left out until you trust the folder; the rest of that file applies. Trust it only if you know where it came from.'
          : 'This would let the agent do more without asking you. Nothing has been changed yet.'}
      </p>
      <ul className="change-raises">
        {change.raises.map((r) => (
          <li key={`${r.field}:${r.change}`}>
            <code>{visibleText(r.field)}</code> {visibleText(r.change)}
          </li>
        ))}
      </ul>
      <details className="approval-args">
        <summary>The whole request</summary>
        <pre>{visibleText(formatArgs(change.request), { keepNewlines: true })}</pre>
      </details>
      {onAnswer ? (
        <div className="approval-actions">
          <button type="button" className="danger" disabled={busy !== undefined} onClick={() => void answer('apply')}>
            {busy === 'apply' ? 'Applying…' : 'Apply change'}
          </button>
          <button type="button" className="primary" disabled={busy !== undefined} onClick={() => void answer('reject')}>
            {busy === 'reject' ? 'Rejecting…' : 'Reject'}
          </button>
        </div>
      ) : (
        <div className="change-confirm" role="note">
          <p className="approval-decision">To confirm it, run this in a shell on the machine Rein runs on:</p>
          <pre className="change-command">
            <code>{change.accept_command ?? `rein changes accept ${change.change_id}`}</code>
          </pre>
          <p className="muted">
            Or reject it with <code>{change.reject_command ?? `rein changes reject ${change.change_id}`}</code> — or
            answer it in the Rein desktop app. It waits until {formatWhen(change.expires_at)}.
          </p>
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
