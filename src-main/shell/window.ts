/**
 * Rein's window, locked down the way Electron's security checklist asks: no Node in the page, the
 * preload in an isolated world, a sandboxed renderer, no navigation away from our page, no new
 * windows, no permissions. Links to the web open in the user's browser, nothing else leaves the app.
 */
import {
  BrowserWindow,
  shell,
  type BrowserWindowConstructorOptions,
  type Session,
  type WebContents,
  type WebPreferences,
} from 'electron';

export function secureWebPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    spellcheck: false,
  };
}

/** Hand `url` to the user's browser when it is a web page; anything else (file:, custom schemes) is dropped. */
export function openInBrowser(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  void shell.openExternal(parsed.href);
  return true;
}

/** The page never leaves our page: navigations and window.open are refused; web links go to the browser. */
export function lockDownNavigation(contents: WebContents): void {
  contents.on('will-navigate', (event) => {
    event.preventDefault();
    openInBrowser(event.url);
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openInBrowser(url);
    return { action: 'deny' };
  });
}

/**
 * Deny every permission the page could ask for (camera, microphone, geolocation, notifications, …).
 * Desktop notifications come from the main process, which needs no page permission.
 */
export function denyAllPermissions(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

export interface MainWindowOptions {
  /** Absolute path of the bundled preload (out/preload/index.cjs). */
  preloadPath: string;
  /** The page to show: a file: URL in a build, the dev server's URL under `electron-vite dev`. */
  pageUrl: string;
}

export function createMainWindow({ preloadPath, pageUrl }: MainWindowOptions): BrowserWindow {
  const options: BrowserWindowConstructorOptions = {
    title: 'Rein',
    width: 420,
    height: 600,
    show: false,
    webPreferences: secureWebPreferences(preloadPath),
  };
  const win = new BrowserWindow(options);
  denyAllPermissions(win.webContents.session);
  lockDownNavigation(win.webContents);
  win.once('ready-to-show', () => win.show());
  void win.loadURL(pageUrl);
  return win;
}

/** A menu-bar app keeps running with its window closed: closing hides, unless the app is quitting. */
export function hideInsteadOfClosing(win: BrowserWindow, isQuitting: () => boolean): void {
  win.on('close', (event) => {
    if (isQuitting()) return;
    event.preventDefault();
    win.hide();
  });
}
