import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  desktopSettingsFile,
  loadDesktopSettings,
  updateDesktopSettings,
} from '../../../src-main/core/config/desktopSettings.js';

const home = () => mkdtemp(join(tmpdir(), 'rein-desktop-settings-'));

describe('desktop settings', () => {
  it('are the defaults without a file: the standard hotkey, no Dock icon, dialogs, notifications, and open at login not chosen yet', async () => {
    expect(await loadDesktopSettings(await home())).toEqual({
      hotkey: 'CommandOrControl+Shift+Space',
      show_dock_icon: false,
      approval_dialogs: true,
      notifications: true,
      move_to_applications_declined: false,
      auto_update: true,
    });
  });

  it('keep a change on disk, merged with what was there', async () => {
    const h = await home();
    await updateDesktopSettings(h, { hotkey: 'Alt+Space' });
    await updateDesktopSettings(h, { show_dock_icon: true });
    expect(await loadDesktopSettings(h)).toMatchObject({ hotkey: 'Alt+Space', show_dock_icon: true });
    expect(JSON.parse(await readFile(desktopSettingsFile(h), 'utf8'))).toMatchObject({ hotkey: 'Alt+Space' });
  });

  it('report a broken file naming the file and the field, and refuse to overwrite it', async () => {
    const h = await home();
    const file = desktopSettingsFile(h);
    await writeFile(file, JSON.stringify({ hotkey: 'Banana', show_dock_icon: 'yes' }));
    await expect(loadDesktopSettings(h)).rejects.toThrow(
      new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: hotkey: .*Banana.*; show_dock_icon: `),
    );
    await expect(updateDesktopSettings(h, { notifications: false })).rejects.toMatchObject({ code: 'config_invalid' });
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ hotkey: 'Banana', show_dock_icon: 'yes' });
  });

  it('refuse unknown keys and invalid JSON', async () => {
    const h = await home();
    await writeFile(desktopSettingsFile(h), '{"hotkeys": "Alt+R"}');
    await expect(loadDesktopSettings(h)).rejects.toThrow(/hotkeys: unknown key/);
    await writeFile(desktopSettingsFile(h), '{nope');
    await expect(loadDesktopSettings(h)).rejects.toThrow(/is not valid JSON/);
  });
});
