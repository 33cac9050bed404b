#!/usr/bin/env node
// Packages the desktop app: node scripts/dist.mjs mac|linux|dir (npm run dist:mac, dist:linux, dist:dir).
// 1. builds the CLI, the main process, the preload and the page (npm run build; REIN_SKIP_BUILD=1 skips);
// 2. macOS: builds and signs the accessibility helper (native/ax_server/macos/build-app.sh) with the
//    app's identity (REIN_SKIP_HELPER_BUILD=1 uses the one already in native/ax_server/macos/build/);
// 3. fetches (or compiles) better-sqlite3 for Electron's ABI, per architecture, into
//    out/electron-native/<platform>-<arch>/ (scripts/rebuildElectronSqlite.js) — the project's own
//    node_modules stay built for Node;
// 4. runs electron-builder with the signing, notarization and update feed decided by distPlan.mjs.
// docs/release.md is the manual.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { electronAbi, nodeModuleAbi } from './afterPack.mjs';
import { distPlan } from './distPlan.mjs';

const root = join(import.meta.dirname, '..');

function run(file, args, opts = {}) {
  console.log(`$ ${[file, ...args].join(' ')}`);
  const r = spawnSync(file, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${file} ${args[0] ?? ''} exited with ${r.status ?? r.signal}`);
}

/**
 * better-sqlite3 built for Electron, for one arch, by scripts/rebuildElectronSqlite.js (a prebuilt binary
 * when one is published, else node-gyp against Electron's headers) into out/electron-native/<platform>-<arch>/,
 * which electron-builder packs as resources/native/ (core/search/nativeBinding.ts loads it from there).
 */
function electronSqlite(os, arch) {
  const platform = os === 'mac' ? 'darwin' : 'linux';
  const dest = join(root, 'out/electron-native', `${platform}-${arch}`);
  const built = join(dest, 'better_sqlite3.node');
  const { version, abi } = electronAbi();
  const record = (() => {
    try {
      return JSON.parse(readFileSync(`${built}.json`, 'utf8'));
    } catch {
      return undefined;
    }
  })();
  const fresh =
    existsSync(built) && record?.electron === version && record?.arch === arch && record?.platform === platform;
  if (!fresh) run(process.execPath, [join(root, 'scripts/rebuildElectronSqlite.js'), '--arch', arch, '--out', dest]);
  // A rebuild that could not fetch Electron's headers may quietly compile against Node's: refuse it here.
  const found = nodeModuleAbi(built);
  if (abi !== undefined && found !== undefined && found !== abi) {
    throw new Error(
      `${built} is built for ABI ${found}, not Electron ${version}'s ${abi} (could Electron's headers be fetched?)`,
    );
  }
}

async function main() {
  const target = process.argv[2];
  const plan = distPlan({ target, env: process.env, platform: process.platform });
  for (const line of plan.notes) console.log(line);
  if (process.env.REIN_SKIP_BUILD !== '1') run('npm', ['run', 'build']);
  if (plan.os === 'mac' && process.env.REIN_SKIP_HELPER_BUILD !== '1') {
    run('bash', ['native/ax_server/macos/build-app.sh'], {
      env: { ...process.env, REIN_SIGN_IDENTITY: plan.helper.identity },
    });
  }
  for (const arch of plan.nativeArchs) electronSqlite(plan.os, arch);
  // Anything after the target (`node scripts/dist.mjs dir -- -c.directories.output=…`) goes to electron-builder.
  const extra = process.argv.slice(3).filter((a) => a !== '--');
  run(process.execPath, [join(root, 'node_modules/electron-builder/cli.js'), ...plan.builderArgs, ...extra]);
}

main().catch((e) => {
  console.error(`dist: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
