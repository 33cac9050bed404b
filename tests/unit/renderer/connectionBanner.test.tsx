// The banner over the page when the daemon refuses its token: a token it never took is called wrong
// (with where the right one is), one it took and then replaced is called rotated.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ConnectionBanner } from '../../../src-renderer/src/App.js';

describe('ConnectionBanner', () => {
  it('a wrong token (never accepted) says it is wrong and how to get the right one, not that it was rotated', () => {
    const html = renderToStaticMarkup(<ConnectionBanner state="unauthorized" />);
    expect(html).toContain('did not accept this token');
    expect(html).toContain('#token=');
    expect(html).toContain('daemon.json');
    expect(html).not.toContain('rotated');
    expect(html).toContain('role="alert"');
  });

  it('a rotated token (accepted before) says so', () => {
    const html = renderToStaticMarkup(<ConnectionBanner state="rotated" />);
    expect(html).toContain('no longer accepts');
    expect(html).toContain('rotated');
    expect(html).toContain('banner-error');
  });

  it('nothing while connected', () => {
    expect(renderToStaticMarkup(<ConnectionBanner state="open" />)).toBe('');
  });
});
