/** The doctor's watchers check: unreadable folders fail with what to do (macOS: the privacy settings), missing ones warn. */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { watchCheck } from '../../../src-main/core/doctor/watchCheck.js';

async function world(watch: string[]) {
  const root = realpathSync(await mkdtemp(join(tmpdir(), 'rein-doctor-watch-')));
  const home = join(root, 'home');
  await mkdir(join(home, 'agents', 'clerk'), { recursive: true });
  await writeFile(join(home, 'agents', 'clerk', 'AGENT.md'), 'You sort files.\n');
  if (watch.length > 0)
    await writeFile(
      join(home, 'agents', 'clerk', 'config.yaml'),
      `watch:\n${watch.map((p) => `  - path: ${JSON.stringify(p)}\n`).join('')}`,
    );
  return { root, home };
}

const config = GlobalConfig.parse({});
const denyIn = (denied: string) => async (dir: string) => {
  if (dir === denied) throw Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' });
};

describe('doctor: watchers', () => {
  it('no watch entries: ok', async () => {
    const w = await world([]);
    expect(await watchCheck({ home: w.home, platform: 'linux' }, config)).toEqual({
      name: 'watchers',
      status: 'ok',
      message: 'no watched folders',
    });
  });

  it('a folder macOS keeps Rein out of fails, with the privacy settings to change', async () => {
    const w = await world([]);
    const downloads = join(w.root, 'Downloads');
    const notes = join(w.root, 'notes');
    await mkdir(downloads);
    await mkdir(notes);
    const again = await world([downloads, notes]);
    const c = await watchCheck({ home: again.home, platform: 'darwin', probe: denyIn(downloads) }, config);
    expect(c.status).toBe('fail');
    expect(c.message).toBe(
      `clerk: ${downloads} cannot be read (EPERM: operation not permitted) — not watched, as this process sees them`,
    );
    expect(c.hint).toContain('System Settings › Privacy & Security › Files and Folders, or Full Disk Access');
    // From a terminal, the terminal's access is what was checked: the hint says how to get the app's view.
    expect(c.hint).toContain('checked from this terminal');
  });

  it('a missing folder warns; readable ones are ok', async () => {
    const w = await world([]);
    const notes = join(w.root, 'notes');
    await mkdir(notes);
    const missing = await world([join(w.root, 'nowhere'), notes]);
    expect(await watchCheck({ home: missing.home, platform: 'linux' }, config)).toMatchObject({
      status: 'warn',
      message: `clerk: ${join(w.root, 'nowhere')} does not exist — not watched, as this process sees them`,
    });
    const fine = await world([notes]);
    expect(await watchCheck({ home: fine.home, platform: 'linux' }, config)).toEqual({
      name: 'watchers',
      status: 'ok',
      message: '1 watched folder readable, as this process sees them',
    });
  });
});
