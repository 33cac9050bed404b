import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { BrowserWindow, Tray, app, fakeEvent, ipcMain, resetElectronMock, type FakeMenuItem } from '../../support/electronMock.js';

let launches = 0;
/**
 * Load a fresh copy of src-main/index.ts (it acts on import, as Electron's entry does) and let whenReady
 * settle. The query makes a new module instance; the mocked electron module stays the same one.
 */
async function startApp(): Promise<void> {
  launches += 1;
  await import(/* @vite-ignore */ `../../../src-main/index.js?launch=${launches}`);
  await new Promise((resolve) => setImmediate(resolve));
}

function menuItem(label: string): FakeMenuItem {
  const menu = Tray.created[0]?.contextMenu as { items: FakeMenuItem[] } | undefined;
  const item = menu?.items.find((i) => i.label === label);
  if (!item) throw new Error(`tray menu has no "${label}" item`);
  return item;
}

beforeEach(() => {
  resetElectronMock();
  delete process.env['ELECTRON_RENDERER_URL'];
});

describe('desktop app lifecycle', () => {
  it('when ready, opens one window on the built page with the bundled CommonJS preload, a tray and rein:status', async () => {
    await startApp();
    expect(BrowserWindow.created).toHaveLength(1);
    const win = BrowserWindow.created[0]!;
    expect((win.options['webPreferences'] as { preload: string }).preload).toMatch(/[/\\]preload[/\\]index\.cjs$/);
    expect(win.loadURL.mock.calls[0]?.[0]).toMatch(/^file:\/\/.*\/renderer\/index\.html$/);
    expect(Tray.created).toHaveLength(1);
    expect(ipcMain.handlers.has('rein:status')).toBe(true);
  });

  it('a second instance quits at once and shows nothing', async () => {
    app.requestSingleInstanceLock.mockReturnValueOnce(false);
    await startApp();
    expect(app.quit).toHaveBeenCalled();
    expect(BrowserWindow.created).toHaveLength(0);
  });

  it('a second launch brings the running window back', async () => {
    await startApp();
    const win = BrowserWindow.created[0]!;
    win.hide();
    app.emit('second-instance');
    expect(win.visible).toBe(true);
  });

  it('keeps running with its window closed, and lets it close on Quit from the tray', async () => {
    await startApp();
    const win = BrowserWindow.created[0]!;
    expect(app.listenerCount('window-all-closed')).toBeGreaterThan(0); // else Electron quits
    const close = fakeEvent({});
    win.emit('close', close);
    expect(close.defaultPrevented).toBe(true);
    app.emit('window-all-closed');
    expect(app.quit).not.toHaveBeenCalled();

    menuItem('Quit Rein').click?.();
    expect(app.quit).toHaveBeenCalledTimes(1);
    const finalClose = fakeEvent({});
    win.emit('close', finalClose);
    expect(finalClose.defaultPrevented).toBe(false);
    expect(Tray.created[0]?.destroyed).toBe(true);
  });

  it('follows the dev server only when unpackaged', async () => {
    process.env['ELECTRON_RENDERER_URL'] = 'http://localhost:5173/';
    await startApp();
    expect(BrowserWindow.created[0]?.loadURL).toHaveBeenCalledWith('http://localhost:5173/');

    resetElectronMock();
    app.isPackaged = true;
    await startApp();
    expect(BrowserWindow.created[0]?.loadURL.mock.calls[0]?.[0]).toMatch(/^file:/);
  });
});
