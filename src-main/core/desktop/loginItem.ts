/**
 * "Open at login" on Linux, the twin of macOS's login items (Electron's setLoginItemSettings, which does
 * nothing on Linux): an XDG autostart entry, `$XDG_CONFIG_HOME/autostart/dev.rein.app.desktop`
 * (`~/.config/autostart/…`), written atomically and removed when turned off. Desktop environments
 * start every entry there at login.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { atomicWriteFile } from '../util/atomicWrite.js';

export const AUTOSTART_FILE = 'dev.rein.app.desktop';

export function autostartPath(env: NodeJS.ProcessEnv): string {
  const config =
    env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/')
      ? env.XDG_CONFIG_HOME
      : join(env.HOME || homedir(), '.config');
  return join(config, 'autostart', AUTOSTART_FILE);
}

/** A desktop-entry Exec value: each argument quoted as the spec asks (", `, $ and \ escaped). */
function execLine(argv: readonly string[]): string {
  return argv.map((a) => `"${a.replace(/(["`$\\])/g, '\\$1')}"`).join(' ');
}

/** The entry's text: Rein, hidden at start (the tray only), from the app's executable. */
export function autostartEntry(argv: readonly string[]): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Rein',
    'Comment=The Rein assistant in the system tray',
    `Exec=${execLine(argv)}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** Writes the entry (enabled) or removes it; returns the file. */
export async function setAutostart(enabled: boolean, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  const file = autostartPath(env);
  if (enabled) {
    await mkdir(dirname(file), { recursive: true });
    await atomicWriteFile(file, autostartEntry(argv), { mode: 0o644 });
  } else await rm(file, { force: true });
  return file;
}

/** Is the autostart entry there (what Linux will start at the next login)? */
export const autostartEnabled = (env: NodeJS.ProcessEnv): boolean => existsSync(autostartPath(env));

/**
 * What to do to the system when the person sets "Open at login" to `wanted`: nothing when the system
 * already has it so (a switch turned on twice, or turned off after the login item was removed in
 * System Settings). Never called at start: the app does not re-add a login item the person removed.
 */
export function loginItemChange(systemEnabled: boolean, wanted: boolean): 'add' | 'remove' | 'none' {
  if (systemEnabled === wanted) return 'none';
  return wanted ? 'add' : 'remove';
}

/** Where "Open at login" can be applied: a packaged app on macOS (login items), Linux (XDG autostart) or Windows. */
export function loginItemAvailability(
  platform: NodeJS.Platform,
  packaged: boolean,
): { available: true } | { available: false; problem: string } {
  if (!packaged)
    return { available: false, problem: 'a development build is never a login item; a packaged Rein offers this' };
  if (platform !== 'darwin' && platform !== 'linux' && platform !== 'win32')
    return { available: false, problem: `not supported on ${platform}` };
  return { available: true };
}
