// The bash grammar loads from the installed package, once, and analysis refuses to run before it has.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../../../src-main/core/permissions/shell/analyze.js';
import {
  bashGrammarPath,
  initShellParser,
  isShellParserReady,
} from '../../../src-main/core/permissions/shell/parser.js';

describe('shell parser loading', () => {
  it('refuses to analyse before initShellParser() with a message saying so', () => {
    expect(isShellParserReady()).toBe(false);
    expect(() => analyzeCommand('ls')).toThrow(/initShellParser/);
  });

  it('finds the grammar wasm inside the tree-sitter-bash package', () => {
    const p = bashGrammarPath();
    expect(p).toMatch(/node_modules\/tree-sitter-bash\/tree-sitter-bash\.wasm$/);
    expect(existsSync(p)).toBe(true);
  });

  it('initialises once for concurrent callers and stays ready', async () => {
    const a = initShellParser();
    const b = initShellParser();
    await Promise.all([a, b]);
    expect(isShellParserReady()).toBe(true);
    await initShellParser();
    expect(analyzeCommand('ls -la', { home: '/h', cwd: '/h/p' }).commands.map((c) => c.name)).toEqual(['ls']);
  });
});
