// What `npm start` (scripts/start.js) does on this machine, decided apart from doing it so the choice
// can be tested without a display, a download or an Electron binary.
//
// - No display (a Linux server, a container, CI): `rein daemon` with the web UI. Nothing is downloaded.
// - A display and the Electron binary: the desktop app.
// - A display and no binary: electron 45 has no install script of its own (it fetches its binary the
//   first time the package is loaded, and start.js never loads it), so a fresh `npm install` on a Mac
//   has none. It is fetched here, once, by electron's own installer (node_modules/electron/install.js)
//   in a child process; if that fails, one sentence says why and how to retry, and the daemon starts
//   as on a server. ELECTRON_SKIP_BINARY_DOWNLOAD (electron's own switch) turns the fetch off.
//
// Never at `npm install` time: scripts/prepare.js only builds the CLI.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const FETCH_NOTE = 'Fetching the Electron binary (once, ~100 MB)…';

/** The Electron executable the `electron` package in `electronDir` installed, or undefined. */
export function electronBinary(electronDir) {
  const pathFile = join(electronDir, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

/** Whether a window could open: macOS and Windows always; Linux (and the BSDs) with X11 or Wayland. */
export function hasDisplay(platform, env) {
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

const truthy = (v) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

/**
 * Runs electron's installer (`installer`: its install.js) with this Node, its progress on our stdout,
 * and says how it went: `{ ok: true }`, or `{ ok: false, detail }` with the error's first line.
 */
export function runInstaller(installer, opts = {}) {
  if (!existsSync(installer))
    return { ok: false, detail: `${installer} is missing (is the electron package installed? run npm install)` };
  const r = spawnSync(process.execPath, [installer], {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ['ignore', 'inherit', 'pipe'],
    encoding: 'utf8',
  });
  if (r.error) return { ok: false, detail: r.error.message };
  if (r.status === 0) return { ok: true };
  const said = (r.stderr ?? '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith('at '));
  return { ok: false, detail: said ?? `the installer exited with ${r.status ?? r.signal}` };
}

/**
 * The plan: `{ kind: 'app', binary }`, or `{ kind: 'daemon', reason, failure? }` where `reason` goes into
 * the one sentence start.js prints and `failure` is the sentence about a download that did not work.
 * `fetch` runs the installer (runInstaller); `log` prints a line (the note before the download).
 * `sandboxProblem(binary)` (optional) says why Electron would abort at start on this system — Ubuntu
 * 24.04's AppArmor rule without a root-owned setuid chrome-sandbox (src-main/core/desktop/linuxSandbox.ts)
 * — with the fix; the daemon starts instead and the fix is printed.
 */
export function planStart({ platform, env, electronDir, fetch, log, sandboxProblem }) {
  if (!hasDisplay(platform, env)) return { kind: 'daemon', reason: 'no display' };
  const checked = (binary) => {
    const problem = sandboxProblem?.(binary);
    return problem
      ? { kind: 'daemon', reason: "Electron's sandbox cannot start on this system", failure: problem }
      : { kind: 'app', binary };
  };
  const present = electronBinary(electronDir);
  if (present) return checked(present);
  if (truthy(env.ELECTRON_SKIP_BINARY_DOWNLOAD))
    return { kind: 'daemon', reason: 'no Electron binary; ELECTRON_SKIP_BINARY_DOWNLOAD is set, so it is not fetched' };
  log(FETCH_NOTE);
  const fetched = fetch();
  const binary = fetched.ok ? electronBinary(electronDir) : undefined;
  if (binary) return checked(binary);
  const detail = fetched.ok ? 'the installer finished but left no binary' : fetched.detail;
  return {
    kind: 'daemon',
    reason: 'no Electron binary',
    failure: `The Electron binary could not be downloaded (${detail}). Check the network (or a proxy: HTTPS_PROXY), then run \`node node_modules/electron/install.js\` or \`npm start\` again.`,
  };
}
