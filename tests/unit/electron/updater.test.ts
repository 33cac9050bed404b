/** The shell's updater: electron-updater adapted, its two questions asked with message boxes, the tray item. */
import { EventEmitter } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { Tray, app, dialog, resetElectronMock, type FakeMenuItem } from '../../support/electronMock.js';
import { trayStateFor } from '../../../src-main/core/desktop/trayState.js';
import { ReinTray } from '../../../src-main/electron/tray.js';
import { manualCheckText, startAppUpdates, type AppUpdatesOptions } from '../../../src-main/electron/updater.js';
import type { AppUpdater } from 'electron-updater';

/** electron-updater's autoUpdater as far as Rein uses it: an emitter whose check emits what the test queued. */
class FakeAppUpdater extends EventEmitter {
  autoDownload = false;
  autoInstallOnAppQuit = false;
  allowPrerelease = true;
  logger: unknown = null;
  found: string | undefined;
  readonly checkForUpdates = vi.fn(async () => {
    this.emit('checking-for-update');
    if (this.found) this.emit('update-available', { version: this.found });
    else this.emit('update-not-available', { version: '0.0.0-test' });
    return {};
  });
  readonly quitAndInstall = vi.fn();
}

const flush = () => new Promise((r) => setImmediate(r));

async function start(over: Partial<AppUpdatesOptions> = {}) {
  const home = await mkdtemp(join(tmpdir(), 'rein-updater-'));
  const fake = new FakeAppUpdater();
  const warn = vi.fn();
  const onUpdated = vi.fn(async () => undefined);
  const updates = await startAppUpdates({
    home,
    platform: 'darwin',
    packaged: true,
    env: {},
    enabled: () => true,
    warn,
    onUpdated,
    loadUpdater: async () => fake as unknown as AppUpdater,
    macSignature: async () => 'developer-id',
    resyncDelayMs: 0,
    ...over,
  });
  return { home, fake, warn, onUpdated, updates };
}

beforeEach(() => resetElectronMock());

describe('the shell updater', () => {
  it('sets electron-updater to download in the background and install at quit, stable releases only', async () => {
    const { fake, updates } = await start();
    expect(fake).toMatchObject({ autoDownload: true, autoInstallOnAppQuit: true, allowPrerelease: false });
    expect(updates.controller.state).toEqual({ state: 'idle' });
    updates.dispose();
    expect(fake.listenerCount('update-downloaded')).toBe(0);
  });

  it('asks before restarting into a downloaded update, and restarts only on "Restart Now"', async () => {
    const { fake, updates } = await start();
    fake.found = '0.2.0';
    const menu = updates.checkFromMenu();
    await flush();
    expect(dialog.open()[0]?.options.message).toBe('Rein 0.2.0 is downloading');
    dialog.open()[0]!.answer(0);
    expect(await menu).toEqual({ outcome: 'downloading', version: '0.2.0' });
    fake.emit('update-downloaded', { version: '0.2.0' });
    await flush();
    const box = dialog.open()[0]!;
    expect(box.options).toMatchObject({
      message: 'Rein 0.2.0 is ready',
      buttons: ['Restart Now', 'Later'],
      cancelId: 1,
    });
    box.answer(0);
    await flush();
    expect(fake.quitAndInstall).toHaveBeenCalledWith(false, true);
    updates.dispose();
  });

  it('never loads electron-updater on an ad-hoc build; "Check for Updates…" says why', async () => {
    const loadUpdater = vi.fn(async () => new FakeAppUpdater() as unknown as AppUpdater);
    const { updates } = await start({ macSignature: async () => 'adhoc', loadUpdater });
    expect(loadUpdater).not.toHaveBeenCalled();
    const menu = updates.checkFromMenu();
    await flush();
    expect(dialog.open()[0]?.options).toMatchObject({
      message: 'This copy of Rein does not update itself',
      detail: expect.stringContaining('ad hoc'),
    });
    dialog.open()[0]!.answer(0);
    expect(await menu).toMatchObject({ outcome: 'not-eligible' });
  });

  it('a development build does not update, whatever the platform', async () => {
    const loadUpdater = vi.fn(async () => new FakeAppUpdater() as unknown as AppUpdater);
    const { updates } = await start({
      packaged: false,
      platform: 'linux',
      env: { APPIMAGE: '/x.AppImage' },
      loadUpdater,
    });
    expect(loadUpdater).not.toHaveBeenCalled();
    expect(updates.controller.state).toMatchObject({
      state: 'off',
      reason: expect.stringContaining('development build'),
    });
  });

  it('an AppImage updates only when rein-build.json says it is a release build', async () => {
    const resources = await mkdtemp(join(tmpdir(), 'rein-resources-'));
    await writeFile(join(resources, 'rein-build.json'), JSON.stringify({ release: true, signing: 'none' }));
    const { updates } = await start({
      platform: 'linux',
      env: { APPIMAGE: '/home/me/Rein-x86_64.AppImage' },
      resourcesDir: resources,
    });
    expect(updates.controller.state).toEqual({ state: 'idle' });
    updates.dispose();
    const empty = await mkdtemp(join(tmpdir(), 'rein-resources-'));
    const other = await start({
      platform: 'linux',
      env: { APPIMAGE: '/home/me/Rein-x86_64.AppImage' },
      resourcesDir: empty,
    });
    expect(other.updates.controller.state).toMatchObject({
      state: 'off',
      reason: expect.stringContaining('REIN_RELEASE'),
    });
  });

  it('re-syncs the schedules on the first launch of a new version, not on a relaunch', async () => {
    const first = await start();
    expect(first.onUpdated).not.toHaveBeenCalled();
    first.updates.dispose();
    app.getVersion.mockReturnValue('0.2.0');
    const home = first.home;
    const second = await start({ home });
    await flush();
    await new Promise((r) => setTimeout(r, 5));
    expect(second.onUpdated).toHaveBeenCalledWith('0.0.0-test', '0.2.0');
    expect(second.warn).toHaveBeenCalledWith(expect.stringContaining('updated from 0.0.0-test to 0.2.0'));
    second.updates.dispose();
    const third = await start({ home });
    await new Promise((r) => setTimeout(r, 5));
    expect(third.onUpdated).not.toHaveBeenCalled();
    third.updates.dispose();
    app.getVersion.mockReturnValue('0.0.0-test');
  });

  it('words each answer of a manual check', () => {
    expect(manualCheckText({ outcome: 'up-to-date', version: '0.1.0' }).message).toBe('Rein is up to date');
    expect(manualCheckText({ outcome: 'failed', message: 'offline' })).toEqual({
      message: 'Rein could not check for updates',
      detail: 'offline',
    });
  });
});

describe('the tray menu', () => {
  it('has "Check for Updates…" when the app gives it the action, and runs it', () => {
    const checkForUpdates = vi.fn();
    new ReinTray(
      join(import.meta.dirname, '../../../resources/tray'),
      { open: vi.fn(), quit: vi.fn(), checkForUpdates },
      trayStateFor(0, 0, undefined),
    );
    const items = (Tray.created.at(-1)!.contextMenu as { items: FakeMenuItem[] }).items;
    const item = items.find((i) => i.label === 'Check for Updates…');
    expect(item).toBeDefined();
    item!.click?.();
    expect(checkForUpdates).toHaveBeenCalledOnce();
  });

  it('has no such item without the action', () => {
    new ReinTray(
      join(import.meta.dirname, '../../../resources/tray'),
      { open: vi.fn(), quit: vi.fn() },
      trayStateFor(0, 0, undefined),
    );
    const items = (Tray.created.at(-1)!.contextMenu as { items: FakeMenuItem[] }).items;
    expect(items.map((i) => i.label)).not.toContain('Check for Updates…');
  });
});
