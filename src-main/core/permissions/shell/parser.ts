/**
 * Loads the bash grammar (tree-sitter compiled to WebAssembly) from the installed packages — never from the
 * network — once per process. Parsing is synchronous after `initShellParser()` has resolved, so a permission
 * check on the hot path costs a parse, not an await.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Parser, Tree } from 'web-tree-sitter';

/** bin/codeCache.js's hook (the same registered symbol): save compiled code before a V8 flag changes. */
const BEFORE_V8_FLAG_CHANGE = Symbol.for('rein.beforeV8FlagChange');

let parser: Parser | undefined;
let loading: Promise<void> | undefined;

function packageFile(spec: string): string {
  return createRequire(import.meta.url).resolve(spec);
}

/** Where the bash grammar's wasm lives: next to tree-sitter-bash's package.json. */
export function bashGrammarPath(): string {
  return path.join(path.dirname(packageFile('tree-sitter-bash/package.json')), 'tree-sitter-bash.wasm');
}

async function load(): Promise<void> {
  // V8 compiles hot wasm functions a second time with its optimising compiler on a background thread;
  // for the bash grammar's huge lexer that took ~0.4 s of CPU and ~35 MB in every `rein run` that ran a
  // bash line (docs/benchmarks.md, `startup`). A module compiled under --liftoff-only keeps its baseline
  // code for good, which parses a line ~20% slower (~13 µs instead of ~11): no one can notice. The flag
  // is on only while the two modules compile: V8 checks cached code (Node's own, the CLI's; bin/codeCache.js)
  // against a hash of the flags, and a flag left changed would make the rest of the process compile afresh.
  // (Even set back, the hash stays changed: the CLI's code cache saves what it has before the change.)
  const { setFlagsFromString } = await import('node:v8');
  (globalThis as { [BEFORE_V8_FLAG_CHANGE]?: () => void })[BEFORE_V8_FLAG_CHANGE]?.();
  setFlagsFromString('--liftoff-only');
  try {
    await loadModules();
  } finally {
    setFlagsFromString('--no-liftoff-only');
  }
}

async function loadModules(): Promise<void> {
  // Imported here, not at the top: only a run that analyses a bash line pays for the runtime.
  const { Language, Parser } = await import('web-tree-sitter');
  const runtimeWasm = packageFile('web-tree-sitter/tree-sitter.wasm');
  // Handing the runtime its own bytes keeps it from guessing a location (bundlers move this file).
  await Parser.init({ wasmBinary: readFileSync(runtimeWasm), locateFile: () => runtimeWasm } as never);
  const bash = await Language.load(readFileSync(bashGrammarPath()));
  const p = new Parser();
  p.setLanguage(bash);
  parser = p;
}

/** Idempotent; concurrent callers share one load. A failed load may be retried. */
export function initShellParser(): Promise<void> {
  if (parser) return Promise.resolve();
  loading ??= load().catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

export const isShellParserReady = (): boolean => parser !== undefined;

/** Parses one command line. The caller must `tree.delete()` the result (it lives in wasm memory). */
export function parseShell(line: string): Tree {
  if (!parser) throw new Error('the shell parser is not initialised: await initShellParser() first');
  const tree = parser.parse(line);
  if (!tree) throw new Error('the shell parser returned no tree');
  return tree;
}
