/**
 * A tool call as a card: name and one-line summary, a live timer while it runs, its duration after,
 * and (expanded) the full arguments and the head of its result. A failed call is marked as such.
 */
import { useEffect, useState } from 'react';
import { visibleText } from '../../../../src-main/core/api/index.js';
import type { ChatItem } from '../../state/chat.js';
import { formatArgs, formatDuration } from '../../util/format.js';

type ToolItem = Extract<ChatItem, { kind: 'tool' }>;

export function ToolCard({ item }: { item: ToolItem }) {
  const statusText = item.status === 'running' ? 'running' : item.status === 'ok' ? 'done' : 'failed';
  return (
    <details className={`tool-card tool-${item.status}`} data-tool={item.tool}>
      <summary>
        <span className="tool-status" aria-label={statusText} title={statusText} />
        <code className="tool-name">{item.tool}</code>
        {/* The call's words, escaped: a CR or bidi override in a command is shown, not obeyed (visibleText). */}
        <span className="tool-summary">{visibleText(item.summary || oneLine(item.input))}</span>
        {item.status === 'running' && item.progress && <span className="tool-progress muted">{item.progress}</span>}
        <span className="tool-time">
          {item.status === 'running' && item.startedAt ? (
            <Elapsed since={item.startedAt} />
          ) : item.duration_ms !== undefined ? (
            formatDuration(item.duration_ms)
          ) : (
            ''
          )}
        </span>
      </summary>
      <div className="tool-body">
        <h4>Arguments</h4>
        <pre>{visibleText(formatArgs(item.input), { keepNewlines: true }) || '(none)'}</pre>
        {item.preview !== undefined && (
          <>
            <h4>{item.status === 'error' ? 'Error' : 'Result'}</h4>
            <pre className="tool-preview">{item.preview || '(empty)'}</pre>
          </>
        )}
        {item.saved_to && <p className="muted">Full result saved to {item.saved_to}</p>}
      </div>
    </details>
  );
}

function oneLine(input: unknown): string {
  const s = typeof input === 'string' ? input : (JSON.stringify(input) ?? '');
  return s.length > 120 ? `${s.slice(0, 119)}…` : s;
}

/** Time since `since`, ticking while shown. */
export function Elapsed({ since }: { since: string }) {
  const start = Date.parse(since);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, []);
  return <>{formatDuration(Math.max(0, now - (Number.isNaN(start) ? now : start)))}</>;
}
