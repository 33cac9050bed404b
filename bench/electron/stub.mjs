// A stand-in for the `electron` module, so the built main process (out/main/index.js) can be loaded in
// plain Node (no Electron binary runs here): `npm run bench -- startup` measures its module graph and
// its headless mode with it. Only what the headless path calls does anything; the rest are inert.
import { EventEmitter } from 'node:events';
import { tmpdir } from 'node:os';

class Inert extends EventEmitter {
  constructor() {
    super();
    return new Proxy(this, { get: (t, k) => (k in t ? t[k] : () => undefined) });
  }
}

const ready = Promise.resolve();
export const app = Object.assign(new EventEmitter(), {
  isPackaged: false,
  getVersion: () => '0.0.0-bench',
  getAppPath: () => process.cwd(),
  getPath: () => tmpdir(),
  requestSingleInstanceLock: () => true,
  whenReady: () => ready,
  isReady: () => true,
  // As Electron does: before-quit, then will-quit, whose listeners may hold the quit (and call quit() again).
  quit: () => {
    app.emit('before-quit');
    let held = false;
    app.emit('will-quit', { preventDefault: () => (held = true) });
    if (!held) process.exit(0);
  },
  exit: (code = 0) => process.exit(code),
  dock: { hide() {}, show() {} },
});
// Electron turns SIGINT and SIGTERM into a normal quit.
process.on('SIGINT', () => app.quit());
process.on('SIGTERM', () => app.quit());

export class BrowserWindow extends Inert {
  static getAllWindows = () => [];
}
export class Tray extends Inert {}
export class Notification extends Inert {
  static isSupported = () => false;
}
export const Menu = { buildFromTemplate: () => new Inert(), setApplicationMenu() {} };
export const nativeImage = { createFromPath: () => new Inert(), createEmpty: () => new Inert() };
export const session = { defaultSession: new Inert() };
export const shell = { openExternal: async () => undefined };
export const dialog = { showMessageBox: async () => ({ response: 0 }) };
export const globalShortcut = { register: () => false, unregister() {}, unregisterAll() {} };
export const ipcMain = new Inert();
export const safeStorage = {
  isEncryptionAvailable: () => false,
  isAsyncEncryptionAvailable: async () => false,
  encryptString: (s) => Buffer.from(s),
  decryptString: (b) => b.toString(),
};
export default {
  app,
  BrowserWindow,
  Tray,
  Notification,
  Menu,
  nativeImage,
  session,
  shell,
  dialog,
  globalShortcut,
  ipcMain,
  safeStorage,
};
