import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { resetElectronMock, shell } from '../../support/electronMock.js';
import { MAC_PERMISSIONS, isSettingsPaneUrl } from '../../../src-main/core/desktop/macPermissions.js';
import { MacPermissions, type MacPermissionsModule } from '../../../src-main/electron/macPermissions.js';

function fakeModule(status: Record<string, string>): MacPermissionsModule & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    getAuthStatus: (type) => status[type] ?? 'not determined',
    askForAccessibilityAccess: () => void asked.push('accessibility'),
    askForScreenCaptureAccess: () => void asked.push('screen'),
  };
}

beforeEach(() => resetElectronMock());

describe('macOS permissions', () => {
  it('are unavailable off macOS, without loading the module', async () => {
    const importer = vi.fn();
    const perms = new MacPermissions('linux', importer);
    await expect(perms.statuses()).resolves.toEqual({
      supported: false,
      reason: 'macOS privacy permissions exist only on macOS',
      status: { accessibility: 'unavailable', automation: 'unavailable', screen_recording: 'unavailable' },
    });
    await expect(perms.request('accessibility')).resolves.toBe('unavailable');
    await expect(perms.openSettings('accessibility')).resolves.toBe(false);
    expect(importer).not.toHaveBeenCalled();
    expect(shell.openExternal).not.toHaveBeenCalled();
  });

  it('load node-mac-permissions on macOS by dynamic import and report each status', async () => {
    const importer = vi.fn(async (name: string) => {
      expect(name).toBe('node-mac-permissions');
      return { default: fakeModule({ accessibility: 'authorized', screen: 'denied' }) };
    });
    const perms = new MacPermissions('darwin', importer);
    // An older node-mac-permissions has no askForAppleEventsAccess: Automation reads unavailable.
    await expect(perms.statuses()).resolves.toEqual({
      supported: true,
      status: { accessibility: 'authorized', automation: 'unavailable', screen_recording: 'denied' },
    });
    await perms.statuses();
    expect(importer).toHaveBeenCalledTimes(1);
  });

  it('say why when the optional module is not installed', async () => {
    const perms = new MacPermissions('darwin', async () => {
      throw new Error("Cannot find package 'node-mac-permissions'");
    });
    const s = await perms.statuses();
    expect(s.supported).toBe(false);
    expect(s.reason).toMatch(/node-mac-permissions is not installed/);
  });

  it('ask macOS for the right permission', async () => {
    const mod = fakeModule({ accessibility: 'denied', screen: 'not determined' });
    const perms = new MacPermissions('darwin', async () => mod);
    await expect(perms.request('accessibility')).resolves.toBe('denied');
    await expect(perms.request('screen_recording')).resolves.toBe('not determined');
    expect(mod.asked).toEqual(['accessibility', 'screen']);
  });

  it('open exactly the System Settings pane of each permission', async () => {
    const perms = new MacPermissions('darwin', async () => fakeModule({}));
    await expect(perms.openSettings('accessibility')).resolves.toBe(true);
    await expect(perms.openSettings('automation')).resolves.toBe(true);
    await expect(perms.openSettings('screen_recording')).resolves.toBe(true);
    expect(shell.openExternal.mock.calls.map((c) => c[0])).toEqual([
      'x-apple.systempreferences:com.apple.preference.security?Privacy_Accessibility',
      'x-apple.systempreferences:com.apple.preference.security?Privacy_Automation',
      'x-apple.systempreferences:com.apple.preference.security?Privacy_ScreenCapture',
    ]);
  });

  it('read Automation (of System Events) without prompting, and prompt only when asked', async () => {
    const calls: [string, boolean | undefined][] = [];
    const mod = {
      ...fakeModule({ accessibility: 'authorized', screen: 'authorized' }),
      askForAppleEventsAccess: async (id: string, prompt?: boolean) => {
        calls.push([id, prompt]);
        return prompt ? 'authorized' : 'not determined';
      },
    };
    const perms = new MacPermissions('darwin', async () => mod);
    await expect(perms.statuses()).resolves.toMatchObject({ status: { automation: 'not determined' } });
    await expect(perms.request('automation')).resolves.toBe('authorized');
    expect(calls).toEqual([
      ['com.apple.systemevents', false],
      ['com.apple.systemevents', true],
    ]);
  });

  it('allow only those pane URLs', () => {
    expect(isSettingsPaneUrl(MAC_PERMISSIONS.accessibility.settingsUrl)).toBe(true);
    for (const url of [
      'x-apple.systempreferences:com.apple.preference.security',
      'x-apple.systempreferences:com.apple.preference.security?Privacy_Camera',
      'x-apple.systempreferences:com.apple.preference.security?Privacy_Accessibility&x=1',
      'file:///Applications/Calculator.app',
      'https://example.com/',
    ]) {
      expect(isSettingsPaneUrl(url)).toBe(false);
    }
  });
});
