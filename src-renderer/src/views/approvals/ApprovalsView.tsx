/** Every approval waiting for a person, oldest first, from every agent and route. */
import type { ApprovalDecisionKind } from '../../../../src-main/core/api/index.js';
import type { ApprovalItem } from '../../state/approvals.js';
import { formatWhen } from '../../util/format.js';
import { ApprovalCard } from './ApprovalCard.js';

export function ApprovalsView({ pending, onAnswer }: { pending: ApprovalItem[]; onAnswer(id: string, d: ApprovalDecisionKind): Promise<unknown> }) {
  return (
    <div className="view approvals-view">
      <header className="view-head">
        <h1>Approvals</h1>
        <p className="muted">{pending.length === 0 ? 'Nothing is waiting for you.' : `${pending.length} waiting, oldest first.`}</p>
      </header>
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
            onAnswer={(d) => onAnswer(a.request_id, d)}
          />
        ))}
      </div>
    </div>
  );
}
