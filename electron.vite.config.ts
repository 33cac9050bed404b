// Builds the desktop app: main process, preload and page, into out/{main,preload,renderer}.
// Targets (Node for main and preload, Chrome for the page) come from the installed Electron version.
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { readFileSync } from 'node:fs';
import { defineConfig } from 'electron-vite';
import { RUNTIME_EXTERNAL } from './vite.cli.config';
import { reinDevCsp } from './src-main/core/desktop/devCsp';

const root = import.meta.dirname;
const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

export default defineConfig({
  main: {
    define: { __REIN_RELEASE__: JSON.stringify(process.env.REIN_RELEASE === '1') }, // as vite.cli.config.ts: a release's MCP client ID URL (core/mcpClient/clientMetadata.ts)
    build: {
      // The npm dependencies are bundled in, as in the CLI (vite.cli.config.ts): fewer, larger modules
      // load faster. Native addons and wasm packages stay in node_modules.
      externalizeDeps: { exclude: Object.keys(pkg.dependencies).filter((d) => !RUNTIME_EXTERNAL.includes(d)) },
      outDir: 'out/main',
      lib: { entry: resolve(root, 'src-main/index.ts'), formats: ['es'], fileName: () => 'index.js' },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed window loads no ESM preload, and its `require` reaches only electron and a few
      // built-ins: so the preload is one CommonJS file with every dependency bundled in.
      externalizeDeps: false,
      lib: { entry: resolve(root, 'src-preload/index.ts'), formats: ['cjs'], fileName: () => 'index.cjs' },
      rolldownOptions: { output: { codeSplitting: false } },
    },
  },
  renderer: {
    root: resolve(root, 'src-renderer'),
    // reinDevCsp: under `npm run dev` only, the page fits the same CSP (src-main/core/desktop/devCsp.ts).
    plugins: [react(), reinDevCsp()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      minify: true, // electron-vite leaves the page unminified; React alone is then ~550 kB
      rolldownOptions: { input: resolve(root, 'src-renderer/index.html') },
    },
  },
});
