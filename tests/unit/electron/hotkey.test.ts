import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { globalShortcut, resetElectronMock } from '../../support/electronMock.js';
import { GlobalHotkey } from '../../../src-main/electron/hotkey.js';

beforeEach(() => resetElectronMock());

describe('global hotkey', () => {
  it('registers the shortcut and calls back when it is pressed', () => {
    const pressed = vi.fn();
    const hotkey = new GlobalHotkey(pressed);
    expect(hotkey.set('CommandOrControl+Shift+Space')).toEqual({
      accelerator: 'CommandOrControl+Shift+Space',
      registered: true,
    });
    globalShortcut.press('CommandOrControl+Shift+Space');
    expect(pressed).toHaveBeenCalledTimes(1);
  });

  it('reports a shortcut another app holds, in words for Settings', () => {
    globalShortcut.taken.add('Alt+Space');
    const status = new GlobalHotkey(() => undefined).set('Alt+Space');
    expect(status).toMatchObject({ registered: false });
    expect(status.problem).toMatch(/Alt\+Space is already used by another app or by the system/);
  });

  it('releases the old shortcut when changed, and everything when turned off or disposed', () => {
    const hotkey = new GlobalHotkey(() => undefined);
    hotkey.set('Alt+R');
    hotkey.set('Alt+T');
    expect([...globalShortcut.registered.keys()]).toEqual(['Alt+T']);
    expect(hotkey.set('')).toEqual({ accelerator: '', registered: false, problem: 'turned off' });
    expect(globalShortcut.registered.size).toBe(0);
    hotkey.set('Alt+U');
    hotkey.dispose();
    expect(globalShortcut.registered.size).toBe(0);
  });

  it('refuses an invalid accelerator before Electron sees it', () => {
    const register = vi.spyOn(globalShortcut, 'register');
    expect(new GlobalHotkey(() => undefined).set('Q').problem).toMatch(/^Q needs a modifier/);
    expect(register).not.toHaveBeenCalled();
  });
});
