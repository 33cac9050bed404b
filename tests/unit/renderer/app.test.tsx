// No DOM is installed here, so these render the first frame on the server (react-dom/server): that frame
// is what a user sees before status() answers, and it is the whole page when there is no bridge.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import type { ReinApi } from '../../../src-main/core/api/index.js';
import { App, statusLine } from '../../../src-renderer/src/App.js';

describe('App', () => {
  it('says the desktop bridge is not available when window.rein is absent (plain browser)', () => {
    const html = renderToStaticMarkup(<App api={undefined} />);
    expect(html).toContain('<h1>Rein</h1>');
    expect(html).toContain('The desktop bridge is not available');
  });

  it('waits for status() when the bridge is there', () => {
    const api: ReinApi = { status: vi.fn(async () => ({ version: '1.0.0', activeAgent: 'default' })), subscribe: () => () => {} };
    const html = renderToStaticMarkup(<App api={api} />);
    expect(html).toContain('Connecting…');
    expect(html).not.toContain('bridge is not available');
  });

  it('names the active agent and the version once status() answered', () => {
    expect(statusLine({ kind: 'ready', status: { version: '1.0.0', activeAgent: 'default' } })).toBe(
      'Active agent: default (Rein 1.0.0)',
    );
  });
});
