/**
 * Electron entry: app lifecycle only. Rein lives in the menu bar, so closing its window hides it and
 * the app keeps running until "Quit Rein" (or Cmd-Q / logout). A second launch shows the first one.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, type BrowserWindow, type Tray } from 'electron';
import { isSamePage, ourTopFrame } from './shell/ipc.js';
import { registerReinHandlers } from './shell/reinHandlers.js';
import { createTray } from './shell/tray.js';
import { createMainWindow, hideInsteadOfClosing } from './shell/window.js';

let quitting = false;
let mainWindow: BrowserWindow | undefined;
let tray: Tray | undefined; // held here so the menu-bar icon is not garbage-collected

function pageUrl(): string {
  // Only an unpackaged app follows the dev server: an environment variable must never point a
  // shipped Rein (and its bridge) at someone else's page.
  const devServer = process.env['ELECTRON_RENDERER_URL'];
  if (!app.isPackaged && devServer) return devServer;
  return pathToFileURL(join(import.meta.dirname, '../renderer/index.html')).href;
}

function showMainWindow(): void {
  if (!mainWindow || mainWindow.isDestroyed()) return;
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.show();
  mainWindow.focus();
}

function start(): void {
  const page = pageUrl();
  registerReinHandlers(
    ourTopFrame(() => new Set(mainWindow && !mainWindow.isDestroyed() ? [mainWindow.webContents] : []), isSamePage(page)),
    { version: () => app.getVersion(), activeAgent: () => 'default' },
  );
  mainWindow = createMainWindow({ preloadPath: join(import.meta.dirname, '../preload/index.cjs'), pageUrl: page });
  hideInsteadOfClosing(mainWindow, () => quitting);
  tray = createTray(join(app.getAppPath(), 'resources', 'iconTemplate.png'), {
    show: showMainWindow,
    quit: () => app.quit(),
  });
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  if (process.platform === 'darwin') app.dock?.hide(); // a packaged build gets this from LSUIElement
  app.on('second-instance', showMainWindow);
  app.on('activate', showMainWindow);
  app.on('before-quit', () => {
    quitting = true;
    tray?.destroy();
  });
  // Without a listener Electron quits when the last window closes; a menu-bar app must not.
  app.on('window-all-closed', () => undefined);
  void app.whenReady().then(start);
}
