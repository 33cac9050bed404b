import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { globTool } from '../../../src-main/core/tools/builtin/glob.js';
import { writeTree } from './fileTree.js';
import { callTool, makeToolContext, type TempToolContext } from './toolTestContext.js';

let t: TempToolContext;
beforeEach(async () => {
  t = await makeToolContext();
  await writeTree(t.dir);
});
afterEach(async () => {
  await t.cleanup();
});

describe('glob', () => {
  it('matches across folders with ** and lists relative paths newest first', async () => {
    const r = await callTool(globTool, { pattern: '**/*.ts' }, t.ctx);
    expect(r).toEqual({ ok: true, content: 'src/deep/c.ts\nsrc/b.ts\na.ts' });
  });

  it('skips .git and node_modules unless the pattern names them', async () => {
    const r = await callTool(globTool, { pattern: 'node_modules/**/*.ts' }, t.ctx);
    expect(r.content).toBe('node_modules/dep/index.ts');
  });

  it('finds dot-folders other than .git', async () => {
    const r = await callTool(globTool, { pattern: '**/*.yml' }, t.ctx);
    expect(r.content).toBe('.github/ci.yml');
  });

  it('searches under path, relative to it', async () => {
    const r = await callTool(globTool, { pattern: '**/*.ts', path: 'src' }, t.ctx);
    expect(r.content).toBe('deep/c.ts\nb.ts');
  });

  it('accepts an absolute pattern', async () => {
    const r = await callTool(globTool, { pattern: join(t.dir, 'src', '*.ts') }, t.ctx);
    expect(r.content).toBe('b.ts');
  });

  it('says "no files matched" as a normal result', async () => {
    const r = await callTool(globTool, { pattern: '**/*.rs' }, t.ctx);
    expect(r).toEqual({ ok: true, content: 'no files matched' });
  });

  it('returns at most 1,000 matches with a note', async () => {
    await mkdir(join(t.dir, 'many'));
    await Promise.all(Array.from({ length: 1005 }, (_, n) => writeFile(join(t.dir, 'many', `f${n}.txt`), '')));
    const r = await callTool(globTool, { pattern: 'many/*.txt' }, t.ctx);
    const [list, note] = r.content.split('\n\n');
    expect(list!.split('\n')).toHaveLength(1000);
    expect(note).toContain('1000 newest of 1005');
  });

  it('refuses a path that is not a folder', async () => {
    const r = await callTool(globTool, { pattern: '*', path: 'a.ts' }, t.ctx);
    expect(r.errorKind).toBe('validation');
    const missing = await callTool(globTool, { pattern: '*', path: 'nope' }, t.ctx);
    expect(missing.errorKind).toBe('validation');
  });
});
