// Builds the `rein` command line (plain Node, no Electron): an entry file and one chunk per lazily
// loaded part (each command, the Anthropic SDK slice, the MCP SDK, the daemon…). The npm dependencies
// are bundled in: hundreds of small modules cost Node's module loader more than the code itself
// (docs/benchmarks.md, `startup`). Only native addons and packages that read their own .wasm files stay
// external. The output is CommonJS (out/cli/package.json says so): on Node 20 only a CommonJS file can
// have its compiled code cached between runs (bin/codeCache.js); Node ≥ 22 caches either kind.
import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import { defineConfig } from 'vite';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
/** Loaded from node_modules at run time: native addons and packages that read their own .wasm files. */
export const RUNTIME_EXTERNAL = [
  'better-sqlite3',
  'web-tree-sitter',
  'tree-sitter-bash',
  'node-mac-permissions',
  'electron',
];
const external = [...builtinModules, ...builtinModules.map((m) => `node:${m}`), ...RUNTIME_EXTERNAL];

export default defineConfig({
  // REIN_RELEASE=1 (the release workflow): defaults only released builds have (core/mcpClient/clientMetadata.ts).
  define: {
    __REIN_VERSION__: JSON.stringify(pkg.version),
    __REIN_RELEASE__: JSON.stringify(process.env.REIN_RELEASE === '1'),
  },
  ssr: { noExternal: true },
  build: {
    ssr: 'src-main/cli/index.ts',
    outDir: 'out/cli',
    emptyOutDir: true,
    target: 'node20',
    sourcemap: true,
    minify: false, // the output's own minify below: this one would also rename
    rollupOptions: {
      external: (id) => external.some((e) => id === e || id.startsWith(`${e}/`)),
      output: {
        entryFileNames: 'rein.js',
        chunkFileNames: 'chunks/[name]-[hash].js',
        format: 'cjs',
        // `import('web-tree-sitter')` becomes `require(…)` (the package has a CommonJS build): the code
        // cache compiles these files with vm.Script, where Node 20 cannot run an `import()` at all.
        dynamicImportInCjs: false,
        // Compressed, names kept: a third less source to read and cache at every start (~5 ms), and
        // stack traces still name their functions (the source maps give the lines).
        minify: { compress: true, mangle: false, codegen: { removeWhitespace: true } },
      },
    },
  },
  plugins: [
    {
      name: 'rein-cli-commonjs',
      generateBundle() {
        this.emitFile({ type: 'asset', fileName: 'package.json', source: '{ "type": "commonjs" }\n' });
      },
    },
  ],
});
