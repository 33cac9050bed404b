import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const START = join(import.meta.dirname, '../../../scripts/start.js');
const NO_DESKTOP = /^Rein's desktop app cannot start here \((no Electron binary|no display)\); use the command line instead: npx rein run "…" \(see README\)\.\n$/;

/** The environment of this process without any display variable. */
function envWithoutDisplay(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['DISPLAY'];
  delete env['WAYLAND_DISPLAY'];
  return env;
}

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A throwaway project holding scripts/start.js and an electron package whose binary "exists". */
function projectWithElectronBinary(): string {
  const root = mkdtempSync(join(tmpdir(), 'rein-start-'));
  temps.push(root);
  mkdirSync(join(root, 'scripts'));
  copyFileSync(START, join(root, 'scripts', 'start.js'));
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }');
  const electron = join(root, 'node_modules', 'electron');
  mkdirSync(join(electron, 'dist'), { recursive: true });
  writeFileSync(join(electron, 'path.txt'), 'electron');
  writeFileSync(join(electron, 'dist', 'electron'), '#!/bin/sh\necho launched\n');
  chmodSync(join(electron, 'dist', 'electron'), 0o755);
  return root;
}

describe('npm start without a usable Electron', () => {
  it('prints one sentence pointing at the CLI and exits 0', () => {
    const r = spawnSync(process.execPath, [START], { env: envWithoutDisplay(), encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(NO_DESKTOP);
    expect(r.stderr).toBe('');
  });

  it.runIf(process.platform === 'linux')('says "no display" on Linux when Electron is installed but no display is set', () => {
    const root = projectWithElectronBinary();
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'start.js')], {
      cwd: root,
      env: envWithoutDisplay(),
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      `Rein's desktop app cannot start here (no display); use the command line instead: npx rein run "…" (see README).\n`,
    );
    expect(r.stderr).toBe('');
  });

  it('says "no Electron binary" when path.txt names a binary that is absent, without downloading it', () => {
    const root = projectWithElectronBinary();
    rmSync(join(root, 'node_modules', 'electron', 'dist'), { recursive: true });
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'start.js')], {
      cwd: root,
      env: { ...envWithoutDisplay(), DISPLAY: ':99' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      `Rein's desktop app cannot start here (no Electron binary); use the command line instead: npx rein run "…" (see README).\n`,
    );
  });
});
