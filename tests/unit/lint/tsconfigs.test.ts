/**
 * The type-check configurations keep the page and Node apart (docs/architecture.md, *Types by where code
 * runs*): the page and core/api see no Node types, the Node side no DOM, and nothing is checked by none.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../../..');

function parsed(file: string): ts.ParsedCommandLine {
  const read = ts.readConfigFile(join(ROOT, file), ts.sys.readFile);
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT, undefined, join(ROOT, file));
}

const names = (p: ts.ParsedCommandLine) => new Set(p.fileNames.map((f) => relative(ROOT, f)));

describe('the type-check configurations', () => {
  const node = parsed('tsconfig.json');
  const web = parsed('tsconfig.web.json');
  const webTests = parsed('tsconfig.web-tests.json');

  it('gives the page and core/api the DOM and no Node types, and the Node side no DOM', () => {
    expect(web.options.types).toEqual([]);
    expect(web.options.lib?.some((l) => /dom/i.test(l))).toBe(true);
    expect(node.options.types).toEqual(['node']);
    expect(node.options.lib?.some((l) => /dom/i.test(l))).toBe(false);
    const webFiles = names(web);
    expect([...webFiles].some((f) => f.startsWith('src-renderer/src/'))).toBe(true);
    expect([...webFiles].some((f) => f.startsWith('src-main/core/api/'))).toBe(true);
    expect([...webFiles].some((f) => f.startsWith('src-main/') && !f.startsWith('src-main/core/api/'))).toBe(false);
  });

  it('checks every TypeScript file of the page, the main process and the tests under one of them', () => {
    const covered = new Set([...names(node), ...names(web), ...names(webTests)]);
    const all: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const rel = join(dir, e.name);
        if (e.isDirectory()) walk(rel);
        else if (/\.tsx?$/.test(e.name)) all.push(rel);
      }
    };
    for (const dir of ['src-main', 'src-preload', 'src-renderer/src', 'tests']) walk(dir);
    expect(all.filter((f) => !covered.has(f))).toEqual([]);
  });
});
