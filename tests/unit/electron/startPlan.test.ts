/**
 * What `npm start` decides (scripts/startPlan.js): display or not, platform, the Electron binary
 * present or not, its download worked or failed. The download is electron's installer run as a child
 * process; here the installer is a stand-in script in a temp `electron` folder, so nothing is ever
 * downloaded, and a `fetch` that must not run throws.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FETCH_NOTE, hasDisplay, planStart, runInstaller } from '../../../scripts/startPlan.js';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temp `node_modules/electron`: with its binary or without, and with a stand-in install.js. */
function electronDir(o: { binary?: boolean; installer?: string } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'rein-electron-'));
  temps.push(dir);
  if (o.binary) {
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'electron'), '');
    writeFileSync(join(dir, 'path.txt'), 'electron');
  }
  if (o.installer !== undefined) writeFileSync(join(dir, 'install.js'), o.installer);
  return dir;
}

/** An installer that does what electron's does when it works: the binary under dist/, its name in path.txt. */
const WORKING_INSTALLER = `const { mkdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const here = __dirname;
mkdirSync(join(here, 'dist'), { recursive: true });
writeFileSync(join(here, 'dist', 'electron'), '');
writeFileSync(join(here, 'path.txt'), 'electron');
`;
const FAILING_INSTALLER = `console.error('HTTPError: Response code 404 (Not Found) for https://example.invalid/electron.zip');
console.error('    at Request._onResponse (got.js:1:1)');
process.exit(1);
`;

const noFetch = () => {
  throw new Error('fetch must not run here');
};

function plan(o: {
  platform: string;
  env?: Record<string, string>;
  dir: string;
  fetch?: () => ReturnType<typeof runInstaller>;
}) {
  const lines: string[] = [];
  const p = planStart({
    platform: o.platform,
    env: o.env ?? {},
    electronDir: o.dir,
    fetch: o.fetch ?? (() => runInstaller(join(o.dir, 'install.js'))),
    log: (l) => void lines.push(l),
  });
  return { plan: p, lines };
}

describe('hasDisplay', () => {
  it('macOS and Windows always; Linux only with X11 or Wayland', () => {
    expect(hasDisplay('darwin', {})).toBe(true);
    expect(hasDisplay('win32', {})).toBe(true);
    expect(hasDisplay('linux', {})).toBe(false);
    expect(hasDisplay('linux', { DISPLAY: ':0' })).toBe(true);
    expect(hasDisplay('linux', { WAYLAND_DISPLAY: 'wayland-0' })).toBe(true);
    expect(hasDisplay('linux', { DISPLAY: '' })).toBe(false);
  });
});

describe('planStart', () => {
  it('no display (a server): the daemon, and nothing is fetched even without a binary', () => {
    expect(plan({ platform: 'linux', dir: electronDir({ installer: WORKING_INSTALLER }), fetch: noFetch })).toEqual({
      plan: { kind: 'daemon', reason: 'no display' },
      lines: [],
    });
    expect(plan({ platform: 'linux', dir: electronDir({ binary: true }), fetch: noFetch }).plan).toEqual({
      kind: 'daemon',
      reason: 'no display',
    });
  });

  it('a display and the binary: the app, nothing fetched', () => {
    const dir = electronDir({ binary: true });
    for (const [platform, env] of [
      ['darwin', {}],
      ['linux', { DISPLAY: ':0' }],
    ] as const) {
      expect(plan({ platform, env, dir, fetch: noFetch })).toEqual({
        plan: { kind: 'app', binary: join(dir, 'dist', 'electron') },
        lines: [],
      });
    }
  });

  it("a binary whose sandbox cannot start here (Ubuntu 24.04's AppArmor): the daemon, with the fix printed", () => {
    const dir = electronDir({ binary: true });
    const seen: string[] = [];
    const p = planStart({
      platform: 'linux',
      env: { DISPLAY: ':0' },
      electronDir: dir,
      fetch: noFetch,
      log: () => undefined,
      sandboxProblem: (binary: string) => {
        seen.push(binary);
        return 'rein: chrome-sandbox is not root-owned\n  sudo chmod 4755 …';
      },
    });
    expect(seen).toEqual([join(dir, 'dist', 'electron')]);
    expect(p).toEqual({
      kind: 'daemon',
      reason: "Electron's sandbox cannot start on this system",
      failure: 'rein: chrome-sandbox is not root-owned\n  sudo chmod 4755 …',
    });
    // A sandbox that is fine changes nothing.
    expect(
      planStart({
        platform: 'linux',
        env: { DISPLAY: ':0' },
        electronDir: dir,
        fetch: noFetch,
        log: () => undefined,
        sandboxProblem: () => undefined,
      }),
    ).toEqual({
      kind: 'app',
      binary: join(dir, 'dist', 'electron'),
    });
  });

  it("a Mac without the binary (a fresh npm install): the one-line note, electron's installer, then the app", () => {
    const dir = electronDir({ installer: WORKING_INSTALLER });
    expect(plan({ platform: 'darwin', dir })).toEqual({
      plan: { kind: 'app', binary: join(dir, 'dist', 'electron') },
      lines: [FETCH_NOTE],
    });
    expect(FETCH_NOTE).toBe('Fetching the Electron binary (once, ~100 MB)…');
    // Once: the next start finds it.
    expect(plan({ platform: 'darwin', dir, fetch: noFetch }).plan.kind).toBe('app');
  });

  it('a Linux desktop without the binary fetches it too', () => {
    const dir = electronDir({ installer: WORKING_INSTALLER });
    expect(plan({ platform: 'linux', env: { WAYLAND_DISPLAY: 'wayland-0' }, dir }).plan).toEqual({
      kind: 'app',
      binary: join(dir, 'dist', 'electron'),
    });
  });

  it("a failed download: the daemon, with a sentence naming the installer's error and how to retry", () => {
    const { plan: p, lines } = plan({ platform: 'darwin', dir: electronDir({ installer: FAILING_INSTALLER }) });
    expect(lines).toEqual([FETCH_NOTE]);
    expect(p).toEqual({
      kind: 'daemon',
      reason: 'no Electron binary',
      failure:
        'The Electron binary could not be downloaded (HTTPError: Response code 404 (Not Found) for https://example.invalid/electron.zip). Check the network (or a proxy: HTTPS_PROXY), then run `node node_modules/electron/install.js` or `npm start` again.',
    });
  });

  it('an installer that is missing, or that leaves no binary, is a failed download too', () => {
    const missing = plan({ platform: 'darwin', dir: electronDir() }).plan;
    expect(missing).toMatchObject({ kind: 'daemon', reason: 'no Electron binary' });
    expect(missing.kind === 'daemon' && missing.failure).toMatch(
      /install\.js is missing \(is the electron package installed\? run npm install\)/,
    );
    const empty = plan({ platform: 'darwin', dir: electronDir({ installer: 'process.exit(0);\n' }) }).plan;
    expect(empty.kind === 'daemon' && empty.failure).toMatch(/\(the installer finished but left no binary\)/);
  });

  it("ELECTRON_SKIP_BINARY_DOWNLOAD (electron's own switch) keeps it from fetching", () => {
    const dir = electronDir({ installer: WORKING_INSTALLER });
    expect(plan({ platform: 'darwin', env: { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' }, dir, fetch: noFetch })).toEqual({
      plan: {
        kind: 'daemon',
        reason: 'no Electron binary; ELECTRON_SKIP_BINARY_DOWNLOAD is set, so it is not fetched',
      },
      lines: [],
    });
    expect(plan({ platform: 'darwin', env: { ELECTRON_SKIP_BINARY_DOWNLOAD: '0' }, dir }).plan.kind).toBe('app');
  });
});
