/**
 * Electron entry: app lifecycle only. Rein lives in the menu bar, so closing its window hides it and
 * the app keeps running until "Quit Rein" (or Cmd-Q / logout). A second launch shows the first one.
 * `--headless` (launchd runs) starts the daemon alone: no window, tray, hotkey or Dock icon. Quitting
 * waits for the daemon to finish or cancel its runs and release REIN_HOME. (Electron turns SIGTERM and
 * SIGINT into a normal quit, so `launchctl stop` goes the same way; a headless `schedule run` stops its
 * run first: cli/stopSignals.ts.)
 */
import module from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app } from 'electron';
import { reinHome } from './core/config/paths.js';
import { errorMessage } from './core/errors.js';
import type { DesktopApp } from './electron/desktopApp.js';

// Compiled code kept between launches (Electron's Node has the cache built in; its default folder is
// the per-user temp folder). Only what is imported after this line benefits, which is why the desktop
// app and the CLI below are dynamic imports: a launchd `schedule run` loads the CLI, not the desktop
// app and its daemon (docs/architecture.md, *Startup*).
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

export const HEADLESS_FLAG = '--headless';
const headless = process.argv.includes(HEADLESS_FLAG);
/**
 * A launchd job runs the packaged app as `<app> --headless schedule run <id> --from-launchd`: that is a
 * CLI command, run in this process without a window or the single-instance lock (the app itself may be
 * running; the command hands its run to the app's daemon then).
 */
const cliArgs = headless ? process.argv.slice(process.argv.indexOf(HEADLESS_FLAG) + 1) : [];
const cliCommand = cliArgs[0] === 'schedule';

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
  if (!headless) {
    // Before anything records where the app is (login item, launchd jobs): offer /Applications.
    const { moveToApplicationsIfWanted } = await import('./electron/firstLaunch.js');
    const { appLog, logWarn } = await import('./electron/appLog.js');
    const moved = await moveToApplicationsIfWanted({
      home: reinHome(process.env),
      platform: process.platform,
      packaged: app.isPackaged,
      warn: logWarn(appLog()),
    });
    if (moved === 'moved') return; // Electron relaunches Rein from /Applications and quits this copy
  }
  const { startDesktopApp, trayIconDirOf } = await import('./electron/desktopApp.js');
  const { openedAtLogin } = await import('./electron/loginItem.js');
  desktop = await startDesktopApp({
    home: reinHome(process.env),
    version: app.getVersion(),
    headless,
    pageUrl: dev ?? pathToFileURL(join(rendererDir, 'index.html')).href,
    rendererDir,
    preloadPath: join(import.meta.dirname, '../preload/index.cjs'),
    trayIconDir: trayIconDirOf(app.getAppPath()),
    ...(dev ? { devServerOrigin: new URL(dev).origin } : {}),
    packaged: app.isPackaged,
    startHidden: !headless && openedAtLogin(process.platform, process.argv),
    isQuitting: () => quitting,
    quit: () => app.quit(),
  });
  if (headless && desktop.daemon) {
    process.stdout.write(`rein (headless) ${app.getVersion()}: daemon listening on ${desktop.daemon.url}\n`);
    desktop.daemon.onShutdownRequested(() => app.quit());
  }
}

if (cliCommand) {
  if (process.platform === 'darwin') app.dock?.hide();
  // Electron may turn SIGTERM (logout, shutdown, launchctl bootout) into a quit: while a run is going the
  // quit waits and the run stops as on SIGTERM — cancelled, session saved, recorded — then app.exit ends it.
  const stopping = import('./cli/stopSignals.js');
  app.on('before-quit', (event) => {
    event.preventDefault();
    void stopping.then(({ requestStop }) => {
      if (!requestStop()) app.exit(143);
    });
  });
  // A key the app kept in api-key.enc moves to the store the CLI reads first (electron/keychain.ts).
  void import('./electron/keychain.js')
    .then(({ migrateLegacyKeyForHeadlessRun }) => migrateLegacyKeyForHeadlessRun(reinHome(process.env)))
    .then(() => import('./cli/index.js'))
    .then(({ main }) => main(cliArgs))
    .then(
      (code) => app.exit(code),
      (e: unknown) => {
        process.stderr.write(`rein: ${errorMessage(e)}\n`);
        app.exit(1);
      },
    );
} else if (!app.requestSingleInstanceLock()) {
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
    void desktop.dispose().finally(() => {
      closed = true;
      app.quit();
    });
  });
  // Without a listener Electron quits when the last window closes; a menu-bar app must not.
  app.on('window-all-closed', () => undefined);
  void app
    .whenReady()
    .then(start)
    .catch(async (e: unknown) => {
      process.stderr.write(`rein: cannot start: ${errorMessage(e)}\n`);
      // Also in the log file: opened from Finder, stderr goes nowhere.
      await import('./electron/appLog.js')
        .then(({ appLog }) => appLog().write('error', `cannot start: ${errorMessage(e)}`))
        .catch(() => undefined);
      app.exit(1);
    });
}
