// A process that did not start from a terminal (the app opened from the Finder, a daemon started by
// launchd) has launchd's minimal PATH. Rein asks the login shell once, as terminal apps do, and hands
// that PATH to the plists it writes and to its runs' tools; a shell that fails or hangs gives the
// fallback of well-known folders.
import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { childEnvironment } from '../../../src-main/core/process/childEnv.js';
import {
  loginShellPath,
  pathToHandOn,
  primeLoginPath,
  readLoginShellPath,
  resetLoginPathCache,
  userShell,
} from '../../../src-main/core/process/loginPath.js';
import {
  fallbackPath,
  isMinimalPath,
  knownLoginPath,
  LAUNCHD_DEFAULT_PATH,
  pathEntries,
  terminalPath,
} from '../../../src-main/core/process/terminalPath.js';
import { createLaunchctl } from '../../../src-main/core/schedule/launchctl.js';
import { launchdJobs } from '../../../src-main/core/schedule/launchdJobs.js';
import { parsePlist } from '../../../src-main/core/schedule/launchdPlist.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

const FAKE_LAUNCHCTL = join(import.meta.dirname, '..', '..', 'fixtures', 'schedule', 'fake-launchctl.mjs');

let dir: string;
let home: string;
/** Where the Homebrew of the fake shell's profile lives. */
let brewBin: string;

beforeEach(async () => {
  resetLoginPathCache();
  dir = await mkdtemp(join(tmpdir(), 'rein-loginpath-'));
  home = join(dir, 'home');
  brewBin = join(dir, 'homebrew', 'bin');
  await mkdir(home, { recursive: true });
  await mkdir(brewBin, { recursive: true });
});
afterEach(async () => {
  resetLoginPathCache();
  await rm(dir, { recursive: true, force: true });
});

/** A login shell: logs how it was called, prints rc-file noise around what -c runs, sets PATH like a profile. */
async function noisyShell(): Promise<string> {
  const file = join(dir, 'fake-zsh');
  await writeFile(
    file,
    [
      '#!/bin/sh',
      `printf '%s\\n' "$*" >> "${join(dir, 'calls.log')}"`,
      'echo "Last login: Mon Dec  1 09:00:00 on ttys001"',
      'echo "PATH=/not/this/one"',
      'echo "oh-my-zsh: update available" >&2',
      `PATH="${brewBin}:/usr/local/bin:/usr/bin:/bin:relative/dir"; export PATH`,
      // -l -i -c SCRIPT: run SCRIPT as the real shell would, then more noise.
      '[ "$1" = -l ] && [ "$2" = -i ] && [ "$3" = -c ] || exit 64',
      '/bin/sh -c "$4"',
      'echo "bye from .zlogout"',
    ].join('\n'),
  );
  await chmod(file, 0o755);
  return file;
}

async function script(name: string, body: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

const calls = async () => (await readFile(join(dir, 'calls.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean);

describe('which PATH is minimal', () => {
  it.each([
    [LAUNCHD_DEFAULT_PATH, true],
    ['/bin:/usr/bin:/sbin:/usr/sbin', true],
    ['/usr/bin:/bin:/usr/sbin:/sbin:', true],
    ['', true],
    [undefined, true],
    ['/usr/bin:/bin', false],
    [`/opt/homebrew/bin:${LAUNCHD_DEFAULT_PATH}`, false],
  ])('%s → %s', (path, minimal) => expect(isMinimalPath(path)).toBe(minimal));

  it('keeps absolute folders only, each once', () => {
    expect(pathEntries('/a:/b/:.::rel:/a:/')).toEqual(['/a', '/b', '/']);
  });
});

describe('asking the login shell', () => {
  it('reads PATH between its markers, past rc-file noise on stdout and stderr, as -l -i -c', async () => {
    const shell = await noisyShell();
    const r = await readLoginShellPath({ env: { SHELL: shell, HOME: home, PATH: LAUNCHD_DEFAULT_PATH } });
    expect(r).toEqual({
      source: 'login_shell',
      shell,
      path: `${brewBin}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`,
    });
    expect((await calls())[0]).toMatch(/^-l -i -c printf/);
  });

  it('reads a real bash profile (bash -l -i reads ~/.bash_profile, which sources ~/.bashrc)', async () => {
    const bash = ['/bin/bash', '/usr/bin/bash'].find((b) => spawnSync(b, ['-c', 'true']).status === 0);
    if (!bash) return;
    await writeFile(join(home, '.bash_profile'), `echo "welcome"\nexport PATH="${brewBin}:$PATH"\n. "$HOME/.bashrc"\n`);
    await writeFile(join(home, '.bashrc'), 'echo "rc says hi"\nexport PATH="$HOME/.local/bin:$PATH"\n');
    const r = await readLoginShellPath({ env: { SHELL: bash, HOME: home, PATH: LAUNCHD_DEFAULT_PATH } });
    expect(r.source).toBe('login_shell');
    expect(pathEntries(r.path).slice(0, 2)).toEqual([join(home, '.local', 'bin'), brewBin]);
  });

  it('a shell that hangs is stopped after the timeout, with its children, and the fallback is used', async () => {
    await mkdir(join(home, '.local', 'bin'), { recursive: true });
    // Reading stdin would return at once (/dev/null); this one waits on a child of its own.
    const shell = await script('hanging-shell', 'sleep 30 & wait');
    const r = await readLoginShellPath({
      env: { SHELL: shell, HOME: home, PATH: LAUNCHD_DEFAULT_PATH },
      timeoutMs: 300,
    });
    expect(r.source).toBe('fallback');
    expect(r.problem).toMatch(/did not answer within 300 ms/);
    // The fallback: the well-known folders that exist (this HOME's ~/.local/bin among them), then the current PATH.
    expect(r.path).toBe(fallbackPath({ HOME: home, PATH: LAUNCHD_DEFAULT_PATH }));
    expect(pathEntries(r.path)).toContain(join(home, '.local', 'bin'));
    expect(pathEntries(r.path)).not.toContain(join(home, '.cargo', 'bin'));
    expect(r.path.endsWith(LAUNCHD_DEFAULT_PATH)).toBe(true);
  });

  it('a shell that prints no PATH, or cannot be started, gives the fallback and says why', async () => {
    const silent = await script('silent-shell', 'echo "no path here"; exit 1');
    const a = await readLoginShellPath({ env: { SHELL: silent, HOME: home, PATH: LAUNCHD_DEFAULT_PATH } });
    expect(a).toMatchObject({ source: 'fallback', problem: expect.stringMatching(/printed no PATH \(exit 1\)/) });
    const b = await readLoginShellPath({
      env: { SHELL: join(dir, 'no-such-shell'), HOME: home, PATH: LAUNCHD_DEFAULT_PATH },
    });
    expect(b).toMatchObject({ source: 'fallback', problem: expect.stringMatching(/could not be started/) });
  });

  it("without SHELL, asks the account's shell; with neither, the fallback", async () => {
    const shell = await noisyShell();
    expect(userShell({}, () => shell)).toBe(shell);
    expect(userShell({ SHELL: 'zsh' }, () => undefined)).toBeUndefined();
    const r = await readLoginShellPath({ env: { HOME: home, PATH: LAUNCHD_DEFAULT_PATH }, accountShell: () => shell });
    expect(r.source).toBe('login_shell');
    const none = await readLoginShellPath({
      env: { HOME: home, PATH: LAUNCHD_DEFAULT_PATH },
      accountShell: () => undefined,
    });
    expect(none).toMatchObject({ source: 'fallback', problem: expect.stringMatching(/no login shell/) });
  });

  it('asks once per process; what it said is kept for children started later', async () => {
    const shell = await noisyShell();
    const env = { SHELL: shell, HOME: home, PATH: LAUNCHD_DEFAULT_PATH };
    expect(knownLoginPath()).toBeUndefined();
    const [a, b] = await Promise.all([loginShellPath({ env }), loginShellPath({ env })]);
    const c = await loginShellPath({ env });
    expect(a).toBe(b);
    expect(c).toBe(a);
    expect(await calls()).toHaveLength(1);
    expect(knownLoginPath()).toBe(a.path);
  });

  it('a process started with the minimal PATH reads it in the background at start (primeLoginPath); one from a terminal does not', async () => {
    const shell = await noisyShell();
    primeLoginPath({ SHELL: shell, HOME: home, PATH: '/opt/tools/bin:/usr/bin' });
    primeLoginPath({ SHELL: shell, HOME: home, PATH: LAUNCHD_DEFAULT_PATH });
    // The prime's answer is the one every later caller gets: the shell ran once.
    const r = await loginShellPath({ env: { SHELL: shell, HOME: home, PATH: LAUNCHD_DEFAULT_PATH } });
    expect(r.source).toBe('login_shell');
    expect(await calls()).toHaveLength(1);
    expect(knownLoginPath()).toBe(r.path);
  });

  it("hands on a terminal's PATH as it is, without asking", async () => {
    const shell = await noisyShell();
    expect(await pathToHandOn({ SHELL: shell, HOME: home, PATH: '/opt/tools/bin:/usr/bin:/bin' })).toBe(
      '/opt/tools/bin:/usr/bin:/bin',
    );
    expect(await calls()).toHaveLength(0);
  });
});

describe("the children's PATH", () => {
  it("a minimal PATH becomes the login shell's once known, else the fallback; any other PATH passes as it is", async () => {
    await mkdir(join(home, '.local', 'bin'), { recursive: true });
    const base = { HOME: home, PATH: LAUNCHD_DEFAULT_PATH };
    expect(childEnvironment(base).PATH).toBe(fallbackPath(base));
    expect(pathEntries(childEnvironment(base).PATH!)).toContain(join(home, '.local', 'bin'));
    expect(terminalPath({ HOME: home, PATH: '/x/bin:/usr/bin' })).toBe('/x/bin:/usr/bin');
    expect(childEnvironment({ HOME: home, PATH: '/usr/bin:/bin' }).PATH).toBe('/usr/bin:/bin');
    expect(childEnvironment({ HOME: home }).PATH).toBeUndefined();

    const shell = await noisyShell();
    const told = await loginShellPath({ env: { ...base, SHELL: shell } });
    expect(childEnvironment(base).PATH).toBe(told.path);
    // A real child finds the program on it.
    await writeFile(join(brewBin, 'gh'), '#!/bin/sh\necho "gh version 2.0 (fake)"\n');
    await chmod(join(brewBin, 'gh'), 0o755);
    const out = spawnSync('/bin/sh', ['-c', 'gh'], { env: childEnvironment(base), encoding: 'utf8' });
    expect(out.stdout.trim()).toBe('gh version 2.0 (fake)');
  });
});

describe('a schedule made by a process with the minimal PATH', () => {
  async function jobsFor(env: NodeJS.ProcessEnv) {
    const state = join(dir, 'launchctl-state');
    await mkdir(state, { recursive: true });
    const wrapper = await script('launchctl', `exec "${process.execPath}" "${FAKE_LAUNCHCTL}" "$@"`);
    const full = {
      ...env,
      REIN_LAUNCHCTL: wrapper,
      FAKE_LAUNCHCTL_DIR: state,
      REIN_LAUNCH_AGENTS_DIR: join(dir, 'LaunchAgents'),
    };
    const jobs = launchdJobs({
      home: join(dir, 'rein'),
      env: full,
      program: () => ['/usr/local/bin/node', '/opt/rein/bin/rein.js'],
      launchd: createLaunchctl({ env: full, uid: 501, pollMs: 5 }),
    });
    const at = new Date().toISOString();
    await jobs.apply({
      id: 'a1b2c3d4',
      agent: 'default',
      cron: '0 9 * * *',
      prompt: 'check CI',
      enabled: true,
      created_at: at,
      updated_at: at,
    });
    const xml = await readFile(join(dir, 'LaunchAgents', 'dev.rein.schedule.a1b2c3d4.plist'), 'utf8');
    return (parsePlist(xml) as { EnvironmentVariables: Record<string, string> }).EnvironmentVariables;
  }

  it("gets the login shell's PATH in its plist, and a child with only the plist's environment finds Homebrew's programs", async () => {
    const shell = await noisyShell();
    const vars = await jobsFor({ SHELL: shell, HOME: home, PATH: LAUNCHD_DEFAULT_PATH });
    expect(vars.PATH).toBe(`${brewBin}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`);
    await writeFile(join(brewBin, 'gh'), '#!/bin/sh\necho "gh from homebrew"\n');
    await chmod(join(brewBin, 'gh'), 0o755);
    const out = spawnSync('/bin/sh', ['-c', 'gh'], { env: vars, encoding: 'utf8' });
    expect(out.stdout.trim()).toBe('gh from homebrew');
  });

  it('gets the fallback when the login shell hangs', async () => {
    await mkdir(join(home, '.local', 'bin'), { recursive: true });
    const shell = await script('hanging-shell', 'sleep 30 & wait');
    resetLoginPathCache();
    // The default timeout (3 s) applies here: the plist waits for it once.
    const vars = await jobsFor({ SHELL: shell, HOME: home, PATH: LAUNCHD_DEFAULT_PATH });
    expect(vars.PATH).toBe(fallbackPath({ HOME: home, PATH: LAUNCHD_DEFAULT_PATH }));
    expect(pathEntries(vars.PATH!)).toContain(join(home, '.local', 'bin'));
  }, 15_000);

  it("keeps a terminal's PATH (a schedule made with `rein schedule add`)", async () => {
    const shell = await noisyShell();
    const vars = await jobsFor({ SHELL: shell, HOME: home, PATH: `/opt/tools/bin:${LAUNCHD_DEFAULT_PATH}` });
    expect(vars.PATH).toBe(`/opt/tools/bin:${LAUNCHD_DEFAULT_PATH}`);
    expect(await calls()).toHaveLength(0);
  });
});
