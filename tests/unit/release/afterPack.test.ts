/** The afterPack hook fails a build missing what Rein needs at run time, and writes rein-build.json. */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import afterPack, { buildInfo, checkSqlite, nodeModuleAbi } from '../../../scripts/afterPack.mjs';

const ELECTRON_ABI = 150; // Electron 45 (node-abi)

function linuxApp(opts: { helper?: boolean; abi?: number | null } = {}) {
  const appOutDir = mkdtempSync(join(tmpdir(), 'rein-afterpack-'));
  const resources = join(appOutDir, 'resources');
  mkdirSync(resources, { recursive: true });
  if (opts.helper !== false) {
    mkdirSync(join(resources, 'ax_server', 'linux'), { recursive: true });
    writeFileSync(join(resources, 'ax_server', 'linux', 'ax_server.py'), '#!/usr/bin/python3\n');
  }
  if (opts.abi !== null) {
    const dir = join(resources, 'native');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'better_sqlite3.node'), `\x7fELF…node_register_module_v${opts.abi ?? ELECTRON_ABI}\0…`);
    writeFileSync(
      join(dir, 'better_sqlite3.node.json'),
      JSON.stringify({ electron: '45.5.0', modules: String(opts.abi ?? ELECTRON_ABI), platform: 'linux', arch: 'x64' }),
    );
  }
  return {
    appOutDir,
    resources,
    context: {
      appOutDir,
      electronPlatformName: 'linux',
      arch: 1,
      packager: { appInfo: { productFilename: 'Rein' }, platformSpecificBuildOptions: {} },
    },
  };
}

describe('afterPack', () => {
  it('passes a complete Linux app and writes rein-build.json', async () => {
    const { context, resources } = linuxApp();
    await afterPack(context);
    expect(JSON.parse(readFileSync(join(resources, 'rein-build.json'), 'utf8'))).toEqual({
      release: false,
      signing: 'none',
    });
  });

  it('fails without the Linux accessibility helper', async () => {
    await expect(afterPack(linuxApp({ helper: false }).context)).rejects.toThrow(/ax_server\.py is missing/);
  });

  it("fails when Node's build of better-sqlite3 was packed instead of Electron's, or none", () => {
    expect(() => checkSqlite(linuxApp({ abi: 115 }).resources)).toThrow(/built for ABI 115, Electron .* needs 150/);
    expect(() => checkSqlite(linuxApp({ abi: null }).resources)).toThrow(
      /better_sqlite3\.node \(and its \.json\) is missing/,
    );
    expect(() => checkSqlite(linuxApp().resources)).not.toThrow();
  });

  it('fails a macOS app without the helper bundle in Contents/Helpers', async () => {
    const appOutDir = mkdtempSync(join(tmpdir(), 'rein-afterpack-mac-'));
    mkdirSync(join(appOutDir, 'Rein.app', 'Contents', 'Resources'), { recursive: true });
    const context = {
      appOutDir,
      electronPlatformName: 'darwin',
      arch: 3,
      packager: { appInfo: { productFilename: 'Rein' }, platformSpecificBuildOptions: { identity: '-' } },
    };
    await expect(afterPack(context)).rejects.toThrow(
      /Rein AX\.app is missing: build it first with native\/ax_server\/macos\/build-app\.sh/,
    );
  });

  it('records a release build and how a Mac build was to be signed', () => {
    const mac = (identity: string | null | undefined) => ({
      electronPlatformName: 'darwin',
      packager: { platformSpecificBuildOptions: { identity } },
    });
    expect(buildInfo(mac('-'), {})).toEqual({ release: false, signing: 'adhoc' });
    expect(buildInfo(mac('Jane Doe (AB12CD34EF)'), { REIN_RELEASE: '1' })).toEqual({
      release: true,
      signing: 'developer-id',
    });
    expect(buildInfo(mac(undefined), { CSC_NAME: 'Jane Doe (AB12CD34EF)' })).toEqual({
      release: false,
      signing: 'developer-id',
    });
    expect(buildInfo(mac(null), {})).toEqual({ release: false, signing: 'none' });
  });

  it('reads the ABI a real addon was built for', () => {
    const real = join(import.meta.dirname, '../../../node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    expect(nodeModuleAbi(real)).toBe(Number(process.versions.modules));
  });
});
