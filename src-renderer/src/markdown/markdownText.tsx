/**
 * The Markdown renderer behind MessageText, in its own chunk: react-markdown and its parser are most of
 * the page's weight, and an empty chat can show before they arrive. The rules (no raw HTML, http(s)
 * links only, no images fetched) are described in MessageText.tsx.
 */
import type { Element, ElementContent, Root, RootContent } from 'hast';
import Markdown, { type Components, type UrlTransform } from 'react-markdown';
import { safeUrl } from './safeUrl.js';

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

/** `text` as Markdown, under the rules above. */
export function MarkdownText({ text }: { text: string }) {
  return (
    <Markdown urlTransform={keepSafeUrls} components={components} rehypePlugins={rehypePlugins}>
      {text}
    </Markdown>
  );
}

export default MarkdownText;
