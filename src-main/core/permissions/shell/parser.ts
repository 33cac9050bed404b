/**
 * Loads the bash grammar (tree-sitter compiled to WebAssembly) from the installed packages — never from the
 * network — once per process. Parsing is synchronous after `initShellParser()` has resolved, so a permission
 * check on the hot path costs a parse, not an await.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import type { Parser, Tree } from 'web-tree-sitter';

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
  // bash line (docs/benchmarks.md, `startup`). The baseline compiler's code parses a line ~20% slower
  // (~13 µs instead of ~11), which no one can notice. Process-wide: this is the process's only large wasm.
  setFlagsFromString('--liftoff-only');
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
