import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { BrowserWindow, shell } from 'electron';
import { BrowserWindow as FakeWindow, FakeSession, fakeEvent, resetElectronMock } from '../../support/electronMock.js';
import { contentSecurityPolicy } from '../../../src-main/core/desktop/csp.js';
import { isSamePage } from '../../../src-main/shell/ipc.js';
import { createMainWindow, hideInsteadOfClosing, openInBrowser, secureSession } from '../../../src-main/shell/window.js';

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
    });
    expect(win.loadURL).toHaveBeenCalledWith(PAGE);
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
      'content-security-policy': ["default-src *"],
      'Content-Type': ['text/html'],
    });
    expect(answer.responseHeaders).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': [csp] });
    expect(csp).toContain('connect-src \'self\' http://127.0.0.1:7533 ws://127.0.0.1:7533');
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
