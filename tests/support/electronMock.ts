/**
 * A stand-in for the `electron` module, for unit tests of the shell, the preload and the entry point
 * (this machine has no Electron binary and no display). Use it with
 *   vi.mock('electron', () => import('../../support/electronMock.js'));
 * and import from 'electron' in the test to reach the same fakes. Call `resetElectronMock()` in
 * `beforeEach`. The fakes record what the code under test asked for and let a test play the other
 * side: fire a window event, invoke an IPC handler as some sender, read what the preload exposed,
 * press a global shortcut, click a notification, answer a message box.
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

let nextRoutingId = 1;
/**
 * A WebFrameMain: known by its renderer process and routing id, as in Electron (which may hand out a
 * new wrapper object for the same frame: `sameFrame()` makes one). A top frame has no parent.
 */
export class FakeFrame {
  processId: number;
  routingId: number;
  parent: FakeFrame | null;
  constructor(
    public url: string,
    o: { processId?: number; routingId?: number; parent?: FakeFrame | null } = {},
  ) {
    this.processId = o.processId ?? 1;
    this.routingId = o.routingId ?? nextRoutingId++;
    this.parent = o.parent ?? null;
  }
  /** Another wrapper object for this very frame. */
  sameFrame(): FakeFrame {
    return new FakeFrame(this.url, { processId: this.processId, routingId: this.routingId, parent: this.parent });
  }
}

type HeadersListener = (
  details: { url: string; resourceType?: string; responseHeaders?: Record<string, string[]> },
  callback: (response: { cancel?: boolean; responseHeaders?: Record<string, string[]> }) => void,
) => void;
type BeforeRequestListener = (
  details: { url: string; resourceType?: string },
  callback: (response: { cancel?: boolean }) => void,
) => void;

class FakeWebRequest {
  headersReceived: HeadersListener | null = null;
  beforeRequest: BeforeRequestListener | null = null;
  /** Electron takes (listener) or (filter, listener); one listener per event and session. */
  onHeadersReceived(a: unknown, b?: unknown): void {
    this.headersReceived = (b ?? a) as HeadersListener | null;
  }
  onBeforeRequest(a: unknown, b?: unknown): void {
    this.beforeRequest = (b ?? a) as BeforeRequestListener | null;
  }
  /** Play the network: run a response through the headers listener and return what it answered. */
  respond(url: string, responseHeaders: Record<string, string[]> = {}, resourceType = 'mainFrame') {
    return new Promise<{ cancel?: boolean; responseHeaders?: Record<string, string[]> }>((resolve) => {
      if (!this.headersReceived) resolve({});
      else this.headersReceived({ url, resourceType, responseHeaders }, resolve);
    });
  }
  /** Play a request: did the beforeRequest listener cancel it? */
  request(url: string, resourceType = 'image') {
    return new Promise<{ cancel?: boolean }>((resolve) => {
      if (!this.beforeRequest) resolve({});
      else this.beforeRequest({ url, resourceType }, resolve);
    });
  }
}

export class FakeSession {
  permissionRequestHandler: Listener | null = null;
  permissionCheckHandler: Listener | null = null;
  readonly webRequest = new FakeWebRequest();
  setPermissionRequestHandler(h: Listener | null): void {
    this.permissionRequestHandler = h;
  }
  setPermissionCheckHandler(h: Listener | null): void {
    this.permissionCheckHandler = h;
  }
}

let nextContentsId = 1;
export class FakeWebContents extends EventEmitter {
  readonly id = nextContentsId++;
  session = new FakeSession();
  mainFrame = new FakeFrame('about:blank');
  destroyed = false;
  windowOpenHandler: ((details: { url: string }) => { action: 'allow' | 'deny' }) | null = null;
  /** Every main → page message, in order. */
  readonly sent: { channel: string; args: unknown[] }[] = [];
  setWindowOpenHandler(h: (details: { url: string }) => { action: 'allow' | 'deny' }): void {
    this.windowOpenHandler = h;
  }
  send(channel: string, ...args: unknown[]): void {
    this.sent.push({ channel, args });
  }
  getURL(): string {
    return this.mainFrame.url;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

export const session = { defaultSession: new FakeSession() };

export class BrowserWindow extends EventEmitter {
  static readonly created: BrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  visible = false;
  focused = false;
  destroyed = false;
  readonly loadURL = vi.fn(async (url: string) => {
    this.webContents.mainFrame.url = url;
  });
  constructor(public readonly options: Record<string, unknown> = {}) {
    super();
    // Windows share the default session, as in Electron unless a partition is given.
    this.webContents.session = session.defaultSession;
    BrowserWindow.created.push(this);
  }
  show(): void {
    this.visible = true;
    this.focused = true;
    this.emit('show');
    this.emit('focus');
  }
  showInactive(): void {
    this.visible = true;
    this.emit('show');
  }
  hide(): void {
    this.visible = false;
    this.focused = false;
    this.emit('hide');
  }
  focus(): void {
    this.focused = true;
    this.emit('focus');
  }
  /** Test helper: another app took the focus. */
  blur(): void {
    this.focused = false;
    this.emit('blur');
  }
  restore(): void {}
  /** What setVisibleOnAllWorkspaces was last given. */
  allWorkspaces: { visible: boolean; options?: Record<string, unknown> } | undefined;
  setVisibleOnAllWorkspaces(visible: boolean, options?: Record<string, unknown>): void {
    this.allWorkspaces = { visible, ...(options ? { options } : {}) };
  }
  isMinimized(): boolean {
    return false;
  }
  isVisible(): boolean {
    return this.visible;
  }
  isFocused(): boolean {
    return this.focused;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  destroy(): void {
    this.destroyed = true;
    this.webContents.destroyed = true;
    this.visible = false;
    this.emit('closed');
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
  async invokeAs(
    channel: string,
    from: { sender: unknown; senderFrame: unknown },
    ...args: unknown[]
  ): Promise<unknown> {
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
    // As Electron: before-quit, and will-quit unless a listener vetoed it.
    const beforeQuit = fakeEvent({});
    this.emit('before-quit', beforeQuit);
    if (beforeQuit.defaultPrevented) return;
    const willQuit = fakeEvent({});
    this.emit('will-quit', willQuit);
    if (!willQuit.defaultPrevented) this.quitted = true;
  });
  readonly exit = vi.fn((_code?: number) => {
    this.quitted = true;
  });
  quitted = false;
  readonly whenReady = vi.fn(() => Promise.resolve());
  readonly getVersion = vi.fn(() => '0.0.0-test');
  readonly getAppPath = vi.fn(() => '/fake/app');
  readonly focus = vi.fn();
  readonly dock = { hide: vi.fn(), show: vi.fn(async () => undefined) };
  /** What setLoginItemSettings was last given; getLoginItemSettings answers from it. */
  loginItem = { openAtLogin: false, wasOpenedAtLogin: false };
  readonly setLoginItemSettings = vi.fn((s: { openAtLogin?: boolean }) => {
    this.loginItem = { ...this.loginItem, openAtLogin: s.openAtLogin === true };
  });
  readonly getLoginItemSettings = vi.fn(() => ({
    ...this.loginItem,
    status: this.loginItem.openAtLogin ? 'enabled' : 'not-registered',
  }));
  inApplications = false;
  readonly isInApplicationsFolder = vi.fn(() => this.inApplications);
  /** What moveToApplicationsFolder answers (or throws, when an Error). */
  moveResult: boolean | Error = true;
  readonly moveToApplicationsFolder = vi.fn((_o?: { conflictHandler?: (kind: string) => boolean }) => {
    if (this.moveResult instanceof Error) throw this.moveResult;
    return this.moveResult;
  });
}
export const app = new FakeApp();

export const shell = { openExternal: vi.fn(async (_url: string) => undefined) };

export const nativeTheme = { shouldUseDarkColors: false };

export class Tray {
  static readonly created: Tray[] = [];
  contextMenu: unknown = null;
  toolTip = '';
  title = '';
  image: { path?: string } | unknown;
  destroyed = false;
  constructor(image: unknown) {
    this.image = image;
    Tray.created.push(this);
  }
  setImage(image: unknown): void {
    this.image = image;
  }
  setTitle(title: string): void {
    this.title = title;
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
  isDestroyed(): boolean {
    return this.destroyed;
  }
}

export type FakeMenuItem = {
  label?: string;
  type?: string;
  role?: string;
  enabled?: boolean;
  toolTip?: string;
  click?: () => void;
  submenu?: FakeMenuItem[];
};
export const Menu = {
  buildFromTemplate: (template: FakeMenuItem[]) => ({ items: template }),
  /** The application menu last set (null: none). */
  application: undefined as { items: FakeMenuItem[] } | null | undefined,
  setApplicationMenu(menu: { items: FakeMenuItem[] } | null): void {
    Menu.application = menu;
  },
};

export const nativeImage = {
  createFromPath: vi.fn((path: string) => ({
    path,
    template: false,
    setTemplateImage(t: boolean) {
      this.template = t;
    },
  })),
};

class FakeGlobalShortcut {
  readonly registered = new Map<string, () => void>();
  /** Accelerators another app holds: registering them fails, as in Electron (register returns false). */
  readonly taken = new Set<string>();
  register(accelerator: string, callback: () => void): boolean {
    if (this.taken.has(accelerator) || this.registered.has(accelerator)) return false;
    this.registered.set(accelerator, callback);
    return true;
  }
  unregister(accelerator: string): void {
    this.registered.delete(accelerator);
  }
  unregisterAll(): void {
    this.registered.clear();
  }
  isRegistered(accelerator: string): boolean {
    return this.registered.has(accelerator);
  }
  /** Test helper: the person pressed the shortcut. */
  press(accelerator: string): void {
    const cb = this.registered.get(accelerator);
    if (!cb) throw new Error(`no global shortcut ${accelerator} is registered`);
    cb();
  }
}
export const globalShortcut = new FakeGlobalShortcut();

export class Notification extends EventEmitter {
  static readonly shown: Notification[] = [];
  static supported = true;
  static isSupported(): boolean {
    return Notification.supported;
  }
  constructor(public readonly options: { title: string; body?: string; silent?: boolean }) {
    super();
  }
  show(): void {
    Notification.shown.push(this);
  }
  close(): void {
    this.emit('close');
  }
  /** Test helper: the person clicked it. */
  click(): void {
    this.emit('click');
  }
  /** Test helper: the system could not show it (Electron's `failed` event). */
  fail(error: string): void {
    this.emit('failed', {}, error);
  }
}

export interface PendingMessageBox {
  window: unknown;
  options: {
    buttons?: string[];
    defaultId?: number;
    cancelId?: number;
    signal?: AbortSignal;
    message: string;
    detail?: string;
    title?: string;
    type?: string;
    checkboxLabel?: string;
  };
  /** The person clicks button `index` (with the box's checkbox ticked or not). */
  answer(index: number, checkboxChecked?: boolean): void;
  settled: boolean;
}

/**
 * Message boxes wait for a test to answer them. As in Electron, aborting `options.signal` closes the
 * box as if it had been cancelled (it resolves with `cancelId`).
 */
class FakeDialog {
  readonly boxes: PendingMessageBox[] = [];
  readonly showMessageBox = vi.fn((windowOrOptions: unknown, maybeOptions?: unknown) => {
    const options = (maybeOptions ?? windowOrOptions) as PendingMessageBox['options'];
    const window = maybeOptions === undefined ? undefined : windowOrOptions;
    return new Promise<{ response: number; checkboxChecked: boolean }>((resolve) => {
      const box: PendingMessageBox = {
        window,
        options,
        settled: false,
        answer(index, checkboxChecked = false) {
          if (box.settled) return;
          box.settled = true;
          resolve({ response: index, checkboxChecked });
        },
      };
      options.signal?.addEventListener('abort', () => box.answer(options.cancelId ?? 0), { once: true });
      if (options.signal?.aborted) box.answer(options.cancelId ?? 0);
      this.boxes.push(box);
    });
  });
  /** Boxes still open. */
  open(): PendingMessageBox[] {
    return this.boxes.filter((b) => !b.settled);
  }
}
export const dialog = new FakeDialog();

/** A reversible stand-in for the keychain: never the plain text on disk, so tests can check that. */
export const safeStorage = {
  available: true,
  backend: 'gnome_libsecret' as string,
  isAsyncEncryptionAvailable: vi.fn(async () => safeStorage.available),
  encryptStringAsync: vi.fn(async (plain: string) =>
    Buffer.from(`sealed:${Buffer.from(plain, 'utf8').reverse().toString('base64')}`),
  ),
  decryptStringAsync: vi.fn(async (sealed: Buffer) => {
    const text = sealed.toString('utf8');
    if (!text.startsWith('sealed:'))
      throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
    return {
      result: Buffer.from(text.slice('sealed:'.length), 'base64').reverse().toString('utf8'),
      shouldReEncrypt: false,
    };
  }),
  getSelectedStorageBackend: vi.fn(() => safeStorage.backend),
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
  Notification.shown.length = 0;
  Notification.supported = true;
  ipcMain.handlers.clear();
  app.removeAllListeners();
  app.isPackaged = false;
  app.quitted = false;
  app.loginItem = { openAtLogin: false, wasOpenedAtLogin: false };
  app.setLoginItemSettings.mockClear();
  app.getLoginItemSettings.mockClear();
  app.inApplications = false;
  app.moveResult = true;
  app.isInApplicationsFolder.mockClear();
  app.moveToApplicationsFolder.mockClear();
  nativeTheme.shouldUseDarkColors = false;
  Menu.application = undefined;
  for (const fn of [
    app.requestSingleInstanceLock,
    app.quit,
    app.exit,
    app.whenReady,
    app.getVersion,
    app.getAppPath,
    app.focus,
    app.dock.hide,
    app.dock.show,
  ]) {
    fn.mockClear();
  }
  session.defaultSession = new FakeSession();
  shell.openExternal.mockClear();
  nativeImage.createFromPath.mockClear();
  globalShortcut.registered.clear();
  globalShortcut.taken.clear();
  dialog.boxes.length = 0;
  dialog.showMessageBox.mockClear();
  safeStorage.available = true;
  safeStorage.backend = 'gnome_libsecret';
  for (const fn of [
    safeStorage.isAsyncEncryptionAvailable,
    safeStorage.encryptStringAsync,
    safeStorage.decryptStringAsync,
    safeStorage.getSelectedStorageBackend,
  ]) {
    fn.mockClear();
  }
  contextBridge.exposed.clear();
  ipcRenderer.removeAllListeners();
  ipcRenderer.invoke.mockReset();
}
