/**
 * Electron entry: app lifecycle only. Rein lives in the menu bar, so closing its window hides it and
 * the app keeps running until "Quit Rein" (or Cmd-Q / logout). A second launch shows the first one.
 * `--headless` (launchd runs) starts the daemon alone: no window, tray, hotkey or Dock icon. Quitting
 * waits for the daemon to finish or cancel its runs and release REIN_HOME. (Electron turns SIGTERM and
 * SIGINT into a normal quit, so `launchctl stop` goes the same way.)
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app } from 'electron';
import { reinHome } from './core/config/paths.js';
import { errorMessage } from './core/errors.js';
import { startDesktopApp, trayIconDirOf, type DesktopApp } from './shell/desktopApp.js';

export const HEADLESS_FLAG = '--headless';
const headless = process.argv.includes(HEADLESS_FLAG);

let quitting = false;
let closed = false;
let desktop: DesktopApp | undefined;

const rendererDir = join(import.meta.dirname, '../renderer');

/** Only an unpackaged app follows the dev server: an environment variable must never point a shipped Rein (and its bridge) at someone else's page. */
function devServer(): string | undefined {
  const url = process.env['ELECTRON_RENDERER_URL'];
  return !app.isPackaged && url ? url : undefined;
}

async function start(): Promise<void> {
  const dev = devServer();
  desktop = await startDesktopApp({
    home: reinHome(process.env),
    version: app.getVersion(),
    headless,
    pageUrl: dev ?? pathToFileURL(join(rendererDir, 'index.html')).href,
    rendererDir,
    preloadPath: join(import.meta.dirname, '../preload/index.cjs'),
    trayIconDir: trayIconDirOf(app.getAppPath()),
    ...(dev ? { devServerOrigin: new URL(dev).origin } : {}),
    isQuitting: () => quitting,
    quit: () => app.quit(),
  });
  if (headless && desktop.daemon) {
    process.stdout.write(`rein (headless) ${app.getVersion()}: daemon listening on ${desktop.daemon.url}\n`);
    desktop.daemon.onShutdownRequested(() => app.quit());
  }
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  // Hidden from the start (a packaged build also has LSUIElement); the Dock setting may show it again.
  if (process.platform === 'darwin') app.dock?.hide();
  app.on('second-instance', () => desktop?.show());
  app.on('activate', () => desktop?.show());
  app.on('before-quit', () => {
    quitting = true;
  });
  app.on('will-quit', (event) => {
    if (closed || !desktop) return;
    event.preventDefault();
    void desktop.close().finally(() => {
      closed = true;
      app.quit();
    });
  });
  // Without a listener Electron quits when the last window closes; a menu-bar app must not.
  app.on('window-all-closed', () => undefined);
  void app
    .whenReady()
    .then(start)
    .catch((e: unknown) => {
      process.stderr.write(`rein: cannot start: ${errorMessage(e)}\n`);
      app.exit(1);
    });
}
