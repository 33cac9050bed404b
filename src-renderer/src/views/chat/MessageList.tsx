/** The conversation: messages, tool cards, approval cards and notices, newest at the bottom. */
import { useEffect, useRef, type ReactNode } from 'react';
import type { ApprovalDecisionKind, FormValues } from '../../../../src-main/core/api/index.js';
import { explainError, type ErrorContext } from '../../../../src-main/core/api/errorText.js';
import { MessageText, PlainText } from '../../markdown/MessageText.js';
import type { ChatItem } from '../../state/chat.js';
import { ApprovalCard } from '../approvals/ApprovalCard.js';
import { ToolCard } from './ToolCard.js';

export interface MessageListProps {
  items: ChatItem[];
  /** Absent for a read-only transcript. */
  onAnswer?(request_id: string, decision: ApprovalDecisionKind, values?: FormValues): Promise<unknown>;
  empty?: ReactNode;
  /** What error sentences may name (the base URL model calls go to). */
  errorContext?: ErrorContext;
}

export function MessageList({ items, onAnswer, empty, errorContext }: MessageListProps) {
  const ref = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);

  // Follow new text while the reader is at the bottom; leave them alone once they scroll up.
  useEffect(() => {
    const el = ref.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [items]);

  return (
    <div
      className="message-list"
      ref={ref}
      onScroll={(e) => {
        const el = e.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}
      role="log"
      aria-label="Conversation"
      tabIndex={0}
    >
      {items.length === 0 && empty}
      {items.map((item) => {
        switch (item.kind) {
          case 'user':
            return (
              <article key={item.id} className="msg msg-user">
                <PlainText text={item.text} />
                {item.injected && <span className="msg-tag">sent into the running answer</span>}
              </article>
            );
          case 'assistant':
            return (
              <article
                key={item.id}
                className={`msg msg-assistant${item.streaming ? ' streaming' : ''}`}
                aria-busy={item.streaming}
              >
                <MessageText text={item.text} />
              </article>
            );
          case 'tool':
            return <ToolCard key={item.id} item={item} />;
          case 'approval':
            return (
              <ApprovalCard
                key={item.id}
                request_id={item.id}
                tool={item.tool}
                summary={item.summary}
                reason={item.reason}
                risk={item.risk}
                risk_explanation={item.risk_explanation}
                input={item.input}
                {...(item.form ? { form: item.form } : {})}
                {...(item.grant !== undefined ? { grant: item.grant } : {})}
                {...(item.decision ? { decision: item.decision } : {})}
                {...(item.by ? { by: item.by } : {})}
                onAnswer={(d, values) => (onAnswer ? onAnswer(item.id, d, values) : Promise.resolve())}
              />
            );
          case 'notice':
            return (
              <p key={item.id} className={`notice notice-${item.level}`}>
                {item.text}
              </p>
            );
          case 'error':
            return (
              <ErrorNotice
                key={item.id}
                code={item.code}
                message={item.message}
                {...(errorContext ? { context: errorContext } : {})}
              />
            );
        }
      })}
    </div>
  );
}

/** A failure in words, with what to do (core/api/errorText.ts); the code is kept for programs, not shown alone. */
export function ErrorNotice({ code, message, context }: { code: string; message: string; context?: ErrorContext }) {
  const said = explainError(code, message, context);
  return (
    <div className="notice notice-error" role="alert" data-code={code}>
      <p className="notice-text">
        <WithCode text={said.text} />
      </p>
      {said.detail && (
        <p className="notice-detail">
          <WithCode text={said.detail} />
        </p>
      )}
    </div>
  );
}

/** `a command` in backticks as code, the rest as text. */
function WithCode({ text }: { text: string }) {
  const parts = text.split(/(`[^`\n]+`)/);
  return (
    <>
      {parts.map((p, i) =>
        p.length > 2 && p.startsWith('`') && p.endsWith('`') ? <code key={i}>{p.slice(1, -1)}</code> : p,
      )}
    </>
  );
}
