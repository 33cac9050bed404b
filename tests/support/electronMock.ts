/**
 * A stand-in for the `electron` module, for unit tests of the shell, the preload and the entry point
 * (this machine has no Electron binary and no display). Use it with
 *   vi.mock('electron', () => import('../../support/electronMock.js'));
 * and import from 'electron' in the test to reach the same fakes. Call `resetElectronMock()` in
 * `beforeEach`. The fakes record what the code under test asked for and let a test play the other
 * side: fire a window event, invoke an IPC handler as some sender, read what the preload exposed.
 */
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

type Listener = (...args: unknown[]) => unknown;

/** An event as Electron hands it to listeners: `preventDefault` records the veto. */
export function fakeEvent<T extends object>(fields: T): T & { preventDefault: () => void; defaultPrevented: boolean } {
  const event = {
    ...fields,
    defaultPrevented: false,
    preventDefault() {
      event.defaultPrevented = true;
    },
  };
  return event;
}

export class FakeFrame {
  constructor(public url: string) {}
}

export class FakeSession {
  permissionRequestHandler: Listener | null = null;
  permissionCheckHandler: Listener | null = null;
  setPermissionRequestHandler(h: Listener | null): void {
    this.permissionRequestHandler = h;
  }
  setPermissionCheckHandler(h: Listener | null): void {
    this.permissionCheckHandler = h;
  }
}

export class FakeWebContents extends EventEmitter {
  readonly session = new FakeSession();
  mainFrame = new FakeFrame('about:blank');
  windowOpenHandler: ((details: { url: string }) => { action: 'allow' | 'deny' }) | null = null;
  setWindowOpenHandler(h: (details: { url: string }) => { action: 'allow' | 'deny' }): void {
    this.windowOpenHandler = h;
  }
}

export class BrowserWindow extends EventEmitter {
  static readonly created: BrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  visible = false;
  destroyed = false;
  readonly loadURL = vi.fn(async (url: string) => {
    this.webContents.mainFrame.url = url;
  });
  constructor(public readonly options: Record<string, unknown> = {}) {
    super();
    BrowserWindow.created.push(this);
  }
  show(): void {
    this.visible = true;
  }
  hide(): void {
    this.visible = false;
  }
  focus(): void {}
  restore(): void {}
  isMinimized(): boolean {
    return false;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

class FakeIpcMain {
  readonly handlers = new Map<string, Listener>();
  handle(channel: string, listener: Listener): void {
    // Electron throws on a second handler for one channel; so does the fake.
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  /** Play the renderer: call the handler of `channel` as if `sender`/`senderFrame` sent `args`. */
  async invokeAs(channel: string, from: { sender: unknown; senderFrame: unknown }, ...args: unknown[]): Promise<unknown> {
    const h = this.handlers.get(channel);
    if (!h) throw new Error(`No handler registered for '${channel}'`);
    return h(from, ...args);
  }
}
export const ipcMain = new FakeIpcMain();

class FakeApp extends EventEmitter {
  isPackaged = false;
  readonly requestSingleInstanceLock = vi.fn(() => true);
  readonly quit = vi.fn(() => {
    this.emit('before-quit');
  });
  readonly whenReady = vi.fn(() => Promise.resolve());
  readonly getVersion = vi.fn(() => '0.0.0-test');
  readonly getAppPath = vi.fn(() => '/fake/app');
  readonly dock = { hide: vi.fn() };
}
export const app = new FakeApp();

export const shell = { openExternal: vi.fn(async (_url: string) => undefined) };

export class Tray {
  static readonly created: Tray[] = [];
  contextMenu: unknown = null;
  toolTip = '';
  destroyed = false;
  constructor(public readonly image: unknown) {
    Tray.created.push(this);
  }
  setToolTip(text: string): void {
    this.toolTip = text;
  }
  setContextMenu(menu: unknown): void {
    this.contextMenu = menu;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

export type FakeMenuItem = { label?: string; type?: string; click?: () => void };
export const Menu = { buildFromTemplate: (template: FakeMenuItem[]) => ({ items: template }) };

export const nativeImage = {
  createFromPath: vi.fn((path: string) => ({ path, setTemplateImage: vi.fn() })),
};

// Renderer-side modules, for the preload.
export const contextBridge = {
  exposed: new Map<string, unknown>(),
  exposeInMainWorld(key: string, api: unknown): void {
    this.exposed.set(key, api);
  },
};

class FakeIpcRenderer extends EventEmitter {
  readonly invoke = vi.fn(async (_channel: string, ..._args: unknown[]): Promise<unknown> => undefined);
}
export const ipcRenderer = new FakeIpcRenderer();

export function resetElectronMock(): void {
  BrowserWindow.created.length = 0;
  Tray.created.length = 0;
  ipcMain.handlers.clear();
  app.removeAllListeners();
  app.isPackaged = false;
  for (const fn of [app.requestSingleInstanceLock, app.quit, app.whenReady, app.getVersion, app.getAppPath, app.dock.hide]) {
    fn.mockClear();
  }
  shell.openExternal.mockClear();
  nativeImage.createFromPath.mockClear();
  contextBridge.exposed.clear();
  ipcRenderer.removeAllListeners();
  ipcRenderer.invoke.mockReset();
}
