// Builds the `rein` command line (plain Node, no Electron) into one ESM file.
import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import { defineConfig } from 'vite';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
const external = [
  ...builtinModules,
  ...builtinModules.map((m) => `node:${m}`),
  ...Object.keys(pkg.dependencies),
  ...Object.keys(pkg.optionalDependencies ?? {}),
];

export default defineConfig({
  define: { __REIN_VERSION__: JSON.stringify(pkg.version) },
  build: {
    ssr: 'src-main/cli/index.ts',
    outDir: 'out/cli',
    emptyOutDir: true,
    target: 'node20',
    sourcemap: true,
    minify: false,
    rollupOptions: {
      external: (id) => external.some((e) => id === e || id.startsWith(`${e}/`)),
      output: { entryFileNames: 'rein.js', format: 'es' },
    },
  },
});
