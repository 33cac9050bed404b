/**
 * Size limits of issue 29: no function in src-main over 200 lines, no file of core/harness or
 * core/runtime over 400. Counted as an editor does: from a function's first line to its last.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');
const SRC = join(ROOT, 'src-main');
const MAX_FUNCTION_LINES = 200;
const MAX_FILE_LINES = 400;
const SIZED_FOLDERS = ['core/harness', 'core/runtime'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Every function with a body longer than `max` lines: `file:line name (N lines)`. */
function longFunctions(file: string, text: string, max: number): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const first = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      const lines = last - first + 1;
      const name = n.name ? n.name.getText(sf) : '(anonymous)';
      if (lines > max) found.push(`${relative(ROOT, file)}:${first + 1} ${name} (${lines} lines)`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

describe('code size limits', () => {
  it('the counter finds a long function and passes a short one', () => {
    const body = (n: number) => `function f() {\n${'  x();\n'.repeat(n - 2)}}\n`;
    expect(longFunctions('long.ts', body(201), MAX_FUNCTION_LINES)).toEqual(['long.ts:1 f (201 lines)']);
    expect(longFunctions('ok.ts', body(200), MAX_FUNCTION_LINES)).toEqual([]);
    expect(longFunctions('arrow.ts', `const g = () => {\n${'  y();\n'.repeat(199)}};\n`, MAX_FUNCTION_LINES)).toEqual([
      'arrow.ts:1 (anonymous) (201 lines)',
    ]);
  });

  it(`no function in src-main is over ${MAX_FUNCTION_LINES} lines`, () => {
    const offenders = sourceFiles(SRC).flatMap((f) => longFunctions(f, readFileSync(f, 'utf8'), MAX_FUNCTION_LINES));
    expect(offenders, `functions over ${MAX_FUNCTION_LINES} lines:\n${offenders.join('\n')}`).toEqual([]);
  });

  it(`no file in ${SIZED_FOLDERS.join(' or ')} is over ${MAX_FILE_LINES} lines`, () => {
    const offenders = SIZED_FOLDERS.flatMap((folder) => sourceFiles(join(SRC, folder)))
      .map((f) => ({ f, lines: lineCount(readFileSync(f, 'utf8')) }))
      .filter((x) => x.lines > MAX_FILE_LINES)
      .map((x) => `${relative(ROOT, x.f)} (${x.lines} lines)`);
    expect(offenders, `files over ${MAX_FILE_LINES} lines:\n${offenders.join('\n')}`).toEqual([]);
  });
});
