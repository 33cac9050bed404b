/**
 * The shell's side of the first launch: the move to /Applications offered through Electron before
 * anything records the app's path, the app menu without DevTools, undelivered notifications logged and
 * put on the tray. Electron is mocked.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { Menu, Notification, app, dialog, resetElectronMock } from '../../support/electronMock.js';
import { loadDesktopSettings } from '../../../src-main/core/config/desktopSettings.js';
import { menuRoles } from '../../../src-main/core/desktop/appMenu.js';
import { applyAppMenu } from '../../../src-main/electron/appMenu.js';
import { moveToApplicationsIfWanted, offerMoveToApplications } from '../../../src-main/electron/firstLaunch.js';
import { Notifier } from '../../../src-main/electron/notifier.js';

beforeEach(() => resetElectronMock());

const DOWNLOADS = '/Users/ada/Downloads/Rein.app/Contents/MacOS/Rein';
const opts = (over: Partial<Parameters<typeof offerMoveToApplications>[0]> = {}) => ({
  platform: 'darwin' as const,
  packaged: true,
  declined: false,
  rememberDeclined: vi.fn(async () => undefined),
  warn: vi.fn(),
  executable: DOWNLOADS,
  home: '/Users/ada',
  ...over,
});

/** The box that is open now, once it is. */
async function box() {
  await vi.waitFor(() => expect(dialog.open()).toHaveLength(1));
  return dialog.open()[0]!;
}

describe('moving to /Applications', () => {
  it('asks, and on "Move" calls moveToApplicationsFolder (the app relaunches from there)', async () => {
    const o = opts();
    const outcome = offerMoveToApplications(o);
    const b = await box();
    expect(b.window).toBeUndefined(); // no window exists yet
    expect(b.options).toMatchObject({
      buttons: ['Move to Applications', 'Keep it here'],
      defaultId: 0,
      cancelId: 1,
      checkboxLabel: 'Don’t ask again',
    });
    b.answer(0);
    await expect(outcome).resolves.toBe('moved');
    expect(app.moveToApplicationsFolder).toHaveBeenCalledTimes(1);
    // An older Rein in Applications is replaced (or a running one brought to the front).
    expect(app.moveToApplicationsFolder.mock.calls[0]![0]!.conflictHandler!('exists')).toBe(true);
  });

  it('stays, remembering "Don\'t ask again" when ticked', async () => {
    const o = opts();
    const outcome = offerMoveToApplications(o);
    (await box()).answer(1, true);
    await expect(outcome).resolves.toBe('stayed');
    expect(o.rememberDeclined).toHaveBeenCalledTimes(1);
    expect(app.moveToApplicationsFolder).not.toHaveBeenCalled();
  });

  it('a move macOS refuses is logged and explained, and the app goes on', async () => {
    app.moveResult = new Error('The operation couldn’t be completed. (administrator password refused)');
    const o = opts();
    const outcome = offerMoveToApplications(o);
    (await box()).answer(0);
    const explain = await vi.waitFor(() => {
      const open = dialog.open();
      expect(open).toHaveLength(1);
      return open[0]!;
    });
    expect(explain.options.detail).toMatch(/drag Rein.app into the Applications folder/);
    explain.answer(0);
    await expect(outcome).resolves.toBe('stayed');
    expect(o.warn).toHaveBeenCalledWith(expect.stringContaining('administrator password refused'));
  });

  it('asks nothing in /Applications, in a development build, or off macOS', async () => {
    app.inApplications = true;
    await expect(
      offerMoveToApplications(opts({ executable: '/Applications/Rein.app/Contents/MacOS/Rein' })),
    ).resolves.toBe('not_offered');
    await expect(offerMoveToApplications(opts({ packaged: false }))).resolves.toBe('not_offered');
    await expect(offerMoveToApplications(opts({ platform: 'linux' }))).resolves.toBe('not_offered');
    expect(dialog.showMessageBox).not.toHaveBeenCalled();
  });

  it('"Don\'t ask again" lands in desktop.json and is honoured at the next launch', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rein-move-'));
    // Running from Downloads (the real process.execPath is not an app bundle: "elsewhere", also a lasting place).
    const first = moveToApplicationsIfWanted({ home, platform: 'darwin', packaged: true, warn: () => undefined });
    (await box()).answer(1, true);
    await expect(first).resolves.toBe('stayed');
    expect((await loadDesktopSettings(home)).move_to_applications_declined).toBe(true);
    await expect(
      moveToApplicationsIfWanted({ home, platform: 'darwin', packaged: true, warn: () => undefined }),
    ).resolves.toBe('not_offered');
  });
});

describe('the application menu', () => {
  it('a packaged build has no DevTools item (macOS) or no menu at all (Linux)', () => {
    applyAppMenu('darwin', true);
    expect(menuRoles(Menu.application!.items as never)).not.toContain('toggleDevTools');
    expect(menuRoles(Menu.application!.items as never)).toContain('paste');
    applyAppMenu('linux', true);
    expect(Menu.application).toBeNull();
    applyAppMenu('darwin', false);
    expect(menuRoles(Menu.application!.items as never)).toContain('toggleDevTools');
  });
});

describe('notifications that go nowhere', () => {
  it('are handed to the fallback when the system reports failed, or has no notifications', () => {
    const undelivered = vi.fn();
    const n = new Notifier(
      () => true,
      () => undefined,
      undelivered,
    );
    const content = { title: 'Rein finished', body: 'done', opens: 'sessions' as const };
    expect(n.show(content)).toBe(true);
    Notification.shown[0]!.fail('Notifications are not allowed for this app');
    expect(undelivered).toHaveBeenCalledWith(content, 'Notifications are not allowed for this app');
    Notification.supported = false;
    expect(n.show(content)).toBe(false);
    expect(undelivered).toHaveBeenLastCalledWith(content, 'this system shows no notifications');
    // Turned off by the person: not a failure.
    undelivered.mockClear();
    expect(
      new Notifier(
        () => false,
        () => undefined,
        undelivered,
      ).show(content),
    ).toBe(false);
    expect(undelivered).not.toHaveBeenCalled();
  });
});
