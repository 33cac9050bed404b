import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { directoryListTool } from '../../../src-main/core/tools/builtin/directoryList.js';
import { callTool, makeToolContext, type TempToolContext } from './toolTestContext.js';

let t: TempToolContext;
beforeEach(async () => {
  t = await makeToolContext();
});
afterEach(async () => {
  await t.cleanup();
});

describe('directory_list', () => {
  it('lists entries by name with a folder marker and right-aligned sizes', async () => {
    await writeFile(join(t.dir, 'b.txt'), 'x'.repeat(1234));
    await writeFile(join(t.dir, 'a.txt'), 'hi');
    await mkdir(join(t.dir, 'c-folder'));
    const r = await callTool(directoryListTool, {}, t.ctx);
    const lines = r.content.split('\n');
    expect(lines[0]).toBe(`  ${'2'.padStart(8)} a.txt`);
    expect(lines[0]).toBe('         2 a.txt');
    expect(lines[1]).toBe('      1234 b.txt');
    expect(lines[2]).toMatch(/^d {1,8}\d+ c-folder$/);
    expect(lines[2]!.length).toBe('d '.length + 8 + ' c-folder'.length);
  });

  it('lists the given folder relative to the working folder', async () => {
    await mkdir(join(t.dir, 'sub'));
    await writeFile(join(t.dir, 'sub', 'inner.txt'), '');
    const r = await callTool(directoryListTool, { path: 'sub' }, t.ctx);
    expect(r.content).toBe('         0 inner.txt');
  });

  it('shows at most 1,000 entries with a note', async () => {
    await Promise.all(
      Array.from({ length: 1003 }, (_, n) => writeFile(join(t.dir, `f${String(n).padStart(4, '0')}`), '')),
    );
    const r = await callTool(directoryListTool, {}, t.ctx);
    const [list, note] = r.content.split('\n\n');
    expect(list!.split('\n')).toHaveLength(1000);
    expect(list!.split('\n').at(-1)).toContain('f0999');
    expect(note).toContain('first 1000 of 1003');
  });

  it('says when a folder is empty', async () => {
    const r = await callTool(directoryListTool, {}, t.ctx);
    expect(r).toEqual({ ok: true, content: '(empty folder)' });
  });

  it('refuses a file or a missing path', async () => {
    await writeFile(join(t.dir, 'a.txt'), '');
    expect((await callTool(directoryListTool, { path: 'a.txt' }, t.ctx)).errorKind).toBe('validation');
    expect((await callTool(directoryListTool, { path: 'missing' }, t.ctx)).errorKind).toBe('validation');
  });
});
