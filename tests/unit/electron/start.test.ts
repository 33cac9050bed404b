/**
 * `npm start` (scripts/start.js) everywhere: where Electron can run it builds and launches the desktop
 * app, fetching the Electron binary first when a display exists and it is missing; where it cannot, it
 * says so in one sentence and runs `rein daemon`, which serves the web UI and prints the URL to open.
 * The first test runs the real script in this project and a real daemon (in a temp REIN_HOME, on a free
 * port) and stops it again, with the download switched off (ELECTRON_SKIP_BINARY_DOWNLOAD: nothing is
 * ever downloaded by a test); the others run a copy of the scripts in a throwaway project whose
 * `electron` (and its install.js), `electron-vite` and `rein` are stand-ins that report how they were
 * called. The decision itself is tested in startPlan.test.ts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const START = join(ROOT, 'scripts', 'start.js');
const START_PLAN = join(ROOT, 'scripts', 'startPlan.js');
const SKIPPED = 'no Electron binary; ELECTRON_SKIP_BINARY_DOWNLOAD is set, so it is not fetched';
const sentence = (why: string) =>
  `Rein's desktop app cannot start here (${why}), so Rein runs as a daemon with its web UI instead: open the URL it prints below in a browser.`;

/** The environment of this process without any display variable. */
function envWithoutDisplay(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env['DISPLAY'];
  delete env['WAYLAND_DISPLAY'];
  return env;
}

const temps: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(check: () => T, what: string, ms = 60_000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 25));
  }
}

/**
 * A throwaway project holding scripts/start.js, with stand-ins that print how they were called: an
 * electron package (whose binary "exists" unless told otherwise), electron-vite, and a built `rein`.
 */
function fakeProject(opts: { electronBinary: boolean; installer?: 'fetches' | 'fails' }): string {
  const root = tempDir('rein-start-');
  mkdirSync(join(root, 'scripts'));
  copyFileSync(START, join(root, 'scripts', 'start.js'));
  copyFileSync(START_PLAN, join(root, 'scripts', 'startPlan.js'));
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }');
  const electron = join(root, 'node_modules', 'electron');
  mkdirSync(join(electron, 'dist'), { recursive: true });
  writeFileSync(join(electron, 'path.txt'), 'electron');
  const binary = `writeFileSync(${JSON.stringify(join(electron, 'dist', 'electron'))}, '#!/bin/sh\\necho "electron $*"\\n', { mode: 0o755 });\n`;
  if (opts.electronBinary) {
    writeFileSync(join(electron, 'dist', 'electron'), '#!/bin/sh\necho "electron $*"\n');
    chmodSync(join(electron, 'dist', 'electron'), 0o755);
  }
  // Stand-ins for electron's own installer: one that "downloads" the binary, one whose download fails.
  if (opts.installer === 'fetches')
    writeFileSync(
      join(electron, 'install.js'),
      `import { writeFileSync } from 'node:fs';\nconsole.log('installer ran');\n${binary}`,
    );
  if (opts.installer === 'fails') {
    writeFileSync(
      join(electron, 'install.js'),
      `console.error('RequestError: getaddrinfo ENOTFOUND github.com');\nconsole.error('    at ClientRequest.<anonymous> (x.js:1:1)');\nprocess.exit(1);\n`,
    );
  }
  mkdirSync(join(root, 'node_modules', 'electron-vite', 'bin'), { recursive: true });
  writeFileSync(
    join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'),
    'console.log(`electron-vite ${process.argv.slice(2).join(" ")}`);\n',
  );
  mkdirSync(join(root, 'bin'));
  writeFileSync(join(root, 'bin', 'rein.js'), 'console.log(`rein ${process.argv.slice(2).join(" ")}`);\n');
  mkdirSync(join(root, 'out', 'cli'), { recursive: true });
  writeFileSync(join(root, 'out', 'cli', 'rein.js'), '');
  mkdirSync(join(root, 'out', 'renderer'), { recursive: true });
  writeFileSync(join(root, 'out', 'renderer', 'index.html'), '');
  return root;
}

function runCopy(root: string, env: NodeJS.ProcessEnv, args: string[] = []) {
  return spawnSync(process.execPath, [join(root, 'scripts', 'start.js'), ...args], {
    cwd: root,
    env,
    encoding: 'utf8',
  });
}

describe('npm start without a usable Electron', () => {
  it('says why in one sentence, starts the daemon with the web UI and prints its URL; stopping npm start stops the daemon', async () => {
    const home = tempDir('rein-start-home-');
    writeFileSync(join(home, 'config.yaml'), 'daemon:\n  port: 0\n');
    const child = spawn(process.execPath, [START], {
      cwd: ROOT,
      env: envWithoutDisplay({ REIN_HOME: home, CI: '', ELECTRON_SKIP_BINARY_DOWNLOAD: '1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((ok) => child.on('exit', (code) => ok(code)));

    const url = await until(
      () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1],
      `the daemon's URL (stdout: ${out}, stderr: ${err})`,
    );
    expect(out.split('\n')[0]).toMatch(
      /^Rein's desktop app cannot start here \((no Electron binary; ELECTRON_SKIP_BINARY_DOWNLOAD is set, so it is not fetched|no display)\), so Rein runs as a daemon with its web UI instead: open the URL it prints below in a browser\.$/,
    );
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    const info = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')) as { pid: number };
    expect(isAlive(info.pid)).toBe(true);

    child.kill('SIGTERM');
    await exited;
    await until(() => !isAlive(info.pid), 'the daemon to exit', 15_000);
    expect(existsSync(join(home, 'daemon.json'))).toBe(false);
  }, 180_000);

  it.runIf(process.platform === 'linux')(
    'says "no display" on Linux when Electron is installed but no display is set, and passes arguments to rein daemon',
    () => {
      const root = fakeProject({ electronBinary: true });
      const r = runCopy(root, envWithoutDisplay(), ['--port', '0']);
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`${sentence('no display')}\nrein daemon --port 0\n`);
      expect(r.stderr).toBe('');
    },
  );

  it.runIf(process.platform === 'linux')('fetches nothing without a display, even with no Electron binary', () => {
    const root = fakeProject({ electronBinary: false, installer: 'fetches' });
    const r = runCopy(root, envWithoutDisplay());
    expect(r.stdout).toBe(`${sentence('no display')}\nrein daemon\n`);
    expect(existsSync(join(root, 'node_modules', 'electron', 'dist', 'electron'))).toBe(false);
  });

  it('with a display and a failed download: the note, one sentence why and how to retry, then the daemon', () => {
    const root = fakeProject({ electronBinary: false, installer: 'fails' });
    const r = runCopy(root, { ...envWithoutDisplay(), DISPLAY: ':99' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      'Fetching the Electron binary (once, ~100 MB)…\n' +
        'The Electron binary could not be downloaded (RequestError: getaddrinfo ENOTFOUND github.com). Check the network (or a proxy: HTTPS_PROXY), then run `node node_modules/electron/install.js` or `npm start` again.\n' +
        `${sentence('no Electron binary')}\nrein daemon\n`,
    );
  });

  it('ELECTRON_SKIP_BINARY_DOWNLOAD keeps it from fetching', () => {
    const root = fakeProject({ electronBinary: false, installer: 'fetches' });
    const r = runCopy(root, { ...envWithoutDisplay(), DISPLAY: ':99', ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    expect(r.stdout).toBe(`${sentence(SKIPPED)}\nrein daemon\n`);
  });

  it('builds the web UI first when it has not been built', () => {
    const root = fakeProject({ electronBinary: false });
    rmSync(join(root, 'out', 'renderer'), { recursive: true });
    const r = runCopy(root, { ...envWithoutDisplay(), ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
    expect(r.stdout).toBe(
      `${sentence(process.platform === 'linux' ? 'no display' : SKIPPED)}\nelectron-vite build --logLevel warn\nrein daemon\n`,
    );
  });
});

describe('npm start with Electron and a display', () => {
  it.runIf(process.platform !== 'win32')('builds the desktop app and launches it, passing arguments on', () => {
    const root = fakeProject({ electronBinary: true });
    const r = runCopy(root, { ...envWithoutDisplay(), DISPLAY: ':99' }, ['--headless']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('electron-vite build\nelectron . --headless\n');
  });

  it.runIf(process.platform !== 'win32')(
    "fetches a missing binary with electron's installer, once, then launches the app",
    () => {
      const root = fakeProject({ electronBinary: false, installer: 'fetches' });
      const r = runCopy(root, { ...envWithoutDisplay(), DISPLAY: ':99' });
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(
        'Fetching the Electron binary (once, ~100 MB)…\ninstaller ran\nelectron-vite build\nelectron .\n',
      );
      const again = runCopy(root, { ...envWithoutDisplay(), DISPLAY: ':99' });
      expect(again.stdout).toBe('electron-vite build\nelectron .\n');
    },
  );
});
