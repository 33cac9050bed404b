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

  it('opens on the chat with the views in the sidebar and the message box ready', () => {
    const html = renderToStaticMarkup(<App choice={{ kind: 'ipc', api: idleApi() }} />);
    // Each view's name is text in its button (hidden, with the icon left, when the sidebar is narrow).
    for (const v of VIEWS) expect(html).toContain(`<span class="nav-label">${v.label}</span></button>`);
    expect(html).toContain('aria-label="Collapse sidebar"');
    expect(html).toContain('aria-current="page"');
    expect(html).toContain('aria-label="Message"');
    expect(html).toContain('Ask <strong>default</strong> anything');
    expect(html).not.toContain('badge count');
  });
});

describe('settings view', () => {
  const settings = (platform: string) => ({
    platform,
    api_key: { present: true, source: 'keychain', hint: 'sk-ant-…wxyz' },
    base_url: null,
    model: 'claude-sonnet-5-5',
    small_model: 'claude-haiku-5-5',
    permission_mode: 'default' as const,
    mac_permissions: { accessibility: 'authorized', screen_recording: 'denied' },
  });

  it('shows the macOS permissions only when the API says it runs on macOS', async () => {
    const { SettingsView } = await import('../../../src-renderer/src/views/settings/SettingsView.js');
    const render = (platform: string) =>
      renderToStaticMarkup(
        <SettingsView
          api={idleApi()}
          settings={{ status: 'ready', value: settings(platform) }}
          onSaved={vi.fn()}
          onRefresh={vi.fn()}
        />,
      );
    const mac = render('darwin');
    expect(mac).toContain('macOS permissions');
    expect(mac).toContain('Screen Recording');
    // States in words, and all three permissions.
    expect(mac).toContain('data-state="denied">not allowed<');
    expect(mac).toContain('Automation');
    expect(mac).toContain('Open System Settings');
    expect(mac).toContain('sk-ant-…wxyz');
    expect(render('linux')).not.toContain('macOS permissions');
  });

  it('says plainly when the connection has no settings to offer', async () => {
    const { SettingsView } = await import('../../../src-renderer/src/views/settings/SettingsView.js');
    const { ApiError } = await import('../../../src-renderer/src/api/apiError.js');
    const html = renderToStaticMarkup(
      <SettingsView
        api={idleApi()}
        settings={{ status: 'failed', error: new ApiError('no such endpoint', 'not_found', 404) }}
        onSaved={vi.fn()}
        onRefresh={vi.fn()}
      />,
    );
    expect(html).toContain('does not offer settings');
  });
});
