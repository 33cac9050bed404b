// The desktop app's first launch in the page, in headless Chromium: the page is the real build, served by
// a real `rein daemon` (web mode, fresh home, no key); the desktop app's bridges (`window.rein`,
// `window.reinDesktop`) are played by this test: the ReinApi reads go to that daemon over HTTP, the
// desktop operations answer from a small state kept here, as the shell would (electron/desktopApp.ts). Checks:
// - onboarding asks whether Rein starts at login (nothing is applied before the answer), and applies
//   exactly the answer;
// - on macOS it lists Accessibility, Automation and Screen Recording with each state in words, asks macOS
//   for one, and opens the right System Settings pane for another.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, ensureRendererBuilt, haveChromium, startUiSession, type UiSession } from './support/uiHarness.js';

const inCi = process.env.CI === 'true';
const available = haveChromium();

describe.runIf(!available && inCi)('first launch in the desktop app', () => {
  it('needs Chromium under CI', () => {
    throw new Error(
      `Chromium is required for the UI end-to-end test under CI=true, and ${CHROMIUM} does not exist (apt-get install chromium)`,
    );
  });
});

interface Played {
  calls: { name: string; input: unknown }[];
  openAtLogin: boolean | undefined;
  systemLoginItem: boolean;
  mac: Record<string, string>;
}

describe.skipIf(!available)(
  available ? 'first launch in the desktop app' : `first launch in the desktop app (skipped: ${CHROMIUM} not found)`,
  () => {
    let ui: UiSession;
    let page: Page;
    const played: Played = {
      calls: [],
      openAtLogin: undefined,
      systemLoginItem: false,
      mac: { accessibility: 'authorized', automation: 'not determined', screen_recording: 'denied' },
    };

    const daemonGet = async (path: string) => {
      const r = await fetch(`${ui.daemon.url}${path}`, { headers: { Authorization: `Bearer ${ui.daemon.token}` } });
      if (!r.ok) throw new Error(`${path}: ${r.status}`);
      return r.json();
    };
    const desktopView = () => ({
      settings: {
        hotkey: 'CommandOrControl+Shift+Space',
        show_dock_icon: false,
        approval_dialogs: true,
        notifications: true,
        auto_update: true,
        move_to_applications_declined: false,
        ...(played.openAtLogin !== undefined ? { open_at_login: played.openAtLogin } : {}),
      },
      hotkey: { accelerator: 'CommandOrControl+Shift+Space', registered: true },
      key_storage: { available: true, store: 'keychain', location: 'the macOS Keychain', plain_text: false },
      file: '/Users/ada/.rein/desktop.json',
      login_item: { available: true, enabled: played.systemLoginItem, chosen: played.openAtLogin !== undefined },
    });

    async function answer(
      side: string,
      name: string,
      input: unknown,
    ): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
      played.calls.push({ name: `${side}.${name}`, input });
      try {
        if (side === 'desktop') {
          if (name === 'desktopSettings') return { ok: true, value: desktopView() };
          if (name === 'updateDesktopSettings') {
            const patch = input as { open_at_login?: boolean };
            if (patch.open_at_login !== undefined) {
              played.openAtLogin = patch.open_at_login;
              played.systemLoginItem = patch.open_at_login;
            }
            return { ok: true, value: desktopView() };
          }
          if (name === 'requestMacPermission') {
            const { permission } = input as { permission: string };
            played.mac[permission] = 'authorized';
            return { ok: true, value: { permission, status: 'authorized' } };
          }
          return { ok: false, error: `${name} is not played by this test` };
        }
        if (name === 'getSettings')
          return {
            ok: true,
            value: { ...(await daemonGet('/settings')), platform: 'darwin', mac_permissions: { ...played.mac } },
          };
        if (name === 'status') return { ok: true, value: await daemonGet('/status') };
        if (name === 'listAgents') return { ok: true, value: await daemonGet('/agents') };
        if (name === 'listApprovals') return { ok: true, value: await daemonGet('/approvals') };
        if (name === 'listChanges') return { ok: true, value: await daemonGet('/changes') };
        if (name === 'openPermissionSettings') return { ok: true, value: { opened: true } };
        return { ok: false, error: `[unsupported] ${name} is not played by this test` };
      } catch (e) {
        return { ok: false, error: String(e) };
      }
    }

    beforeAll(async () => {
      await ensureRendererBuilt();
      ui = await startUiSession(undefined, {
        env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: undefined, ANTHROPIC_BASE_URL: undefined },
      });
      page = ui.page;
      await page.exposeFunction('reinBridgeCall', answer);
      await page.addInitScript(() => {
        type Call = (
          side: string,
          name: string,
          input: unknown,
        ) => Promise<{ ok: boolean; value?: unknown; error?: string }>;
        const call = (window as unknown as { reinBridgeCall: Call }).reinBridgeCall;
        const bridge = (side: string) =>
          new Proxy(
            {},
            {
              get: (_t, name) => {
                if (typeof name !== 'string' || name === 'then') return undefined;
                if (name === 'subscribe' || name === 'onNavigate') return () => () => undefined;
                return async (input: unknown) => {
                  const r = await call(side, name, input);
                  if (!r.ok) throw new Error(r.error);
                  return r.value;
                };
              },
            },
          );
        Object.assign(window, { rein: bridge('rein'), reinDesktop: bridge('desktop') });
      });
    }, 180_000);

    afterAll(async () => {
      await ui?.close();
    });

    it('asks about starting at login before applying anything, then applies exactly the answer', async () => {
      await page.goto(ui.daemon.webUiUrl);
      await page.getByRole('heading', { name: 'Connect Rein to a model' }).waitFor();
      await page.getByRole('heading', { name: 'Start Rein when you log in?' }).waitFor();
      expect(played.calls.filter((c) => c.name === 'desktop.updateDesktopSettings')).toEqual([]);
      await page.getByRole('button', { name: 'Open at login' }).click();
      await page.getByText('Rein will start when you log in.').waitFor();
      expect(played.calls.filter((c) => c.name === 'desktop.updateDesktopSettings').map((c) => c.input)).toEqual([
        { open_at_login: true },
      ]);
      expect(played.systemLoginItem).toBe(true);
    });

    it('shows each macOS permission with its state, asks macOS for one and opens the pane of another', async () => {
      const list = page.locator('.perm-list li');
      await list.first().waitFor();
      const rows = await list.allInnerTexts();
      expect(rows).toHaveLength(3);
      expect(rows[0]).toMatch(/Accessibility[\s\S]*allowed/);
      expect(rows[1]).toMatch(/Automation[\s\S]*not asked yet/);
      expect(rows[2]).toMatch(/Screen Recording[\s\S]*not allowed/);
      await list.nth(1).getByRole('button', { name: 'Open System Settings' }).click();
      await expect
        .poll(() => played.calls.filter((c) => c.name === 'rein.openPermissionSettings').map((c) => c.input))
        .toEqual([{ permission: 'automation' }]);
      await list.nth(2).getByRole('button', { name: 'Ask macOS' }).click();
      await expect
        .poll(() => played.calls.filter((c) => c.name === 'desktop.requestMacPermission').map((c) => c.input))
        .toEqual([{ permission: 'screen_recording' }]);
      // After asking, the page reads the state again: Screen Recording is allowed now.
      await expect
        .poll(
          async () =>
            (await list.nth(2).innerText()).includes('allowed') &&
            !(await list.nth(2).innerText()).includes('not allowed'),
        )
        .toBe(true);
      const serious = ui.problems.filter((p) =>
        /Content Security Policy|Refused to|Uncaught|TypeError|ReferenceError/.test(p),
      );
      expect(serious).toEqual([]);
    });
  },
);
