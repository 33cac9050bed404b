/**
 * The Electron entry (src-main/index.ts) with Electron mocked: single-instance lock, the window and
 * tray it makes, quitting (which waits for the embedded daemon to close), and `--headless` for
 * launchd runs. The daemon is real, in a temp REIN_HOME whose config picks a free port.
 */
import { access, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import {
  BrowserWindow,
  Tray,
  app,
  fakeEvent,
  globalShortcut,
  ipcMain,
  resetElectronMock,
  type FakeMenuItem,
} from '../../support/electronMock.js';

let launches = 0;
let home = '';
const savedEnv = { ...process.env };
const savedArgv = [...process.argv];

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

async function eventually<T>(check: () => T | Promise<T>, what: string, ms = 10_000): Promise<NonNullable<T>> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 10));
  }
}

/**
 * Load a fresh copy of src-main/index.ts (it acts on import, as Electron's entry does). The query makes
 * a new module instance; the mocked electron module stays the same one.
 */
async function startApp(): Promise<void> {
  launches += 1;
  await import(/* @vite-ignore */ `../../../src-main/index.js?launch=${launches}`);
}

/** Starts the app and waits until its daemon is up (daemon.json written). */
async function startAndWait(): Promise<void> {
  await startApp();
  await eventually(() => exists(join(home, 'daemon.json')), 'the daemon to start');
}

async function quitAndWait(): Promise<void> {
  app.quit();
  await eventually(() => app.quitted, 'the app to quit');
}

function menuItem(label: string): FakeMenuItem {
  const menu = Tray.created[0]?.contextMenu as { items: FakeMenuItem[] } | undefined;
  const item = menu?.items.find((i) => i.label === label);
  if (!item) throw new Error(`tray menu has no "${label}" item`);
  return item;
}

beforeEach(async () => {
  resetElectronMock();
  home = await mkdtemp(join(tmpdir(), 'rein-lifecycle-'));
  await writeFile(join(home, 'config.yaml'), 'daemon:\n  port: 0\n');
  process.env['REIN_HOME'] = home;
  delete process.env['ELECTRON_RENDERER_URL'];
});

afterEach(async () => {
  if (!app.quitted && (await exists(join(home, 'daemon.json')))) await quitAndWait();
  process.env = { ...savedEnv };
  process.argv = [...savedArgv];
});

describe('desktop app lifecycle', () => {
  it('when ready, starts the daemon and opens one window on the built page with the bundled CommonJS preload, a tray and the IPC handlers', async () => {
    await startAndWait();
    await eventually(() => BrowserWindow.created.length > 0, 'the window');
    expect(BrowserWindow.created).toHaveLength(1);
    const win = BrowserWindow.created[0]!;
    expect((win.options['webPreferences'] as { preload: string }).preload).toMatch(/[/\\]preload[/\\]index\.cjs$/);
    expect(win.loadURL.mock.calls[0]?.[0]).toMatch(/^file:\/\/.*\/renderer\/index\.html$/);
    expect(Tray.created).toHaveLength(1);
    expect(ipcMain.handlers.has('rein:status')).toBe(true);
    expect(globalShortcut.isRegistered('CommandOrControl+Shift+Space')).toBe(true);
  });

  it('a second instance quits at once and shows nothing', async () => {
    app.requestSingleInstanceLock.mockReturnValueOnce(false);
    await startApp();
    await new Promise((r) => setTimeout(r, 50));
    expect(app.quit).toHaveBeenCalled();
    expect(BrowserWindow.created).toHaveLength(0);
    expect(await exists(join(home, 'daemon.json'))).toBe(false);
  });

  it('a second launch brings the running window back', async () => {
    await startAndWait();
    const win = await eventually(() => BrowserWindow.created[0], 'the window');
    win.hide();
    app.emit('second-instance');
    expect(win.visible).toBe(true);
  });

  it('keeps running with its window closed; Quit from the tray closes the daemon before the app exits', async () => {
    await startAndWait();
    const win = await eventually(() => BrowserWindow.created[0], 'the window');
    expect(app.listenerCount('window-all-closed')).toBeGreaterThan(0); // else Electron quits
    const close = fakeEvent({});
    win.emit('close', close);
    expect(close.defaultPrevented).toBe(true);
    app.emit('window-all-closed');
    expect(app.quit).not.toHaveBeenCalled();

    menuItem('Quit Rein').click?.();
    expect(app.quitted).toBe(false); // waits for the daemon
    await eventually(() => app.quitted, 'the app to quit');
    expect(await exists(join(home, 'daemon.json'))).toBe(false);
    const finalClose = fakeEvent({});
    win.emit('close', finalClose);
    expect(finalClose.defaultPrevented).toBe(false);
    expect(Tray.created[0]?.destroyed).toBe(true);
    expect(globalShortcut.registered.size).toBe(0);
  });

  it('follows the dev server only when unpackaged', async () => {
    process.env['ELECTRON_RENDERER_URL'] = 'http://localhost:5173/';
    await startAndWait();
    const win = await eventually(() => BrowserWindow.created[0], 'the window');
    expect(win.loadURL).toHaveBeenCalledWith('http://localhost:5173/');
    await quitAndWait();

    resetElectronMock();
    app.isPackaged = true;
    await startAndWait();
    const packaged = await eventually(() => BrowserWindow.created[0], 'the window');
    expect(packaged.loadURL.mock.calls[0]?.[0]).toMatch(/^file:/);
  });

  it('--headless runs the daemon only: no window, no tray, no hotkey, Dock hidden; quitting stops the daemon', async () => {
    process.argv = [...savedArgv, '--headless'];
    const out: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => (out.push(String(chunk)), true)) as typeof process.stdout.write;
    try {
      await startAndWait();
      await eventually(
        () => out.some((l) => l.includes('daemon listening on http://127.0.0.1:')),
        'the headless banner',
      );
    } finally {
      process.stdout.write = write;
    }
    expect(BrowserWindow.created).toHaveLength(0);
    expect(Tray.created).toHaveLength(0);
    expect(globalShortcut.registered.size).toBe(0);
    expect(ipcMain.handlers.size).toBe(0);
    if (process.platform === 'darwin') expect(app.dock.hide).toHaveBeenCalled();
    await quitAndWait();
    expect(await exists(join(home, 'daemon.json'))).toBe(false);
  });
});
