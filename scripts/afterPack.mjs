// electron-builder's afterPack hook (electron-builder.yml): runs once per architecture after the app's
// files are in place and before the fuses are flipped and the app is signed. It fails the build when a
// part Rein needs at run time is missing, rather than shipping an app whose GUI tools or search do not work:
// - macOS: Contents/Helpers/Rein AX.app (native/ax_server/macos/build-app.sh) with its executable for this
//   architecture; signed again here with the app's identity, the hardened runtime and a secure timestamp
//   (notarization needs both; the app's own signing is told to leave it alone: mac.signIgnore);
// - Linux: resources/ax_server/linux/ax_server.py (the AT-SPI helper);
// - both: resources/native/better_sqlite3.node built for Electron's ABI (scripts/dist.mjs), not Node's;
// and it writes resources/rein-build.json, which says whether this is a release build (REIN_RELEASE=1),
// read by the updater (src-main/core/desktop/updates.ts): only a release AppImage replaces itself.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
// builder-util's Arch enum.
const ARCH_NAMES = { 0: 'ia32', 1: 'x64', 2: 'armv7l', 3: 'arm64', 4: 'universal' };
const LIPO_ARCH = { x64: 'x86_64', arm64: 'arm64' };

export function resourcesDir(context) {
  if (context.electronPlatformName === 'darwin') {
    return join(context.appOutDir, `${context.packager.appInfo.productFilename}.app`, 'Contents', 'Resources');
  }
  return join(context.appOutDir, 'resources');
}

/** The identity the app is signed with ("-" ad hoc), as electron-builder will use it. */
export function identityOf(context, env = process.env) {
  const configured = context.packager.platformSpecificBuildOptions?.identity;
  if (configured === null) return undefined; // identity: null — no signing at all
  return configured || env.CSC_NAME || env.REIN_SIGN_IDENTITY || '-';
}

/** What the updater reads: a release build or not, and how it was to be signed. */
export function buildInfo(context, env = process.env) {
  const identity = context.electronPlatformName === 'darwin' ? identityOf(context, env) : undefined;
  return {
    release: env.REIN_RELEASE === '1',
    signing:
      context.electronPlatformName !== 'darwin'
        ? 'none'
        : identity === undefined
          ? 'none'
          : identity === '-'
            ? 'adhoc'
            : 'developer-id',
  };
}

/** The ABI a .node file was built for, from its `node_register_module_v<abi>` symbol (N-API modules have none). */
export function nodeModuleAbi(file) {
  const m = /node_register_module_v(\d+)/.exec(readFileSync(file).toString('latin1'));
  return m ? Number(m[1]) : undefined;
}

export function electronAbi() {
  const version = JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')).version;
  try {
    return { version, abi: Number(createRequire(import.meta.url)('node-abi').getAbi(version, 'electron')) };
  } catch {
    return { version, abi: undefined };
  }
}

export function checkSqlite(resources) {
  const file = join(resources, 'native', 'better_sqlite3.node');
  if (!existsSync(file) || !existsSync(`${file}.json`)) {
    throw new Error(
      `afterPack: ${file} (and its .json) is missing: build better-sqlite3 for Electron with scripts/dist.mjs (npm run dist:…), not electron-builder alone`,
    );
  }
  const { version, abi } = electronAbi();
  const found = nodeModuleAbi(file);
  if (abi !== undefined && found !== undefined && found !== abi) {
    throw new Error(
      `afterPack: better_sqlite3.node is built for ABI ${found}, Electron ${version} needs ${abi} (Node's build was packed: run npm run dist:…)`,
    );
  }
}

function signHelper(helper, identity, arch) {
  const exe = join(helper, 'Contents', 'MacOS', 'ax_server');
  if (!existsSync(exe)) throw new Error(`afterPack: ${exe} is missing: run native/ax_server/macos/build-app.sh`);
  const archs = execFileSync('/usr/bin/lipo', ['-archs', exe], { encoding: 'utf8' }).trim().split(/\s+/);
  if (LIPO_ARCH[arch] && !archs.includes(LIPO_ARCH[arch])) {
    throw new Error(
      `afterPack: the helper is built for ${archs.join(', ')}, not ${LIPO_ARCH[arch]}: build-app.sh builds both`,
    );
  }
  const args = [
    '--force',
    '--options',
    'runtime',
    '--entitlements',
    join(root, 'build', 'entitlements.helper.plist'),
    '--sign',
    identity,
  ];
  args.push(identity === '-' ? '--timestamp=none' : '--timestamp');
  console.log(`  • signing the accessibility helper  identity=${identity}`);
  execFileSync('/usr/bin/codesign', [...args, helper], { stdio: 'inherit' });
  execFileSync('/usr/bin/codesign', ['--verify', '--strict', '--verbose=1', helper], { stdio: 'inherit' });
}

export default async function afterPack(context) {
  const arch = ARCH_NAMES[context.arch] ?? String(context.arch);
  const resources = resourcesDir(context);
  if (context.electronPlatformName === 'darwin') {
    const helper = join(
      context.appOutDir,
      `${context.packager.appInfo.productFilename}.app`,
      'Contents',
      'Helpers',
      'Rein AX.app',
    );
    if (!existsSync(helper)) {
      throw new Error(
        `afterPack: ${helper} is missing: build it first with native/ax_server/macos/build-app.sh (npm run dist:mac does)`,
      );
    }
    const identity = identityOf(context);
    if (identity !== undefined && process.platform === 'darwin') signHelper(helper, identity, arch);
  } else if (context.electronPlatformName === 'linux') {
    const script = join(resources, 'ax_server', 'linux', 'ax_server.py');
    if (!existsSync(script))
      throw new Error(`afterPack: ${script} is missing (extraResources of native/ax_server/linux)`);
  }
  checkSqlite(resources);
  writeFileSync(join(resources, 'rein-build.json'), `${JSON.stringify(buildInfo(context), null, 2)}\n`);
}
