// An approval's reason and risk explanation: their `code spans` show as code, and nothing else in them
// is Markdown, so the words a person approves on are the policy's words exactly. The text is made
// visible (visibleText) before it is rendered.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { visibleText } from '../../../src-main/core/api/index.js';
import { CodeSpansText } from '../../../src-renderer/src/markdown/markdownText.js';

const html = (text: string) => renderToStaticMarkup(<CodeSpansText text={text} />);

describe('code spans in a reason', () => {
  it('shows backticked names as code, with no paragraph around the line', () => {
    expect(html('grep searches /work for Anthropic API keys (`sk-ant-api03`)')).toBe(
      'grep searches /work for Anthropic API keys (<code>sk-ant-api03</code>)',
    );
    expect(html('`rm` and ``a ` b``')).toBe('<code>rm</code> and <code>a ` b</code>');
  });

  it('leaves emphasis, escapes, entities, links, images, headings and lists as written', () => {
    expect(html('rm *.txt *.md and _x_ and **y**')).toBe('rm *.txt *.md and _x_ and **y**');
    expect(html('a \\* b \\` c')).toBe('a \\* b \\` c');
    expect(html('&amp; &lt;')).toBe('&amp;amp; &amp;lt;');
    expect(html('[the docs](https://example.com) ![x](https://example.com/p.png) <https://example.com>')).toBe(
      '[the docs](https://example.com) ![x](https://example.com/p.png) &lt;https://example.com&gt;',
    );
    expect(html('# not a heading')).toBe('# not a heading');
    expect(html('- not a list')).toBe('- not a list');
    expect(html('1. not a list')).toBe('1. not a list');
    expect(html('> not a quote')).toBe('&gt; not a quote');
  });

  it('never renders HTML in it', () => {
    expect(html('<img src=x onerror="alert(1)"> and <b>bold</b>')).toBe(
      '&lt;img src=x onerror=&quot;alert(1)&quot;&gt; and &lt;b&gt;bold&lt;/b&gt;',
    );
  });

  it('shows what visibleText wrote out for a control or bidi character, inside code too', () => {
    const reason = visibleText('writes `a\u202eb` then\rhides');
    expect(html(reason)).toBe('writes <code>a\\u202eb</code> then\\rhides');
  });
});
