/**
 * `$REIN_HOME/bin/rein-launch`, run for real with nothing but the environment a plist gives it: it
 * finds node after the recorded one went (a Homebrew upgrade, nvm), and when Rein's own script is gone
 * it says so on stderr and records the failure as the schedule's last run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, statSync } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  LAUNCHER_SCRIPT,
  ensureLauncher,
  launcherPath,
  stableNodePath,
} from '../../../src-main/core/schedule/launcher.js';
import { ScheduleStore } from '../../../src-main/core/schedule/store.js';
import { withFileLock } from '../../../src-main/core/util/fileLock.js';

let dir: string;
let home: string;
let launcher: string;
/** A stand-in for Rein's bin/rein.js: prints how it was started. */
let entry: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-launcher-'));
  home = join(dir, 'home');
  launcher = await ensureLauncher(home);
  entry = join(dir, 'rein.js');
  await writeFile(
    entry,
    'console.log(JSON.stringify({ node: process.execPath, args: process.argv.slice(2), path: process.env.PATH ?? null }));\n',
  );
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A node of our own: a link to this one (or a copy), so its path is ours to rename. */
async function ownNode(path: string): Promise<string> {
  await mkdir(join(path, '..'), { recursive: true });
  await link(process.execPath, path).catch(() => copyFile(process.execPath, path));
  chmodSync(path, 0o755);
  return path;
}

/** Runs the launcher as launchd would: from /, with exactly `env`. */
function launch(args: string[], env: Record<string, string>) {
  const r = spawnSync(launcher, args, { env, cwd: '/', encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// No fixed links (this machine's /usr/local/bin/node would answer first) and no PATH to search.
const BARE = { REIN_LAUNCH_NODE_LINKS: '/nonexistent/node', PATH: '/nonexistent' };

describe('the launcher file', () => {
  it('is written 0700 under REIN_HOME/bin, once; a changed or loosened copy is rewritten', async () => {
    expect(launcher).toBe(launcherPath(home));
    expect(statSync(launcher).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, 'bin')).mode & 0o777).toBe(0o700);
    expect(await readFile(launcher, 'utf8')).toBe(LAUNCHER_SCRIPT);
    const before = statSync(launcher).ino;
    await ensureLauncher(home);
    expect(statSync(launcher).ino).toBe(before); // unchanged: not rewritten
    await writeFile(launcher, '#!/bin/sh\necho tampered\n');
    chmodSync(launcher, 0o755);
    await ensureLauncher(home);
    expect(await readFile(launcher, 'utf8')).toBe(LAUNCHER_SCRIPT);
    expect(statSync(launcher).mode & 0o777).toBe(0o700);
    // POSIX sh, nothing bash-only.
    expect(spawnSync('sh', ['-n', launcher]).status).toBe(0);
  });
});

describe('finding node at run time', () => {
  it('uses the recorded node while it is there, and passes the arguments on unchanged', async () => {
    const node = await ownNode(join(dir, 'node-a', 'node'));
    const r = launch([node, entry, 'schedule', 'run', 'a1b2c3d4', '--from-launchd'], { ...BARE });
    expect(r.code, r.stderr).toBe(0);
    // Rein gets the job's PATH as the plist gave it (the script's own additions stay its own).
    expect(JSON.parse(r.stdout)).toEqual({
      node,
      args: ['schedule', 'run', 'a1b2c3d4', '--from-launchd'],
      path: '/nonexistent',
    });
    const noPath = launch([node, entry], { REIN_LAUNCH_NODE_LINKS: '/nonexistent/node' });
    expect(JSON.parse(noPath.stdout).path).toBeNull();
  });

  it("after a Homebrew upgrade renamed the Cellar folder: the formula's bin/node link", async () => {
    const prefix = join(dir, 'brew');
    const old = await ownNode(join(prefix, 'Cellar', 'node', '20.1', 'bin', 'node'));
    await mkdir(join(prefix, 'bin'));
    await symlink('../Cellar/node/20.1/bin/node', join(prefix, 'bin', 'node'));
    await rename(join(prefix, 'Cellar', 'node', '20.1'), join(prefix, 'Cellar', 'node', '20.2'));
    await rm(join(prefix, 'bin', 'node'));
    await symlink('../Cellar/node/20.2/bin/node', join(prefix, 'bin', 'node'));
    expect(existsSync(old)).toBe(false);
    const r = launch([old, entry, 'schedule', '--help'], { ...BARE });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).args).toEqual(['schedule', '--help']);
    expect(launch(['--check', old, entry], { ...BARE }).stdout).toContain(`node: ${join(prefix, 'bin', 'node')} (v`);
  });

  it('then the fixed links in order (REIN_LAUNCH_NODE_LINKS stands in for them here)', async () => {
    const second = await ownNode(join(dir, 'usr-local', 'node'));
    const r = launch(['--check', join(dir, 'gone', 'node'), entry], {
      ...BARE,
      REIN_LAUNCH_NODE_LINKS: `${join(dir, 'opt-homebrew', 'node')}:${second}`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`node: ${second} (v`);
  });

  it("then nvm's default alias, followed through aliases, to the newest matching version (v20.10 after v20.9)", async () => {
    const nvm = join(dir, '.nvm');
    for (const v of ['v18.20.1', 'v20.9.0', 'v20.10.0']) await ownNode(join(nvm, 'versions', 'node', v, 'bin', 'node'));
    await mkdir(join(nvm, 'alias', 'lts'), { recursive: true });
    await writeFile(join(nvm, 'alias', 'default'), 'lts/iron\n');
    await writeFile(join(nvm, 'alias', 'lts', 'iron'), '20\n');
    // The job's node was an nvm node since uninstalled: nvm's folder comes from its path, no HOME needed.
    const recorded = join(nvm, 'versions', 'node', 'v19.0.0', 'bin', 'node');
    let r = launch(['--check', recorded, entry], { ...BARE });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`node: ${join(nvm, 'versions', 'node', 'v20.10.0', 'bin', 'node')} (v`);
    // Or from HOME, when the job's node was not nvm's.
    await writeFile(join(nvm, 'alias', 'default'), 'v18.20.1\n');
    r = launch(['--check', '/gone/node', entry], { ...BARE, HOME: dir });
    expect(r.stdout).toContain(`node: ${join(nvm, 'versions', 'node', 'v18.20.1', 'bin', 'node')} (v`);
  });

  it('then `command -v node` on the plist PATH and the usual folders', async () => {
    const bin = join(dir, 'path-bin');
    await ownNode(join(bin, 'node'));
    const r = launch(['--check', '/gone/node', entry], { REIN_LAUNCH_NODE_LINKS: '/nonexistent/node', PATH: bin });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`node: ${join(bin, 'node')} (v`);
  });

  it('no node at all: exit 127 and what to do, on stderr (launchd.err.log)', () => {
    const r = launch(['/gone/node', entry, 'schedule', 'run', 'a1b2c3d4', '--from-launchd'], {
      ...BARE,
      REIN_HOME: home,
    });
    expect(r.code).toBe(127);
    expect(r.stderr).toMatch(
      /rein-launch: no node to run Rein with: \/gone\/node is gone .*brew install node.*rein schedule sync/,
    );
  });
});

describe("when Rein's script is gone", () => {
  it('says so, and records it as the schedule’s last run (under the store’s lock)', async () => {
    const store = new ScheduleStore(home);
    const s = await store.create({ cron: '@daily', prompt: 'check CI' });
    const gone = join(dir, 'moved-away', 'bin', 'rein.js');
    // The store is busy at that moment (another run, a CLI): the launcher waits for the lock.
    let released = false;
    const holder = withFileLock(store.file, async () => {
      await new Promise((r) => setTimeout(r, 400));
      released = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(launcher, [process.execPath, gone, 'schedule', 'run', s.id, '--from-launchd'], {
        env: { ...BARE, REIN_HOME: home },
        cwd: '/',
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    await holder;
    expect(released).toBe(true);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`rein-launch: Rein's script ${gone} is gone`);
    expect(r.stderr).toContain('rein schedule sync');
    // The store still validates, and says why the run failed.
    const after = await store.get(s.id);
    expect(after.last_run).toMatchObject({
      status: 'failed',
      trigger: 'launchd',
      message: expect.stringContaining(`${gone} is gone`),
    });
    expect(after.prompt).toBe('check CI');
    expect(existsSync(`${store.file}.lock`)).toBe(false);
  });

  it('--check says so without recording anything', async () => {
    const store = new ScheduleStore(home);
    const s = await store.create({ cron: '@daily', prompt: 'x' });
    const r = launch(['--check', process.execPath, join(dir, 'nope.js'), 'schedule', 'run', s.id], {
      ...BARE,
      REIN_HOME: home,
    });
    expect(r.code).toBe(1);
    expect((await store.get(s.id)).last_run).toBeUndefined();
  });
});

describe('the node a job records', () => {
  const fs = (links: Record<string, string>, files: string[]) => ({
    exists: (p: string) => p in links || files.includes(p),
    realpath: (p: string) => links[p] ?? (files.includes(p) ? p : undefined),
  });

  it("Homebrew's Cellar node becomes its stable link when the link leads to it", () => {
    const cellar = '/opt/homebrew/Cellar/node/20.11.1/bin/node';
    expect(stableNodePath(cellar, fs({ '/opt/homebrew/bin/node': cellar }, [cellar]))).toBe('/opt/homebrew/bin/node');
    // Keg-only node@20: no bin/node, its opt link.
    const keg = '/usr/local/Cellar/node@20/20.11.1/bin/node';
    expect(stableNodePath(keg, fs({ '/usr/local/opt/node@20/bin/node': keg }, [keg]))).toBe(
      '/usr/local/opt/node@20/bin/node',
    );
    // bin/node leads to another formula's node: keep what runs now (the launcher copes later).
    expect(stableNodePath(keg, fs({ '/usr/local/bin/node': '/usr/local/Cellar/node/21.0.0/bin/node' }, [keg]))).toBe(
      keg,
    );
  });

  it('anything else is kept (nvm has no stable link: the launcher finds one at run time)', () => {
    expect(stableNodePath('/Users/ada/.nvm/versions/node/v20.11.1/bin/node', fs({}, []))).toBe(
      '/Users/ada/.nvm/versions/node/v20.11.1/bin/node',
    );
    expect(stableNodePath('/usr/bin/node', fs({}, ['/usr/bin/node']))).toBe('/usr/bin/node');
  });

  it('on a real fake Homebrew layout', async () => {
    const prefix = join(dir, 'brew');
    const cellar = await ownNode(join(prefix, 'Cellar', 'node', '20.1', 'bin', 'node'));
    await mkdir(join(prefix, 'bin'));
    await symlink('../Cellar/node/20.1/bin/node', join(prefix, 'bin', 'node'));
    expect(stableNodePath(cellar)).toBe(join(prefix, 'bin', 'node'));
  });
});

describe.runIf(process.platform === 'darwin')('on this Mac', () => {
  it("this node is recorded by a link that outlives `brew upgrade` when Homebrew's bin/node leads to it", () => {
    const recorded = stableNodePath(process.execPath);
    expect(existsSync(recorded)).toBe(true);
    const prefix = process.execPath.split('/Cellar/')[0]!;
    if (process.execPath.includes('/Cellar/') && existsSync(join(prefix, 'bin', 'node')))
      expect(recorded).not.toContain('/Cellar/');
    // The launcher finds it with launchd's bare PATH.
    expect(launch(['--check', recorded, entry], { PATH: '/usr/bin:/bin:/usr/sbin:/sbin' }).code).toBe(0);
  });
});
