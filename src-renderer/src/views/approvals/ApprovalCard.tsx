/**
 * One question for a person: which tool wants to do what (the whole summary, never cut: people must
 * see the full command they allow), why it asks, how risky it is, and the three answers. The card
 * does not go away when the window loses focus; it goes when someone answers (here, in another
 * window, in the terminal or in Slack) or the request times out.
 *
 * React renders text as text, never markup; but a CR, a zero-width character or a bidi override in a
 * command still changes what a person reads (U+202E shows `ls; rm -rf ~` as something else), so every
 * text from the call, the policy or an MCP server goes through visibleText.
 */
import { useMemo, useState } from 'react';
import {
  completeForm,
  formDefaults,
  formFields,
  visibleText,
  type ApprovalDecisionKind,
  type ApprovalForm,
  type FormField,
  type FormValue,
  type FormValues,
} from '../../../../src-main/core/api/index.js';
import { errorText, toApiError } from '../../api/apiError.js';
import { CodeSpans } from '../../markdown/MessageText.js';
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
  /** Fields to fill in (an MCP server asking for input): the answer is Send (allow, with the values) or Decline. */
  form?: ApprovalForm;
  /** Set once decided (the chat keeps decided cards as a record). */
  decision?: ApprovalDecisionKind;
  by?: string;
  /** Said on "Always allow" where it is not saved at once (a browser: the grant waits for a person, in a shell on the daemon's machine or the desktop app). */
  alwaysNote?: string;
  /** What a wider answer covers (the engine's words); null: only this call may be allowed, so only Allow once and Deny. */
  grant?: { covers: string } | null;
  onAnswer(decision: ApprovalDecisionKind, values?: FormValues): Promise<unknown>;
}

/** One line of someone else's text, made visible. */
const v = (s: string): string => visibleText(s);
/** Text of several lines (a script, a form's message): line breaks kept, everything else made visible. */
const block = (s: string): string => visibleText(s, { keepNewlines: true });

const DECISION_TEXT: Record<ApprovalDecisionKind, string> = {
  allow: 'Allowed once',
  allow_session: 'Allowed in this conversation',
  always_allow: 'Always allowed',
  deny: 'Denied',
};

export function ApprovalCard(p: ApprovalCardProps) {
  const [busy, setBusy] = useState<ApprovalDecisionKind | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const titleId = `apr-title-${p.request_id}`;

  const fields = useMemo(() => (p.form ? formFields(p.form.schema) : []), [p.form]);
  const [values, setValues] = useState<FormValues>(() => formDefaults(fields));

  async function answer(decision: ApprovalDecisionKind) {
    let filled: FormValues | undefined;
    if (p.form && decision !== 'deny') {
      const done = completeForm(fields, values);
      if (done.problems.length > 0) {
        setProblem(done.problems.join('; '));
        return;
      }
      filled = done.values;
    }
    setBusy(decision);
    setProblem(undefined);
    try {
      await (filled ? p.onAnswer(decision, filled) : p.onAnswer(decision));
    } catch (e) {
      const err = toApiError(e);
      setProblem(err.code === 'approval_already_decided' ? 'Someone already answered this elsewhere.' : errorText(err));
      setBusy(undefined);
    }
  }

  const decided = p.decision !== undefined;
  return (
    <section
      className={`approval-card risk-${p.risk}${decided ? ' decided' : ''}`}
      role="group"
      aria-labelledby={titleId}
      data-request-id={p.request_id}
    >
      <header className="approval-head">
        <span className={`risk-badge risk-${p.risk}`}>{p.risk} risk</span>
        <h3 id={titleId}>
          <code>{v(p.tool)}</code> wants approval
        </h3>
        {p.origin && <span className="approval-origin">{v(p.origin)}</span>}
      </header>
      <pre className="approval-summary">{block(p.summary)}</pre>
      {/* Escaped first, then only its `code spans` rendered (markdown/CodeSpans). */}
      <p className="approval-reason">
        <CodeSpans text={v(p.reason)} />
      </p>
      {p.risk_explanation && (
        <p className="approval-risk-text">
          <CodeSpans text={v(p.risk_explanation)} />
        </p>
      )}
      {p.input !== undefined && (
        <details className="approval-args">
          <summary>Arguments</summary>
          <pre>{block(formatArgs(p.input))}</pre>
        </details>
      )}
      {p.form && !decided && (
        <div className="approval-form">
          <p className="approval-form-message">{block(p.form.message)}</p>
          {fields.map((f) => (
            <FieldInput
              key={f.name}
              id={`${p.request_id}-${f.name}`}
              field={f}
              value={values[f.name]}
              onChange={(v) => setValues((old) => setValue(old, f.name, v))}
            />
          ))}
        </div>
      )}
      {decided ? (
        <p className="approval-decision" role="status">
          {DECISION_TEXT[p.decision!]}
          {p.by && p.by !== 'daemon' && p.by !== 'desktop' ? ` (${v(p.by)})` : ''}
        </p>
      ) : p.form ? (
        <div className="approval-actions">
          <button type="button" className="primary" disabled={busy !== undefined} onClick={() => void answer('allow')}>
            {busy === 'allow' ? 'Sending…' : 'Send'}
          </button>
          <button type="button" className="danger" disabled={busy !== undefined} onClick={() => void answer('deny')}>
            {busy === 'deny' ? 'Declining…' : 'Decline'}
          </button>
        </div>
      ) : (
        <>
          {p.grant ? (
            <p className="approval-grant">Allow in this conversation / Always allow cover: {v(p.grant.covers)}</p>
          ) : p.grant === null ? (
            <p className="approval-grant">
              Only this call can be allowed: it changes a place that decides what later runs may do.
            </p>
          ) : null}
          <div className="approval-actions">
            <button
              type="button"
              className="primary"
              disabled={busy !== undefined}
              onClick={() => void answer('allow')}
            >
              {busy === 'allow' ? 'Allowing…' : 'Allow once'}
            </button>
            {p.grant !== null && (
              <button
                type="button"
                disabled={busy !== undefined}
                onClick={() => void answer('allow_session')}
                title={`Without asking again in this conversation: ${p.grant ? v(p.grant.covers) : 'this call'}`}
              >
                {busy === 'allow_session' ? 'Allowing…' : 'Allow in this conversation'}
              </button>
            )}
            {p.grant !== null && (
              <button
                type="button"
                disabled={busy !== undefined}
                onClick={() => void answer('always_allow')}
                {...(p.alwaysNote ? { title: p.alwaysNote } : {})}
              >
                {busy === 'always_allow' ? 'Saving…' : 'Always allow'}
              </button>
            )}
            <button type="button" className="danger" disabled={busy !== undefined} onClick={() => void answer('deny')}>
              {busy === 'deny' ? 'Denying…' : 'Deny'}
            </button>
          </div>
        </>
      )}
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}

function setValue(old: FormValues, name: string, v: FormValue | undefined): FormValues {
  const next = { ...old };
  if (v === undefined) delete next[name];
  else next[name] = v;
  return next;
}

/** One field of a form: a text box, a number box, a checkbox, a list or a set of checkboxes. */
function FieldInput({
  id,
  field: f,
  value,
  onChange,
}: {
  id: string;
  field: FormField;
  value: FormValue | undefined;
  onChange(v: FormValue | undefined): void;
}) {
  const label = (
    <label htmlFor={id}>
      {v(f.label)}
      {f.required ? ' *' : ''}
    </label>
  );
  const help = f.description ? <small className="muted">{v(f.description)}</small> : null;
  if (f.kind === 'boolean') {
    return (
      <div className="form-field form-field-check">
        <input id={id} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
        {label}
        {help}
      </div>
    );
  }
  if (f.kind === 'choice') {
    return (
      <div className="form-field">
        {label}
        <select
          id={id}
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}
        >
          <option value="">—</option>
          {(f.choices ?? []).map((c) => (
            <option key={c.value} value={c.value}>
              {v(c.label)}
            </option>
          ))}
        </select>
        {help}
      </div>
    );
  }
  if (f.kind === 'choices') {
    const chosen = Array.isArray(value) ? value : [];
    return (
      <fieldset className="form-field" id={id}>
        <legend>
          {v(f.label)}
          {f.required ? ' *' : ''}
        </legend>
        {(f.choices ?? []).map((c) => (
          <label key={c.value} className="form-field-check">
            <input
              type="checkbox"
              checked={chosen.includes(c.value)}
              onChange={(e) => onChange(e.target.checked ? [...chosen, c.value] : chosen.filter((x) => x !== c.value))}
            />
            {v(c.label)}
          </label>
        ))}
        {help}
      </fieldset>
    );
  }
  const numeric = f.kind === 'number' || f.kind === 'integer';
  return (
    <div className="form-field">
      {label}
      <input
        id={id}
        type={numeric ? 'number' : f.format === 'email' ? 'email' : f.format === 'date' ? 'date' : 'text'}
        value={value === undefined ? '' : String(value)}
        {...(f.minimum !== undefined ? { min: f.minimum } : {})}
        {...(f.maximum !== undefined ? { max: f.maximum } : {})}
        {...(f.kind === 'integer' ? { step: 1 } : {})}
        onChange={(e) =>
          onChange(e.target.value === '' ? undefined : numeric ? Number(e.target.value) : e.target.value)
        }
      />
      {help}
    </div>
  );
}
