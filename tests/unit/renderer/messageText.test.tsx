// Message text is rendered as text: nothing a model writes becomes markup. No DOM is installed, so the
// component is rendered to static HTML, where any injected element would show up as a tag.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MessageText, splitBlocks } from '../../../src-renderer/src/markdown/MessageText.js';
import { Highlighted, snippetParts } from '../../../src-renderer/src/views/sessions/Highlighted.js';

describe('message text', () => {
  it('shows HTML in a message as its characters, never as elements', () => {
    const html = renderToStaticMarkup(<MessageText text={'<img src=x onerror="alert(1)"><script>alert(2)</script>\n[x](javascript:alert(3))'} />);
    expect(html).not.toMatch(/<img|<script/);
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&lt;script&gt;');
    expect(html).not.toMatch(/<a /);
  });

  it('keeps line breaks, splits paragraphs at blank lines and puts fenced code in a code block', () => {
    expect(splitBlocks('one\ntwo\n\nthree\n```ts\nconst a = 1;\n\nconst b = 2;\n```\nafter')).toEqual([
      { kind: 'paragraph', text: 'one\ntwo' },
      { kind: 'paragraph', text: 'three' },
      { kind: 'code', lang: 'ts', text: 'const a = 1;\n\nconst b = 2;' },
      { kind: 'paragraph', text: 'after' },
    ]);
    const html = renderToStaticMarkup(<MessageText text={'a\nb'} />);
    expect(html).toBe('<div class="message-text"><p>a<br/>b</p></div>');
  });

  it('treats an unclosed fence (an answer still streaming) as code to the end', () => {
    expect(splitBlocks('look:\n```\nls -la')).toEqual([
      { kind: 'paragraph', text: 'look:' },
      { kind: 'code', lang: '', text: 'ls -la' },
    ]);
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
    expect(renderToStaticMarkup(<Highlighted snippet={'a >>><b>x</b><<<'} />)).toBe('<span>a </span><mark>&lt;b&gt;x&lt;/b&gt;</mark>');
  });
});
