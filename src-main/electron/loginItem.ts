/**
 * "Open at login" for the packaged app: macOS (and Windows) through Electron's login items, Linux
 * through an XDG autostart entry (core/desktop/loginItem.ts). Started at login, Rein comes up in the
 * menu bar without its window (`--hidden`; on macOS `wasOpenedAtLogin`).
 */
import { app } from 'electron';
import { autostartEnabled, setAutostart } from '../core/desktop/loginItem.js';

export const HIDDEN_FLAG = '--hidden';

export async function applyLoginItem(
  enabled: boolean,
  o: { platform: NodeJS.Platform; env: NodeJS.ProcessEnv },
): Promise<void> {
  if (o.platform === 'linux') {
    await setAutostart(enabled, [process.execPath, HIDDEN_FLAG], o.env);
    return;
  }
  // args reach Windows only; macOS says wasOpenedAtLogin instead.
  app.setLoginItemSettings({ openAtLogin: enabled, args: [HIDDEN_FLAG] });
}

/** What the system has now: macOS's login item (the person may have removed it in System Settings), or the autostart entry. */
export function loginItemEnabled(o: { platform: NodeJS.Platform; env: NodeJS.ProcessEnv }): boolean {
  if (o.platform === 'linux') return autostartEnabled(o.env);
  return app.getLoginItemSettings().openAtLogin === true;
}

/** Whether this launch is the one at login (then no window opens by itself). */
export function openedAtLogin(platform: NodeJS.Platform, argv: readonly string[]): boolean {
  if (argv.includes(HIDDEN_FLAG)) return true;
  return platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin === true;
}
