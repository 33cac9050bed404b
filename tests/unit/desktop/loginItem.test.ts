/** "Open at login" on Linux: an XDG autostart entry written atomically, quoted as the spec asks, removed when off. */
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autostartEntry, autostartPath, setAutostart } from '../../../src-main/core/desktop/loginItem.js';

describe('the XDG autostart entry', () => {
  it('lives in $XDG_CONFIG_HOME/autostart, else ~/.config/autostart (a relative XDG_CONFIG_HOME is ignored)', () => {
    expect(autostartPath({ XDG_CONFIG_HOME: '/cfg', HOME: '/home/ada' })).toBe('/cfg/autostart/dev.rein.app.desktop');
    expect(autostartPath({ HOME: '/home/ada' })).toBe('/home/ada/.config/autostart/dev.rein.app.desktop');
    expect(autostartPath({ XDG_CONFIG_HOME: 'rel', HOME: '/home/ada' })).toBe(
      '/home/ada/.config/autostart/dev.rein.app.desktop',
    );
  });

  it('quotes each argument and escapes what the spec reserves', () => {
    const entry = autostartEntry(['/opt/Rein $HOME/"x"/rein', '--hidden']);
    expect(entry).toContain('Exec="/opt/Rein \\$HOME/\\"x\\"/rein" "--hidden"\n');
    expect(entry.startsWith('[Desktop Entry]\nType=Application\nName=Rein\n')).toBe(true);
  });

  it('is written when turned on (folders made) and removed when turned off; off twice is fine', async () => {
    const cfg = await mkdtemp(join(tmpdir(), 'rein-autostart-'));
    const env = { XDG_CONFIG_HOME: join(cfg, 'nested') };
    const file = await setAutostart(true, ['/usr/bin/rein', '--hidden'], env);
    expect(await readFile(file, 'utf8')).toContain('Exec="/usr/bin/rein" "--hidden"');
    expect((await stat(file)).mode & 0o777).toBe(0o644);
    await setAutostart(false, [], env);
    await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(setAutostart(false, [], env)).resolves.toBe(file);
  });
});

describe('"Open at login" changes', () => {
  it('touch the system only when it differs from what the person asks', async () => {
    const { loginItemChange, loginItemAvailability } = await import('../../../src-main/core/desktop/loginItem.js');
    expect(loginItemChange(false, true)).toBe('add');
    expect(loginItemChange(true, false)).toBe('remove');
    expect(loginItemChange(true, true)).toBe('none');
    expect(loginItemChange(false, false)).toBe('none');
    expect(loginItemAvailability('darwin', true)).toEqual({ available: true });
    expect(loginItemAvailability('darwin', false)).toMatchObject({ available: false });
    expect(loginItemAvailability('freebsd', true)).toMatchObject({ available: false });
  });
});
