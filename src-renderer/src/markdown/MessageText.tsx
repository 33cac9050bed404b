/**
 * Message text on screen. Answers are Markdown, rendered by react-markdown to React elements (never
 * through innerHTML), with three rules because the text comes from a model that may be repeating a
 * web page written by someone hostile:
 * - raw HTML is never rendered: `<img onerror=…>` or `<script>` in the text shows as those characters;
 * - a link works only when it is http(s); anything else (javascript:, file:, data:, relative paths)
 *   is shown as its text without a link. Links open outside the page (a new tab; in the desktop app,
 *   the system browser);
 * - images are not fetched: a remote image would report to its server that the message was read, so
 *   it is shown as a link to the image instead.
 * What the person typed is shown as plain text, with its line breaks.
 */
import { lazy, Suspense } from 'react';

const loadMarkdown = () => import('./markdownText.js');
const MarkdownText = lazy(loadMarkdown);
const CodeSpansText = lazy(() => loadMarkdown().then((m) => ({ default: m.CodeSpansText })));

/** Starts fetching the Markdown renderer (once the chat has shown) so the first answer need not wait. */
export function preloadMarkdown(): void {
  void loadMarkdown().catch(() => undefined);
}

export function MessageText({ text }: { text: string }) {
  return (
    <div className="message-text">
      {/* Until the renderer has arrived, the text shows as it is. */}
      <Suspense fallback={<div className="plain-text">{text}</div>}>
        <MarkdownText text={text} />
      </Suspense>
    </div>
  );
}

/**
 * One line from the permission policy (an approval's reason, a risk explanation) with its `code spans`
 * shown as code; nothing else is Markdown there (no emphasis, links, HTML or escapes). The caller passes
 * the text already made visible (visibleText): escaped first, then rendered.
 */
export function CodeSpans({ text }: { text: string }) {
  return (
    <Suspense fallback={text}>
      <CodeSpansText text={text} />
    </Suspense>
  );
}

/** What a person typed: their characters and line breaks exactly, no Markdown. */
export function PlainText({ text }: { text: string }) {
  return <div className="message-text plain-text">{text}</div>;
}
