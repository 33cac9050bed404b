// Builds the desktop app: main process, preload and page, into out/{main,preload,renderer}.
// Targets (Node for main and preload, Chrome for the page) come from the installed Electron version.
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

const root = import.meta.dirname;

export default defineConfig({
  main: {
    build: {
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
    plugins: [react()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      minify: true, // electron-vite leaves the page unminified; React alone is then ~550 kB
      rolldownOptions: { input: resolve(root, 'src-renderer/index.html') },
    },
  },
});
