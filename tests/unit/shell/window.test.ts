import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { BrowserWindow, shell } from 'electron';
import { BrowserWindow as FakeWindow, fakeEvent, resetElectronMock } from '../../support/electronMock.js';
import { createMainWindow, hideInsteadOfClosing, openInBrowser } from '../../../src-main/shell/window.js';

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
    expect(win.options['webPreferences']).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      webviewTag: false,
    });
    expect(win.loadURL).toHaveBeenCalledWith(PAGE);
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

  it('refuses to attach a <webview>', () => {
    const win = makeWindow();
    const attach = fakeEvent({});
    win.webContents.emit('will-attach-webview', attach, {}, {});
    expect(attach.defaultPrevented).toBe(true);
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
