// Message text: answers are Markdown, but nothing a model writes becomes live markup. No DOM is
// installed, so components are rendered to static HTML, where an injected element would show up as a tag.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { PlainText } from '../../../src-renderer/src/markdown/MessageText.js';
import { MarkdownText } from '../../../src-renderer/src/markdown/markdownText.js';
import { safeUrl } from '../../../src-renderer/src/markdown/safeUrl.js';
import { Highlighted, snippetParts } from '../../../src-renderer/src/views/sessions/Highlighted.js';

// MessageText shows this (loaded on first use) inside a div.message-text.
const md = (text: string) => renderToStaticMarkup(<MarkdownText text={text} />);

describe('message text', () => {
  it('renders Markdown: emphasis, lists, headings, inline code and fenced code blocks', () => {
    const html = md('# Plan\n\nDo **this** and `that`:\n\n- one\n- two\n\n```ts\nconst a = 1;\n```');
    expect(html).toContain('<h1>Plan</h1>');
    expect(html).toContain('<strong>this</strong>');
    expect(html).toContain('<code>that</code>');
    expect(html).toMatch(/<ul>\s*<li>one<\/li>\s*<li>two<\/li>\s*<\/ul>/);
    expect(html).toContain('<pre class="code-block"><code class="language-ts">const a = 1;\n</code></pre>');
  });

  it('shows raw HTML as its characters, inline and as a block, never as elements', () => {
    const inline = md('look: <img src=x onerror="alert(1)"> here');
    expect(inline).not.toMatch(/<img/);
    expect(inline).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
    const block = md('<script>alert(2)</script>\n\n<iframe src="https://evil.example"></iframe>');
    expect(block).not.toMatch(/<script|<iframe/);
    // A block of HTML reads as a paragraph of text, also inside a quote; inline HTML in a list item stays inline.
    expect(block).toContain('<p>&lt;script&gt;alert(2)&lt;/script&gt;</p>');
    expect(md('> said:\n>\n> <div onclick="x()">hi</div>')).toContain(
      '<p>&lt;div onclick=&quot;x()&quot;&gt;hi&lt;/div&gt;</p>',
    );
    expect(md('- item <b>x</b>')).toContain('<li>item &lt;b&gt;x&lt;/b&gt;</li>');
  });

  it('links only http and https, opening outside the page; other schemes and relative paths stay text', () => {
    expect(md('[docs](https://example.com/a?b=1)')).toContain(
      '<a href="https://example.com/a?b=1" target="_blank" rel="noopener noreferrer nofollow">docs</a>',
    );
    for (const href of [
      'javascript:alert(3)',
      'JAVASCRIPT:alert(3)',
      'data:text/html,<b>x</b>',
      'file:///etc/passwd',
      '/agents/ops',
      'vbscript:x',
      'mailto:a@b.c',
    ]) {
      const html = md(`[click](${href})`);
      expect(html, href).not.toMatch(/<a /);
      expect(html, href).toContain('click');
    }
    expect(md('<javascript:alert(4)>')).not.toMatch(/<a /);
    expect(md('<https://example.com>')).toContain('<a href="https://example.com/"');
  });

  it('never loads an image: a remote one becomes a link to it, any other just its description', () => {
    const remote = md('![sales chart](https://tracker.example/pixel.png?u=1)');
    expect(remote).not.toMatch(/<img/);
    expect(remote).toContain('href="https://tracker.example/pixel.png?u=1"');
    expect(remote).toContain('[image: sales chart]');
    const local = md('![x](data:image/png;base64,AAAA) ![y](javascript:alert(5))');
    expect(local).not.toMatch(/<img|<a /);
  });

  it('treats an unclosed fence (an answer still streaming) as code to the end', () => {
    expect(md('look:\n```\nls -la')).toContain('<pre class="code-block"><code>ls -la\n</code></pre>');
  });

  it('shows what the person typed as plain text, Markdown and HTML included', () => {
    expect(renderToStaticMarkup(<PlainText text={'**not bold**\n<b>x</b>'} />)).toBe(
      '<div class="message-text plain-text">**not bold**\n&lt;b&gt;x&lt;/b&gt;</div>',
    );
  });

  it('accepts only absolute http(s) URLs as safe', () => {
    expect(safeUrl('https://a.example/x')).toBe('https://a.example/x');
    expect(safeUrl('http://127.0.0.1:7533/')).toBe('http://127.0.0.1:7533/');
    for (const bad of ['', 'javascript:alert(1)', ' javascript:alert(1)', '//evil.example/x', 'x.png', undefined])
      expect(safeUrl(bad)).toBeUndefined();
  });
});

describe('search snippets', () => {
  it('marks the matches between >>> and <<< and leaves the rest as text', () => {
    expect(snippetParts('…the >>>deploy<<< of >>>api<<< failed')).toEqual([
      { text: '…the ', match: false },
      { text: 'deploy', match: true },
      { text: ' of ', match: false },
      { text: 'api', match: true },
      { text: ' failed', match: false },
    ]);
    expect(renderToStaticMarkup(<Highlighted snippet={'a >>><b>x</b><<<'} />)).toBe(
      '<span>a </span><mark>&lt;b&gt;x&lt;/b&gt;</mark>',
    );
  });
});
