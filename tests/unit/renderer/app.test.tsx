// The first frame of the page, rendered on the server (no DOM is installed here; behaviour in a real
// browser is covered by tests/e2e/desktopUi.test.ts): what a user sees before any answer arrives.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { reinOperationNames, type ReinApi } from '../../../src-main/core/api/index.js';
import { App, VIEWS } from '../../../src-renderer/src/App.js';

function idleApi(): ReinApi {
  const api: Record<string, unknown> = { subscribe: vi.fn(() => () => undefined) };
  for (const name of reinOperationNames) api[name] = vi.fn(() => new Promise(() => undefined));
  return api as unknown as ReinApi;
}

describe('first frame', () => {
  it('asks for the token when the page was opened without one', () => {
    const html = renderToStaticMarkup(<App choice={{ kind: 'needs-token', connect: vi.fn() }} />);
    expect(html).toContain('needs its access token');
    expect(html).toContain('#token=');
    expect(html).not.toContain('aria-label="Main"');
  });

  it('opens on the chat with the five views in the sidebar and the message box ready', () => {
    const html = renderToStaticMarkup(<App choice={{ kind: 'ipc', api: idleApi() }} />);
    for (const v of VIEWS) expect(html).toContain(`>${v.label}</button>`);
    expect(html).toContain('aria-current="page"');
    expect(html).toContain('aria-label="Message"');
    expect(html).toContain('Ask <strong>default</strong> anything');
    expect(html).not.toContain('badge count');
  });
});
