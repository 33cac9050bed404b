// Builds the desktop app with the real electron-vite config (no Electron binary needed) into a temp dir
// and checks what a sandboxed window will get: one CommonJS preload that needs nothing but `electron`,
// and a page whose CSP allows no inline or evaluated code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
let outDir = '';

beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), 'rein-desktop-build-'));
  const r = spawnSync(
    process.execPath,
    [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--outDir', outDir, '--logLevel', 'error'],
    { cwd: root, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`electron-vite build failed:\n${r.stdout}\n${r.stderr}`);
});
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('desktop build', () => {
  it('emits the preload as one CommonJS file that runs with only `electron` to require, as in a sandbox', () => {
    expect(readdirSync(join(outDir, 'preload'))).toEqual(['index.cjs']);
    const code = readFileSync(join(outDir, 'preload/index.cjs'), 'utf8');
    const exposed = new Map<string, unknown>();
    const electron = {
      contextBridge: { exposeInMainWorld: (key: string, api: unknown) => exposed.set(key, api) },
      ipcRenderer: { invoke: async () => ({ ok: true, value: null }), on() {}, off() {} },
    };
    const required: string[] = [];
    const sandboxRequire = (id: string): unknown => {
      required.push(id);
      if (id === 'electron') return electron;
      throw new Error(`a sandboxed preload cannot require ${id}`);
    };
    const module = { exports: {} };
    runInNewContext(code, { require: sandboxRequire, module, exports: module.exports });
    expect(required).toEqual(['electron']);
    expect([...exposed.keys()]).toEqual(['rein', 'reinDesktop']);
  });

  it('emits an ES module main process that loads the CommonJS preload and leaves the optional macOS module to run time', () => {
    const main = readFileSync(join(outDir, 'main/index.js'), 'utf8');
    expect(main).toMatch(/^import .* from "electron";$/m);
    expect(main).toContain('../preload/index.cjs');
    // The main process is split into lazily loaded chunks (docs/architecture.md, *Startup*): the optional
    // module is named in one of them, and imported statically by none.
    const all = readdirSync(join(outDir, 'main'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(outDir, 'main', f), 'utf8'));
    expect(all.some((code) => code.includes('"node-mac-permissions"'))).toBe(true);
    for (const code of all) expect(code).not.toMatch(/from "node-mac-permissions"/);
  });

  it('ships the page with a strict CSP and no inline script or style', () => {
    const html = readFileSync(join(outDir, 'renderer/index.html'), 'utf8');
    const csp = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toMatch(/unsafe-(inline|eval)/);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // every script has a src
    expect(html).not.toMatch(/<style|style="/);
  });
});
