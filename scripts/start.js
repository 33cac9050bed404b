// What `npm start` runs: build the desktop app and launch it when Electron can run here; otherwise say
// so in one sentence and point at the command line. It never loads the `electron` package to find out:
// requiring it downloads the binary when missing.
import { existsSync, readFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** The Electron executable the `electron` package installed, or undefined when it has none. */
function electronBinary() {
  const dir = join(root, 'node_modules', 'electron');
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const binary = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : undefined;
}

function hasDisplay() {
  if (process.platform === 'linux') return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
  return process.platform === 'darwin' || process.platform === 'win32';
}

const binary = electronBinary();
const missing = !binary ? 'no Electron binary' : !hasDisplay() ? 'no display' : undefined;
if (missing) {
  console.log(
    `Rein's desktop app cannot start here (${missing}); use the command line instead: npx rein run "…" (see README).`,
  );
  process.exit(0);
}

const build = spawnSync(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);

// `electron .` runs package.json "main" (out/main/index.js) with the project as the app path, so
// app.getVersion() and resources/ resolve as they will in the packaged app.
const child = spawn(binary, ['.'], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
