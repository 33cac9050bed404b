/**
 * electron-builder.yml as electron-builder itself checks it (its own validateConfiguration, against its
 * JSON schema), and the keys a release depends on: the architectures, notarization left to the
 * environment, the helper and its signing, the update feed, the Linux packages and their dependencies,
 * the icon, the names the keychain item and the Wayland app id depend on, the usage descriptions, and
 * node_modules reduced to the native and wasm packages. (The fuses: tests/unit/electron/packaging.test.ts.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { AUTOSTART_FILE } from '../../../src-main/core/desktop/loginItem.js';

const root = join(import.meta.dirname, '../../..');
const text = readFileSync(join(root, 'electron-builder.yml'), 'utf8');
const config = parse(text) as Record<string, any>;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, any>;
const require = createRequire(import.meta.url);

describe('electron-builder.yml', () => {
  it("passes electron-builder's own validation (its JSON schema)", async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
      validateConfiguration(c: unknown, log: unknown): Promise<void>;
    };
    await expect(
      validateConfiguration(structuredClone(config), { isEnabled: false, add() {} }),
    ).resolves.toBeUndefined();
    // The check can fail: an unknown key is refused.
    await expect(
      validateConfiguration(
        { ...structuredClone(config), mac: { ...config.mac, notarise: true } },
        { isEnabled: false, add() {} },
      ),
    ).rejects.toThrow(/Invalid configuration object/);
  });

  it('builds a dmg and a zip (the updater needs the zip) for Apple silicon and Intel', () => {
    const targets = config.mac.target as { target: string; arch: string[] }[];
    for (const t of ['dmg', 'zip']) expect(targets.find((x) => x.target === t)?.arch.sort()).toEqual(['arm64', 'x64']);
    expect(config.mac.minimumSystemVersion).toBeDefined();
  });

  it('leaves signing and notarization to the environment: no identity or notarize: true written in', () => {
    expect(config.mac.identity).toBeUndefined();
    expect(config.mac.notarize).toBeUndefined();
    expect(config.mac.hardenedRuntime).toBe(true);
    for (const f of [
      config.mac.entitlements,
      config.mac.entitlementsInherit,
      'build/entitlements.adhoc.plist',
      'build/entitlements.helper.plist',
    ]) {
      expect(existsSync(join(root, f)), f).toBe(true);
    }
    // Only the ad-hoc set turns library validation off; a Developer ID build keeps it.
    expect(readFileSync(join(root, config.mac.entitlements), 'utf8')).not.toContain('disable-library-validation');
    expect(readFileSync(join(root, 'build/entitlements.adhoc.plist'), 'utf8')).toContain(
      '<key>com.apple.security.cs.disable-library-validation</key>',
    );
  });

  it('packs the helper where helperProcess.ts looks, checked and signed by afterPack, left alone by the app signing', () => {
    expect(config.mac.extraFiles).toContainEqual({
      from: 'native/ax_server/macos/build/Rein AX.app',
      to: 'Helpers/Rein AX.app',
    });
    expect(config.afterPack).toBe('scripts/afterPack.mjs');
    expect(existsSync(join(root, config.afterPack))).toBe(true);
    expect(
      config.mac.signIgnore.some((re: string) =>
        new RegExp(re).test('/x/Rein.app/Contents/Helpers/Rein AX.app/Contents/MacOS/ax_server'),
      ),
    ).toBe(true);
    expect(config.mac.signIgnore.some((re: string) => new RegExp(re).test('/x/Rein.app/Contents/MacOS/Rein'))).toBe(
      false,
    );
  });

  it('says why Rein asks for Apple Events and each folder, and stays out of the Dock', () => {
    expect(config.mac.extendInfo).toMatchObject({ LSUIElement: true });
    for (const key of [
      'NSAppleEventsUsageDescription',
      'NSDesktopFolderUsageDescription',
      'NSDocumentsFolderUsageDescription',
      'NSDownloadsFolderUsageDescription',
      'NSRemovableVolumesUsageDescription',
      'NSNetworkVolumesUsageDescription',
    ]) {
      expect(config.mac.extendInfo[key], key).toMatch(/^Rein .{20,}/);
    }
  });

  it('publishes updates to GitHub releases (a generic URL only when asked for at build time)', () => {
    expect(config.publish).toMatchObject({ provider: 'github', releaseType: 'draft' });
    expect(config.publish.owner).toBeTruthy();
    expect(config.publish.repo).toBeTruthy();
  });

  it("builds an AppImage that keeps its name across updates and a deb that names the helper's Python packages", () => {
    const targets = (config.linux.target as { target: string }[]).map((t) => t.target);
    expect(targets).toEqual(['AppImage', 'deb']);
    expect(config.appImage.artifactName).not.toContain('${version}');
    for (const dep of [
      'python3',
      'python3-gi',
      'python3-pyatspi',
      'gir1.2-atspi-2.0',
      'at-spi2-core',
      'libgtk-3-0',
      'libnss3',
    ])
      expect(config.deb.depends).toContain(dep);
    expect(config.linux.extraResources).toContainEqual(
      expect.objectContaining({ from: 'native/ax_server/linux', to: 'ax_server/linux' }),
    );
  });

  it('names the app Rein in package.json too, and the .desktop file as the autostart entry is named', () => {
    expect(pkg.productName).toBe(config.productName);
    expect(pkg.productName).toBe('Rein');
    expect(pkg.desktopName).toBe(AUTOSTART_FILE);
    expect(config.linux.syncDesktopName).toBe(true);
    expect(config.linux.desktop.entry.StartupWMClass).toBe(AUTOSTART_FILE.replace(/\.desktop$/, ''));
    const devEntry = readFileSync(join(root, 'build/linux', AUTOSTART_FILE), 'utf8');
    expect(devEntry).toMatch(/^\[Desktop Entry\]$/m);
    expect(devEntry).toContain(`StartupWMClass=${config.linux.desktop.entry.StartupWMClass}`);
  });

  it('has an icon for each platform in build/', () => {
    expect(config.directories.buildResources).toBe('build');
    expect(existsSync(join(root, config.mac.icon))).toBe(true);
    for (const size of [16, 32, 48, 64, 128, 256, 512])
      expect(existsSync(join(root, config.linux.icon, `${size}x${size}.png`)), `${size}`).toBe(true);
  });

  it('keeps of node_modules only the native and wasm packages, and no platform section overrides files or asarUnpack', () => {
    const kept = /node_modules\/!\(([^)]*)\)/
      .exec(
        (config.files as unknown[]).find((f) => typeof f === 'string' && f.startsWith('!node_modules/!(')) as string,
      )?.[1]
      ?.split('|');
    expect(kept?.sort()).toEqual([
      'better-sqlite3',
      'bindings',
      'file-uri-to-path',
      'node-mac-permissions',
      'tree-sitter-bash',
      'web-tree-sitter',
    ]);
    // Every other runtime dependency is bundled into out/main (electron.vite.config.ts).
    const runtimeExternal = ['better-sqlite3', 'web-tree-sitter', 'tree-sitter-bash', 'node-mac-permissions'];
    for (const dep of runtimeExternal) expect(kept).toContain(dep);
    expect(config.files).toContain('!node_modules/tree-sitter-bash/!(package.json|tree-sitter-bash.wasm){,/**}');
    for (const section of ['mac', 'linux']) {
      expect(config[section].files, section).toBeUndefined();
      expect(config[section].asarUnpack, section).toBeUndefined();
    }
    expect(config.npmRebuild).toBe(false);
    // better-sqlite3's addon built for Electron goes where core/search/nativeBinding.ts looks: <resources>/native.
    expect(config.extraResources).toContainEqual({
      from: 'out/electron-native/${platform}-${arch}',
      to: 'native',
      filter: ['better_sqlite3.node', 'better_sqlite3.node.json'],
    });
    expect(config.files).toContain('!node_modules/better-sqlite3/!(package.json|lib){,/**}');
    expect(config.asarUnpack).toContain('**/*.node');
  });
});

describe('package.json', () => {
  it('has the dist scripts and electron-updater', () => {
    expect(pkg.scripts).toMatchObject({
      'dist:mac': 'node scripts/dist.mjs mac',
      'dist:linux': 'node scripts/dist.mjs linux',
      'dist:dir': 'node scripts/dist.mjs dir',
    });
    expect(pkg.dependencies['electron-updater']).toBeDefined();
  });
});
