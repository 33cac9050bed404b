import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { BrowserWindow, shell } from 'electron';
import {
  BrowserWindow as FakeWindow,
  FakeSession,
  app,
  fakeEvent,
  nativeTheme,
  resetElectronMock,
} from '../../support/electronMock.js';
import { MAX_RELOADS } from '../../../src-main/core/desktop/windowRecovery.js';
import { contentSecurityPolicy } from '../../../src-main/core/desktop/csp.js';
import { isSamePage } from '../../../src-main/electron/ipc.js';
import {
  createMainWindow,
  hideInsteadOfClosing,
  openInBrowser,
  secureSession,
} from '../../../src-main/electron/window.js';

const PAGE = 'file:///app/out/renderer/index.html';

function makeWindow(): FakeWindow {
  createMainWindow({ preloadPath: '/app/out/preload/index.cjs', pageUrl: PAGE });
  const win = FakeWindow.created.at(-1);
  if (!win) throw new Error('no BrowserWindow was created');
  return win;
}

beforeEach(() => resetElectronMock());

describe('main window', () => {
  it('is the mocked electron module under test', () => {
    expect(BrowserWindow).toBe(FakeWindow);
  });

  it('runs the page sandboxed, context-isolated, without Node, with web security, through our preload', () => {
    const win = makeWindow();
    expect(win.options['webPreferences']).toEqual({
      preload: '/app/out/preload/index.cjs',
      sandbox: true,
      contextIsolation: true,
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
      disableBlinkFeatures: 'Auxclick',
      devTools: true, // a development build (app.isPackaged false)
    });
    expect(win.loadURL).toHaveBeenCalledWith(PAGE);
  });

  it('has no DevTools in a packaged build', () => {
    app.isPackaged = true;
    expect((makeWindow().options['webPreferences'] as Record<string, unknown>)['devTools']).toBe(false);
  });

  it('paints the page background before the page (no white flash), light or dark', () => {
    expect(makeWindow().options['backgroundColor']).toBe('#ffffff');
    nativeTheme.shouldUseDarkColors = true;
    expect(makeWindow().options['backgroundColor']).toBe('#1c1c1e');
  });

  it('on macOS shows on the current Space, over a fullscreen app, without touching the Dock setting', () => {
    createMainWindow({ preloadPath: '/p.cjs', pageUrl: PAGE, platform: 'darwin' });
    expect(FakeWindow.created.at(-1)!.allWorkspaces).toEqual({
      visible: true,
      options: { visibleOnFullScreen: true, skipTransformProcessType: true },
    });
    createMainWindow({ preloadPath: '/p.cjs', pageUrl: PAGE, platform: 'linux' });
    expect(FakeWindow.created.at(-1)!.allWorkspaces).toBeUndefined();
  });

  it('reloads a page that failed to load or whose renderer crashed, then says what happened, logging each', () => {
    const said: string[] = [];
    createMainWindow({
      preloadPath: '/p.cjs',
      pageUrl: PAGE,
      warn: (m) => said.push(m),
      logFile: '/Users/ada/Library/Logs/Rein/rein.log',
    });
    const win = FakeWindow.created.at(-1)!;
    win.loadURL.mockClear();
    // A load replaced by another (ERR_ABORTED) and a sub-frame are not trouble; a clean exit neither.
    win.webContents.emit('did-fail-load', {}, -3, 'ERR_ABORTED', PAGE, true);
    win.webContents.emit('did-fail-load', {}, -105, 'ERR_NAME_NOT_RESOLVED', 'https://x.example/', false);
    win.webContents.emit('render-process-gone', {}, { reason: 'clean-exit', exitCode: 0 });
    expect(win.loadURL).not.toHaveBeenCalled();
    for (let i = 0; i < MAX_RELOADS; i++)
      win.webContents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 11 });
    expect(win.loadURL.mock.calls.map((c) => c[0])).toEqual(Array(MAX_RELOADS).fill(PAGE));
    win.webContents.emit('did-fail-load', {}, -6, 'ERR_FILE_NOT_FOUND', PAGE, true);
    const last = String(win.loadURL.mock.calls.at(-1)![0]);
    expect(last.startsWith('data:text/html')).toBe(true);
    const shown = decodeURIComponent(last.slice(last.indexOf(',') + 1));
    expect(shown).toContain('ERR_FILE_NOT_FOUND');
    expect(shown).toContain('/Users/ada/Library/Logs/Rein/rein.log');
    expect(shown).not.toContain('<script');
    expect(said).toHaveLength(MAX_RELOADS + 1);
    expect(said[0]).toMatch(/renderer process ended: crashed.*reloading \(1 of 3\)/);
  });

  it('stays hidden until the page is ready, unless asked to wait for the tray or the hotkey', () => {
    const win = makeWindow();
    expect(win.options['show']).toBe(false);
    expect(win.visible).toBe(false);
    win.emit('ready-to-show');
    expect(win.visible).toBe(true);

    createMainWindow({ preloadPath: '/p.cjs', pageUrl: PAGE, showWhenReady: false });
    const quiet = FakeWindow.created.at(-1)!;
    quiet.emit('ready-to-show');
    expect(quiet.visible).toBe(false);
  });

  it('cancels every navigation and sends web links to the browser instead', () => {
    const win = makeWindow();
    const toWeb = fakeEvent({ url: 'https://example.com/docs' });
    win.webContents.emit('will-navigate', toWeb);
    expect(toWeb.defaultPrevented).toBe(true);
    expect(shell.openExternal).toHaveBeenCalledWith('https://example.com/docs');

    const toFile = fakeEvent({ url: 'file:///etc/passwd' });
    win.webContents.emit('will-navigate', toFile);
    expect(toFile.defaultPrevented).toBe(true);
    expect(shell.openExternal).toHaveBeenCalledTimes(1);
  });

  it('denies window.open, opening only http(s) targets in the browser', () => {
    const win = makeWindow();
    const open = win.webContents.windowOpenHandler;
    if (!open) throw new Error('no window-open handler installed');
    expect(open({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(open({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
    expect(shell.openExternal).toHaveBeenCalledTimes(1);
    expect(shell.openExternal).toHaveBeenCalledWith('https://example.com/');
  });

  it('refuses to attach a <webview> and to follow a redirect away', () => {
    const win = makeWindow();
    const attach = fakeEvent({});
    win.webContents.emit('will-attach-webview', attach, {}, {});
    expect(attach.defaultPrevented).toBe(true);
    const redirect = fakeEvent({ url: 'https://elsewhere.example/' });
    win.webContents.emit('will-redirect', redirect);
    expect(redirect.defaultPrevented).toBe(true);
    expect(shell.openExternal).not.toHaveBeenCalled();
  });

  it('denies every permission request and check', () => {
    const { session } = makeWindow().webContents;
    const answers: boolean[] = [];
    for (const permission of ['media', 'geolocation', 'notifications', 'clipboard-read']) {
      session.permissionRequestHandler?.({}, permission, (granted: boolean) => answers.push(granted), {});
    }
    expect(answers).toEqual([false, false, false, false]);
    expect(session.permissionCheckHandler?.({}, 'media', 'file://', {})).toBe(false);
  });
});

describe('session policy', () => {
  const RENDERER = '/app/out/renderer';
  function securedSession(page = PAGE) {
    const session = new FakeSession();
    const csp = contentSecurityPolicy({ daemonPort: 7533 });
    secureSession(session as never, { isAppPage: isSamePage(page), csp, rendererDir: RENDERER });
    return { session, csp };
  }

  it('sends the CSP as a response header on app pages, replacing any the server sent', async () => {
    const { session, csp } = securedSession('http://localhost:5173/');
    const answer = await session.webRequest.respond('http://localhost:5173/', {
      'content-security-policy': ['default-src *'],
      'Content-Type': ['text/html'],
    });
    expect(answer.responseHeaders).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': [csp] });
    expect(csp).toContain("connect-src 'self' http://127.0.0.1:7533 ws://127.0.0.1:7533");
  });

  it('leaves responses that are not app pages alone', async () => {
    const { session } = securedSession('http://localhost:5173/');
    expect(await session.webRequest.respond('https://example.com/', { a: ['b'] })).toEqual({});
    expect(await session.webRequest.respond('not a url')).toEqual({});
  });

  it('cancels file: requests outside the renderer folder and lets everything else through', async () => {
    const { session } = securedSession();
    expect(await session.webRequest.request(`file://${RENDERER}/assets/app.js`)).toEqual({ cancel: false });
    expect(await session.webRequest.request('file:///etc/passwd')).toEqual({ cancel: true });
    expect(await session.webRequest.request(`file://${RENDERER}/../main/index.js`)).toEqual({ cancel: true });
    expect(await session.webRequest.request('http://127.0.0.1:7533/status')).toEqual({ cancel: false });
  });

  it('denies every permission on the session', () => {
    const { session } = securedSession();
    let granted: boolean | undefined;
    session.permissionRequestHandler?.({}, 'notifications', (g: boolean) => (granted = g), {});
    expect(granted).toBe(false);
    expect(session.permissionCheckHandler?.({}, 'clipboard-read', 'file://', {})).toBe(false);
  });
});

describe('openInBrowser', () => {
  it.each([
    ['https://example.com/a?b=c', true],
    ['http://localhost:8080/', true],
    ['file:///Users/me/.ssh/id_ed25519', false],
    ['javascript:alert(1)', false],
    ['smb://server/share', false],
    ['x-apple.systempreferences:com.apple.preference.security', false],
    ['not a url', false],
  ])('%s → opened: %s', (url, opened) => {
    resetElectronMock();
    expect(openInBrowser(url)).toBe(opened);
    expect(shell.openExternal).toHaveBeenCalledTimes(opened ? 1 : 0);
  });
});

describe('closing the window', () => {
  it('hides it while the app runs, and lets it close when the app quits', () => {
    const win = makeWindow();
    let quitting = false;
    hideInsteadOfClosing(win as unknown as BrowserWindow, () => quitting);
    win.show();

    const close = fakeEvent({});
    win.emit('close', close);
    expect(close.defaultPrevented).toBe(true);
    expect(win.visible).toBe(false);

    quitting = true;
    const finalClose = fakeEvent({});
    win.emit('close', finalClose);
    expect(finalClose.defaultPrevented).toBe(false);
  });
});
