// `npm run rebuild:electron`: builds better-sqlite3 for the installed Electron into a folder of its own,
//
//   build/native/electron/better_sqlite3.node        (+ better_sqlite3.node.json: what it was built for)
//
// so the project's node_modules keep Node's build (`rein`, `npm test` and the benches run under Node)
// and the app picks the Electron one at run time (src-main/core/search/nativeBinding.ts). It never
// touches node_modules/better-sqlite3: the package is copied to a temporary folder and built there —
// first with prebuild-install (a prebuilt binary for `--runtime electron`, downloaded from the
// better-sqlite3 releases), else with node-gyp against Electron's headers (needs a compiler and the
// network). Options: --arch <arch> (default this machine's), --out <dir>.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const arch = arg('arch', process.arch);
const outDir = arg('out', join(root, 'build', 'native', 'electron'));
const electron = JSON.parse(readFileSync(join(root, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
const modules = String(require('node-abi').getAbi(electron, 'electron'));
const source = join(root, 'node_modules', 'better-sqlite3');
const sqliteVersion = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')).version;

console.log(
  `Building better-sqlite3 ${sqliteVersion} for Electron ${electron} (ABI ${modules}, ${process.platform}-${arch}) into ${outDir}`,
);

const work = mkdtempSync(join(tmpdir(), 'rein-sqlite-electron-'));
const copy = join(work, 'better-sqlite3');
// Everything but an earlier build: the copy builds from the same sources node_modules has.
cpSync(source, copy, { recursive: true, filter: (p) => !p.startsWith(join(source, 'build')) });

const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (cmd, args) =>
  spawnSync(cmd, args, {
    cwd: copy,
    stdio: 'inherit',
    env: { ...process.env, npm_config_runtime: 'electron', npm_config_target: electron },
  });

let built =
  run(bin('prebuild-install'), ['--runtime', 'electron', '--target', electron, '--arch', arch, '--verbose']).status ===
  0;
if (!built) {
  console.log('No prebuilt binary could be fetched; building from source with node-gyp against Electron’s headers…');
  built =
    run(bin('node-gyp'), [
      'rebuild',
      '--release',
      `--target=${electron}`,
      `--arch=${arch}`,
      '--dist-url=https://electronjs.org/headers',
      '--runtime=electron',
    ]).status === 0;
}
const addon = join(copy, 'build', 'Release', 'better_sqlite3.node');
if (!built || !existsSync(addon)) {
  rmSync(work, { recursive: true, force: true });
  console.error(
    'better-sqlite3 could not be built for Electron (no prebuilt binary reachable, and node-gyp failed). Check the network or a proxy (HTTPS_PROXY) and a C++ toolchain (Xcode command line tools on macOS), then run npm run rebuild:electron again. Node’s build in node_modules is unchanged.',
  );
  process.exit(1);
}
mkdirSync(outDir, { recursive: true });
copyFileSync(addon, join(outDir, 'better_sqlite3.node'));
writeFileSync(
  join(outDir, 'better_sqlite3.node.json'),
  `${JSON.stringify({ electron, modules, platform: process.platform, arch, better_sqlite3: sqliteVersion }, null, 2)}\n`,
);
rmSync(work, { recursive: true, force: true });
console.log(`Done: ${join(outDir, 'better_sqlite3.node')}`);
