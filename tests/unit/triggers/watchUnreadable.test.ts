/**
 * A watched folder this process may not read is reported, never watched blind: its state, a warning, one
 * `watch_status` event, and it is watched once access is given. The probe is injected where the test
 * needs a folder to refuse on demand (macOS privacy settings give EPERM; there is no TCC here); the real
 * probe is checked against a folder this process really cannot read.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DaemonEvent } from '../../../src-main/core/api/events.js';
import { WatcherManager } from '../../../src-main/core/triggers/index.js';
import { folderAccess, unreadableHint } from '../../../src-main/core/util/folderAccess.js';
import { useLeakCheck } from '../../support/leaks.js';
import { FakeHost, sleep, tempDirs, writeAgent } from './support.js';

useLeakCheck();
const dirs = tempDirs('rein-watch-denied-');
let managers: WatcherManager[] = [];

afterEach(async () => {
  for (const m of managers) await m.dispose();
  managers = [];
});

/** EPERM as macOS gives it for a folder the app is not allowed into. */
function eperm(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EPERM: operation not permitted, opendir '${path}'`), {
    code: 'EPERM',
    errno: -1,
    syscall: 'opendir',
    path,
  });
}

async function folder(...parts: string[]): Promise<string> {
  const dir = join(dirs.root, ...parts);
  await mkdir(dir, { recursive: true });
  return realpathSync(dir);
}

const watchStatus = (host: FakeHost) =>
  host.published.filter((e): e is Extract<DaemonEvent, { type: 'watch_status' }> => e.type === 'watch_status');

describe('a watched folder that cannot be read', () => {
  it('is unreadable with the reason and what to do, said once, announced once, and watched when access comes', async () => {
    const downloads = await folder('Downloads');
    const notes = await folder('notes');
    await writeAgent(dirs.home, 'clerk', {
      config: `watch:\n  - path: ${JSON.stringify(downloads)}\n    debounce: 100\n  - path: ${JSON.stringify(notes)}\n    debounce: 100\n`,
    });
    const host = new FakeHost(dirs.home);
    const warnings: string[] = [];
    let denied = true;
    const m = new WatcherManager(host, {
      rescanMs: 0,
      platform: 'darwin',
      warn: (w) => warnings.push(w),
      probe: async (dir) => {
        if (denied && dir === downloads) throw eperm(dir);
      },
    });
    managers.push(m);
    await m.start();
    await m.ready();

    expect(m.roots).toEqual([notes]);
    expect(m.status('clerk')).toEqual([
      {
        agent: 'clerk',
        path: downloads,
        state: 'unreadable',
        reason: `${downloads} cannot be read (EPERM: operation not permitted)`,
        hint: unreadableHint('darwin'),
      },
      { agent: 'clerk', path: notes, state: 'watching' },
    ]);
    expect(unreadableHint('darwin')).toContain('System Settings › Privacy & Security');
    expect(unreadableHint('darwin')).toContain('Full Disk Access');
    expect(watchStatus(host)).toEqual([
      {
        type: 'watch_status',
        at: expect.any(String),
        agent: 'clerk',
        path: downloads,
        state: 'unreadable',
        reason: `${downloads} cannot be read (EPERM: operation not permitted)`,
        hint: unreadableHint('darwin'),
      },
    ]);
    expect(warnings.filter((w) => w.includes(downloads))).toEqual([
      expect.stringContaining('is not watched: it cannot be read (EPERM)'),
    ]);

    // Rescans while nothing changed: no new warning, no new event.
    await m.refresh();
    await m.refresh();
    expect(watchStatus(host)).toHaveLength(1);
    expect(warnings.filter((w) => w.includes(downloads))).toHaveLength(1);

    // Access given (System Settings): the next rescan watches it and says so.
    denied = false;
    await m.refresh();
    await m.ready();
    await sleep(100);
    expect(m.roots).toEqual([downloads, notes]);
    expect(m.status('clerk')[0]).toEqual({ agent: 'clerk', path: downloads, state: 'watching' });
    expect(watchStatus(host).map((e) => e.state)).toEqual(['unreadable', 'watching']);
    await writeFile(join(downloads, 'invoice.pdf'), 'x');
    const [run] = await host.waitForRuns(1);
    expect(run!.request.text).toContain(join(downloads, 'invoice.pdf'));
  });

  it('a watch entry removed from the config takes its state with it; a missing folder is its own state', async () => {
    const gone = join(dirs.root, 'not-there');
    const host = new FakeHost(dirs.home);
    await writeAgent(dirs.home, 'clerk', { config: `watch:\n  - path: ${JSON.stringify(gone)}\n` });
    const m = new WatcherManager(host, { rescanMs: 0 });
    managers.push(m);
    await m.start();
    expect(m.status()).toEqual([{ agent: 'clerk', path: gone, state: 'missing', reason: `${gone} does not exist` }]);
    await writeAgent(dirs.home, 'clerk', { config: 'watch: []\n' });
    await m.refresh('clerk');
    expect(m.status()).toEqual([]);
  });

  it('the real probe: a folder this process may not list is unreadable (EACCES), not missing', async () => {
    const locked = await folder('locked');
    await writeFile(join(locked, 'inside.txt'), 'x');
    await chmod(locked, 0o000);
    const isRoot = process.getuid?.() === 0;
    // The folders above it may be passed through (mkdtemp makes the temp root 0700): only `locked` refuses.
    await chmod(dirs.root, 0o711);
    // Root reads any folder whatever its mode: the check runs with the effective user dropped to nobody
    // (the real user stays root, so it can come back), the way the folder would refuse a normal user.
    if (isRoot) process.seteuid!(65534);
    let access;
    try {
      access = await folderAccess(locked);
    } finally {
      if (isRoot) process.seteuid!(0);
      await chmod(locked, 0o755);
    }
    expect(access).toEqual({
      ok: false,
      kind: 'unreadable',
      code: 'EACCES',
      reason: `${locked} cannot be read (EACCES: permission denied)`,
    });
    expect(await folderAccess(locked)).toEqual({ ok: true, real: locked });
    expect(await folderAccess(join(locked, 'inside.txt'))).toMatchObject({ ok: false, kind: 'not_a_folder' });
  });
});
