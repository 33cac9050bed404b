import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGrepTool } from '../../../src-main/core/tools/builtin/grep.js';
import { findOnPath } from '../../../src-main/core/tools/builtin/support/executables.js';
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

const rg = findOnPath('rg');

/** The behaviours both backends must share; rg additionally honours .gitignore, which the tree has none of. */
function sharedBehaviour(grep: ReturnType<typeof createGrepTool>): void {
  it("never shows lines of Rein's own secret files, found directly or behind a symlink (a search of a folder above REIN_HOME)", async () => {
    const rein = join(t.dir, 'rein-home');
    await mkdir(join(rein, 'secrets'), { recursive: true });
    await mkdir(join(rein, 'agents', 'ops'), { recursive: true });
    await writeFile(join(rein, 'daemon.json'), '{"token":"MARK-123"}\n');
    await writeFile(join(rein, 'daemon.token'), 'MARK-123\n');
    await writeFile(join(rein, 'secrets', 'mcp.json'), 'MARK-123\n');
    await writeFile(join(rein, 'agents', 'ops', 'AGENT.md'), 'MARK-123 is only a word here\n');
    await symlink(join(rein, 'daemon.json'), join(t.dir, 'innocent.txt'));
    const ctx = { ...t.ctx, reinHome: rein };
    const r = await callTool(grep, { pattern: 'MARK-123' }, ctx);
    expect(r.content).toBe('rein-home/agents/ops/AGENT.md:1:MARK-123 is only a word here');
    const direct = await callTool(grep, { pattern: 'MARK-123', path: 'innocent.txt' }, ctx);
    expect(direct.content).toBe('no matches found');
  });

  it('returns path:line:text for every match, relative and sorted by path', async () => {
    const r = await callTool(grep, { pattern: 'TODO' }, t.ctx);
    expect(r).toEqual({
      ok: true,
      content: '.github/ci.yml:1:on: push # TODO\nREADME.md:2:TODO in docs\na.ts:2:// TODO first',
    });
  });

  it('skips binary files, .git and node_modules', async () => {
    const r = await callTool(grep, { pattern: 'TODO' }, t.ctx);
    expect(r.content).not.toContain('image.bin');
    expect(r.content).not.toContain('.git/');
    expect(r.content).not.toContain('node_modules');
  });

  it('ignores case when asked', async () => {
    const r = await callTool(grep, { pattern: 'todo', case_insensitive: true, glob: '*.ts' }, t.ctx);
    expect(r.content).toBe('a.ts:2:// TODO first\nsrc/b.ts:2:export const Beta = alpha + 1; // todo second');
  });

  it('filters files with a glob that matches at any depth', async () => {
    const r = await callTool(grep, { pattern: 'alpha', glob: '*.ts' }, t.ctx);
    expect(r.content).toBe(
      'a.ts:1:export const alpha = 1;\nsrc/b.ts:1:import { alpha } from "../a";\nsrc/b.ts:2:export const Beta = alpha + 1; // todo second',
    );
  });

  it('searches one file when path is a file', async () => {
    const r = await callTool(grep, { pattern: 'alpha', path: 'src/b.ts' }, t.ctx);
    expect(r.content).toBe(
      'src/b.ts:1:import { alpha } from "../a";\nsrc/b.ts:2:export const Beta = alpha + 1; // todo second',
    );
  });

  it('cuts the results at max_results in total with a note', async () => {
    await writeFile(join(t.dir, 'many.txt'), 'hit\n'.repeat(50));
    const r = await callTool(grep, { pattern: 'hit', max_results: 7 }, t.ctx);
    const [list, note] = r.content.split('\n\n');
    expect(list!.split('\n')).toHaveLength(7);
    expect(note).toContain('showing the first 7 matches');
  });

  it('clamps max_results above 1,000 and says so', async () => {
    const r = await callTool(grep, { pattern: 'gamma', max_results: 5000 }, t.ctx);
    expect(r.content).toContain('used 1000');
    expect(r.content).toContain('src/deep/c.ts:1:const gamma = 3;');
  });

  it('says "no matches found" as a normal result', async () => {
    const r = await callTool(grep, { pattern: 'nothing-like-this' }, t.ctx);
    expect(r).toEqual({ ok: true, content: 'no matches found' });
  });

  it('reports an invalid regular expression as a validation error', async () => {
    const r = await callTool(grep, { pattern: '(unclosed' }, t.ctx);
    expect(r.ok).toBe(false);
    expect(r.errorKind).toBe('validation');
  });

  it('reports a missing path as a validation error', async () => {
    const r = await callTool(grep, { pattern: 'x', path: 'nope' }, t.ctx);
    expect(r.errorKind).toBe('validation');
  });
}

describe('grep (JavaScript search)', () => {
  sharedBehaviour(createGrepTool({ ripgrep: 'never' }));

  it('excludes files with a negated glob', async () => {
    const grep = createGrepTool({ ripgrep: 'never' });
    const r = await callTool(grep, { pattern: 'TODO', glob: '!*.md' }, t.ctx);
    expect(r.content).toBe('.github/ci.yml:1:on: push # TODO\na.ts:2:// TODO first');
  });
});

describe.skipIf(!rg)(`grep (ripgrep)${rg ? '' : ' — skipped: rg is not on PATH'}`, () => {
  sharedBehaviour(createGrepTool({ ripgrep: 'auto', ...(rg ? { rgPath: rg } : {}) }));
});
