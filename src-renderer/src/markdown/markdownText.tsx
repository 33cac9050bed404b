/**
 * The Markdown renderer behind MessageText, in its own chunk: react-markdown and its parser are most of
 * the page's weight, and an empty chat can show before they arrive. The rules (no raw HTML, http(s)
 * links only, no images fetched) are described in MessageText.tsx.
 */
import type { Element, ElementContent, Root, RootContent } from 'hast';
import Markdown, { type Components, type UrlTransform } from 'react-markdown';
import type { Processor } from 'unified';
import { safeUrl } from './safeUrl.js';

const keepSafeUrls: UrlTransform = (url) => safeUrl(url) ?? '';

const LINK_REL = 'noopener noreferrer nofollow';

/**
 * A block of raw HTML (a `<script>` line on its own, say) is shown as a paragraph of its text, like
 * the prose around it; react-markdown then turns any raw HTML left inline into plain text as well.
 */
function blockHtmlAsText() {
  const paragraphOf = (value: string): Element => ({
    type: 'element',
    tagName: 'p',
    properties: {},
    children: [{ type: 'text', value }],
  });
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

/**
 * Every Markdown construct but code spans (and the paragraph around them) switched off in the parser:
 * in a policy's reason or risk explanation, `rm *.txt *.md` must not turn into emphasis, `\*` must keep
 * its backslash, `<b>` and `[x](y)` stay text. So a person reads exactly the words the policy wrote, with
 * the names in backticks shown as code.
 */
const ALL_BUT_CODE_SPANS = [
  'attention',
  'autolink',
  'blockQuote',
  'characterEscape',
  'characterReference',
  'codeFenced',
  'codeIndented',
  'definition',
  'hardBreakEscape',
  'headingAtx',
  'htmlFlow',
  'htmlText',
  'labelEnd',
  'labelStartImage',
  'labelStartLink',
  'list',
  'setextUnderline',
  'thematicBreak',
];
function codeSpansOnly(this: Processor) {
  // remark-parse hands data.micromarkExtensions to the parser (its documented hook for plugins).
  const data = this.data() as { micromarkExtensions?: unknown[] };
  (data.micromarkExtensions ??= []).push({ disable: { null: ALL_BUT_CODE_SPANS } });
}
const codeSpanPlugins = [codeSpansOnly];
const INLINE_ELEMENTS = ['p', 'code'];
const inline: Components = { p: ({ children }) => <>{children}</> };

/** One line of text with its `code spans` as code and nothing else interpreted (see ALL_BUT_CODE_SPANS). */
export function CodeSpansText({ text }: { text: string }) {
  return (
    <Markdown
      remarkPlugins={codeSpanPlugins}
      allowedElements={INLINE_ELEMENTS}
      unwrapDisallowed
      components={inline}
      skipHtml
    >
      {text}
    </Markdown>
  );
}

export default MarkdownText;
