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
import type { Element, ElementContent, Root, RootContent } from 'hast';
import Markdown, { type Components, type UrlTransform } from 'react-markdown';

/** The URL when it is an absolute http(s) URL, otherwise undefined. */
export function safeUrl(url: string | undefined | null): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined; // relative or malformed
  }
}

const keepSafeUrls: UrlTransform = (url) => safeUrl(url) ?? '';

const LINK_REL = 'noopener noreferrer nofollow';

/**
 * A block of raw HTML (a `<script>` line on its own, say) is shown as a paragraph of its text, like
 * the prose around it; react-markdown then turns any raw HTML left inline into plain text as well.
 */
function blockHtmlAsText() {
  const paragraphOf = (value: string): Element => ({ type: 'element', tagName: 'p', properties: {}, children: [{ type: 'text', value }] });
  // Only where children are blocks: at the top and in quotes (in a paragraph or list item, raw HTML is inline).
  const visit = (parent: Root | Element) => {
    parent.children = parent.children.map((child: RootContent | ElementContent) => {
      if (child.type === 'raw') return paragraphOf(child.value);
      if (child.type === 'element' && child.tagName === 'blockquote') visit(child);
      return child;
    }) as typeof parent.children;
  };
  return (tree: Root) => visit(tree);
}
const rehypePlugins = [blockHtmlAsText];

const components: Components = {
  a({ href, children, title }) {
    const url = safeUrl(href);
    if (!url) return <span className="md-unlinked">{children}</span>;
    return (
      <a href={url} target="_blank" rel={LINK_REL} {...(title ? { title } : {})}>
        {children}
      </a>
    );
  },
  img({ src, alt }) {
    const url = safeUrl(typeof src === 'string' ? src : undefined);
    const label = alt?.trim() || (url ? new URL(url).pathname.split('/').pop() || url : 'image');
    if (!url) return <span className="md-image">[{label}]</span>;
    return (
      <a className="md-image" href={url} target="_blank" rel={LINK_REL} title={`Image (not loaded): ${url}`}>
        [image: {label}]
      </a>
    );
  },
  pre({ children }) {
    return <pre className="code-block">{children}</pre>;
  },
};

export function MessageText({ text }: { text: string }) {
  return (
    <div className="message-text">
      <Markdown urlTransform={keepSafeUrls} components={components} rehypePlugins={rehypePlugins}>
        {text}
      </Markdown>
    </div>
  );
}

/** What a person typed: their characters and line breaks exactly, no Markdown. */
export function PlainText({ text }: { text: string }) {
  return <div className="message-text plain-text">{text}</div>;
}
