/** The packaging config keeps the hardening a shipped build must have: its fuses, the helper in place, no Dock icon. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const config = parse(readFileSync(join(__dirname, '../../../electron-builder.yml'), 'utf8')) as Record<string, any>;

describe('electron-builder.yml', () => {
  it('flips the fuses that keep the signed app from running other code as Node', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableCookieEncryption: true,
    });
  });

  it('ships a hardened-runtime menu-bar app with the accessibility helper where helperProcess.ts looks', () => {
    expect(config.mac).toMatchObject({ hardenedRuntime: true, extendInfo: { LSUIElement: true } });
    expect(config.mac.extraFiles).toContainEqual({
      from: 'native/ax_server/macos/build/Rein AX.app',
      to: 'Helpers/Rein AX.app',
    });
    // Nothing starts the app's own executable as Node (runAsNode is off): launchd runs it with --headless.
    const src = join(__dirname, '../../../src-main');
    const files = (readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(100);
    // (The permission engine names it only to stop a run from setting it for Rein: protectedWrites.ts.)
    expect(
      files.filter(
        (f) =>
          !f.startsWith('core/permissions/') && readFileSync(join(src, f), 'utf8').includes('ELECTRON_RUN_AS_NODE'),
      ),
    ).toEqual([]);
  });
});
