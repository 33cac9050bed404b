/**
 * Rein's windows, locked down the way Electron's security checklist asks: no Node in the page, the
 * preload in an isolated world, a sandboxed renderer, web security on, no navigation away from our
 * page, no new windows, no permissions, a CSP on every app response, and file: reads only inside the
 * renderer's folder. Links to the web open in the user's browser; nothing else leaves the app.
 *
 * Every window is made by `createSecureWindow`, whose web preferences are written out literally so a
 * reader (and electronegativity, which reads the source) sees them at the one place windows are made.
 */
import {
  app,
  BrowserWindow,
  nativeTheme,
  shell,
  type BrowserWindowConstructorOptions,
  type Session,
  type WebContents,
} from 'electron';
import { isAllowedFileUrl } from '../core/desktop/csp.js';
import { troublePage, windowBackground, WindowRecovery } from '../core/desktop/windowRecovery.js';

/** Window options apart from web preferences, which are not negotiable. */
export type WindowFrameOptions = Omit<BrowserWindowConstructorOptions, 'webPreferences'>;

export function createSecureWindow(frame: WindowFrameOptions, preloadPath?: string): BrowserWindow {
  const win = new BrowserWindow({
    ...frame,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      // Middle-click would open links in new windows; they are refused anyway, this removes the event.
      disableBlinkFeatures: 'Auxclick',
      // DevTools reach the page and its bridge: only in a development build (the menu has no item either).
      devTools: !app.isPackaged,
    },
  });
  lockDownNavigation(win.webContents);
  denyAllPermissions(win.webContents.session);
  return win;
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
  contents.on('will-redirect', (event) => event.preventDefault());
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

export interface SessionPolicy {
  /** Is this URL one of our app pages (the built page or the dev server)? Those get the CSP header. */
  isAppPage(url: URL): boolean;
  /** The Content-Security-Policy sent with app pages. */
  csp: string;
  /** Folder of the built page; file: requests outside it are cancelled. */
  rendererDir: string;
}

/**
 * What the session enforces for every window: no permissions, the CSP as a response header on app
 * pages (replacing any the server sent), and no file: reads outside the renderer's folder.
 */
export function secureSession(session: Session, policy: SessionPolicy): void {
  denyAllPermissions(session);
  session.webRequest.onHeadersReceived((details, callback) => {
    if (!isAppUrl(details.url, policy)) {
      callback({});
      return;
    }
    const responseHeaders: Record<string, string[]> = {};
    for (const [name, value] of Object.entries(details.responseHeaders ?? {})) {
      if (name.toLowerCase() !== 'content-security-policy') responseHeaders[name] = value;
    }
    responseHeaders['Content-Security-Policy'] = [policy.csp];
    callback({ responseHeaders });
  });
  session.webRequest.onBeforeRequest((details, callback) => {
    const isFile = details.url.startsWith('file:');
    callback({ cancel: isFile && !isAllowedFileUrl(details.url, policy.rendererDir) });
  });
}

function isAppUrl(url: string, policy: SessionPolicy): boolean {
  try {
    return policy.isAppPage(new URL(url));
  } catch {
    return false;
  }
}

export interface MainWindowOptions {
  /** Absolute path of the bundled preload (out/preload/index.cjs). */
  preloadPath: string;
  /** The page to show: a file: URL in a build, the dev server's URL under `electron-vite dev`. */
  pageUrl: string;
  /** Show it as soon as it is ready (the first launch); otherwise it waits for the tray or the hotkey. */
  showWhenReady?: boolean;
  platform?: NodeJS.Platform;
  /** Where page failures are said (the app's log). */
  warn?: (message: string) => void;
  /** The log file, named in the page shown when reloading does not help. */
  logFile?: string;
}

export function createMainWindow({
  preloadPath,
  pageUrl,
  showWhenReady = true,
  platform = process.platform,
  warn = () => undefined,
  logFile,
}: MainWindowOptions): BrowserWindow {
  const dark = nativeTheme.shouldUseDarkColors;
  const win = createSecureWindow(
    // The page's own background before it paints: no white flash (dark mode above all).
    {
      title: 'Rein',
      width: 420,
      height: 600,
      minWidth: 360,
      minHeight: 420,
      show: false,
      backgroundColor: windowBackground(dark),
    },
    preloadPath,
  );
  if (platform === 'darwin') {
    // Opened from the menu bar or the hotkey over a fullscreen app, the window shows on that Space
    // instead of switching Spaces. skipTransformProcessType: the Dock icon setting is left alone (a
    // menu-bar app is already a UI element; with the Dock icon on, the window may still switch Spaces).
    win.setVisibleOnAllWorkspaces(true, { visibleOnFullScreen: true, skipTransformProcessType: true });
  }
  if (showWhenReady) win.once('ready-to-show', () => win.show());
  recoverFromPageTrouble(win, pageUrl, { warn, ...(logFile ? { logFile } : {}) });
  void win.loadURL(pageUrl);
  return win;
}

/**
 * A page that did not load or a renderer that crashed is reloaded a few times, then the window says
 * what happened instead of staying blank (core/desktop/windowRecovery.ts); every event is logged.
 */
export function recoverFromPageTrouble(
  win: BrowserWindow,
  pageUrl: string,
  o: { warn(message: string): void; logFile?: string; recovery?: WindowRecovery },
): void {
  const recovery = o.recovery ?? new WindowRecovery();
  const act = (r: ReturnType<WindowRecovery['decide']>) => {
    if (r.action === 'ignore' || win.isDestroyed()) return;
    o.warn(r.log);
    if (r.action === 'reload') void win.loadURL(pageUrl).catch(() => undefined);
    else {
      const html = troublePage(r.title, r.message, nativeTheme.shouldUseDarkColors);
      void win.loadURL(`data:text/html;charset=utf-8,${encodeURIComponent(html)}`).catch(() => undefined);
    }
  };
  win.webContents.on('did-fail-load', (_event, errorCode, errorDescription, validatedURL, isMainFrame) => {
    act(
      recovery.decide(
        { kind: 'load_failed', errorCode, errorDescription, url: validatedURL, mainFrame: isMainFrame },
        o.logFile,
      ),
    );
  });
  win.webContents.on('render-process-gone', (_event, details) => {
    act(recovery.decide({ kind: 'renderer_gone', reason: details.reason, exitCode: details.exitCode }, o.logFile));
  });
  // Our page loaded (not the page that explains): earlier trouble is over.
  win.webContents.on('did-finish-load', () => {
    if (!win.webContents.getURL().startsWith('data:')) recovery.loaded();
  });
}

/** A menu-bar app keeps running with its window closed: closing hides, unless the app is quitting. */
export function hideInsteadOfClosing(win: BrowserWindow, isQuitting: () => boolean): void {
  win.on('close', (event) => {
    if (isQuitting()) return;
    event.preventDefault();
    win.hide();
  });
}
