// What `npm start` runs. Where Electron can run, it builds the desktop app and launches it, fetching the
// Electron binary first when a display exists and the binary is missing (scripts/startPlan.js). Where
// it cannot (no display: a Linux server, a container; or the binary could not be fetched), it says so in
// one sentence and starts `rein daemon` instead, which serves the same UI to a browser and prints the
// URL to open; so a newcomer always gets the product. Arguments after `npm start --` go to `rein daemon`
// (or to Electron). It never loads the `electron` package: its binary is fetched by electron's own
// installer in a child process, only here and only with a display.
import { existsSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { planStart, runInstaller } from './startPlan.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const electronVite = join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');
const electronDir = join(root, 'node_modules', 'electron');

/** Runs a build step in the foreground; stops `npm start` with its exit code when it fails. */
function build(args) {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** Runs `command` as the one thing this process does: signals go to it, its exit code is ours. */
function runInForeground(command, args) {
  const child = spawn(command, args, { cwd: root, stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

// On Linux, the AppArmor check of Electron's sandbox (src-main/core/desktop/linuxSandbox.ts, loaded with
// tsx, a dev dependency of every checkout that runs `npm start`; without it the check is skipped).
let sandboxProblem;
if (process.platform === 'linux') {
  try {
    const { tsImport } = await import('tsx/esm/api');
    const { checkLinuxSandbox, sandboxAdvice } = await tsImport(
      '../src-main/core/desktop/linuxSandbox.ts',
      import.meta.url,
    );
    sandboxProblem = (binary) => sandboxAdvice(checkLinuxSandbox(binary));
  } catch {
    sandboxProblem = undefined;
  }
}

const plan = planStart({
  platform: process.platform,
  env: process.env,
  electronDir,
  fetch: () => runInstaller(join(electronDir, 'install.js'), { cwd: root }),
  log: (line) => console.log(line),
  sandboxProblem,
});

if (plan.kind === 'daemon') {
  if (plan.failure) console.log(plan.failure);
  console.log(
    `Rein's desktop app cannot start here (${plan.reason}), so Rein runs as a daemon with its web UI instead: open the URL it prints below in a browser.`,
  );
  if (!existsSync(join(root, 'out', 'cli', 'rein.js'))) {
    build([
      join(root, 'node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '--config',
      'vite.cli.config.ts',
      '--logLevel',
      'warn',
    ]);
  }
  // The web UI is the renderer build; electron-vite builds it without needing the Electron binary.
  if (!existsSync(join(root, 'out', 'renderer', 'index.html'))) build([electronVite, 'build', '--logLevel', 'warn']);
  runInForeground(process.execPath, [join(root, 'bin', 'rein.js'), 'daemon', ...process.argv.slice(2)]);
} else {
  build([electronVite, 'build']);
  // `electron .` runs package.json "main" (out/main/index.js) with the project as the app path, so
  // app.getVersion() and resources/ resolve as they will in the packaged app.
  runInForeground(plan.binary, ['.', ...process.argv.slice(2)]);
}
