/** Every approval waiting for a person, oldest first, from every agent and route; then permission changes asked for over the API. */
import type { ApprovalDecisionKind, FormValues, PendingChange } from '../../../../src-main/core/api/index.js';
import type { ApprovalItem } from '../../state/approvals.js';
import { formatWhen } from '../../util/format.js';
import { ApprovalCard } from './ApprovalCard.js';
import { ChangeCard } from './ChangeCard.js';

export interface ApprovalsViewProps {
  pending: ApprovalItem[];
  onAnswer(id: string, d: ApprovalDecisionKind, values?: FormValues): Promise<unknown>;
  /** Permission-raising changes asked for over the API. */
  changes?: PendingChange[];
  /** Only in the desktop app: a browser holding the token must not be able to confirm them (a shell on the daemon's machine can). */
  onChange?: (id: string, decision: 'apply' | 'reject') => Promise<unknown>;
}

/** A grant answered over the daemon's API raises permissions: a person confirms it in a shell on the daemon's machine or in the app (docs/permissions.md). */
const REMOTE_ALWAYS =
  'From this page, “Always allow” holds for this run; keeping it for later runs waits under Approvals for you to confirm it: run “rein changes accept …” in a shell on the machine Rein runs on (or use the Rein desktop app).';

export function ApprovalsView({ pending, onAnswer, changes = [], onChange }: ApprovalsViewProps) {
  const waiting = pending.length + changes.length;
  return (
    <div className="view approvals-view">
      <header className="view-head">
        <h1>Approvals</h1>
        <p className="muted">{waiting === 0 ? 'Nothing is waiting for you.' : `${waiting} waiting, oldest first.`}</p>
      </header>
      {changes.length > 0 && (
        <div className="approval-list change-list" aria-label="Permission changes">
          {changes.map((c) => (
            <ChangeCard
              key={c.change_id}
              change={c}
              {...(onChange ? { onAnswer: (d: 'apply' | 'reject') => onChange(c.change_id, d) } : {})}
            />
          ))}
        </div>
      )}
      <div className="approval-list">
        {pending.map((a) => (
          <ApprovalCard
            key={a.request_id}
            request_id={a.request_id}
            tool={a.tool}
            summary={a.summary}
            reason={a.reason}
            risk={a.risk}
            risk_explanation={a.risk_explanation}
            origin={[a.agent && `agent ${a.agent}`, a.route, formatWhen(a.asked_at)].filter(Boolean).join(' · ')}
            input={a.input}
            {...(a.form ? { form: a.form } : {})}
            {...(a.grant !== undefined ? { grant: a.grant } : {})}
            {...(onChange ? {} : { alwaysNote: REMOTE_ALWAYS })}
            onAnswer={(d, values) => onAnswer(a.request_id, d, values)}
          />
        ))}
      </div>
    </div>
  );
}
