import { chmod, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileEditTool } from '../../../src-main/core/tools/builtin/fileEdit.js';
import { fileReadTool } from '../../../src-main/core/tools/builtin/fileRead.js';
import { protectedMemoryPaths } from '../../../src-main/core/memory/files.js';
import { callTool, makeToolContext, type TempToolContext } from './toolTestContext.js';

let t: TempToolContext;
let file: string;
beforeEach(async () => {
  t = await makeToolContext();
  file = join(t.dir, 'code.ts');
});
afterEach(async () => {
  await t.cleanup();
});

async function seed(content: string): Promise<void> {
  await writeFile(file, content);
  await callTool(fileReadTool, { path: 'code.ts' }, t.ctx);
}

describe('file_edit', () => {
  it('replaces a unique match and shows numbered context around it', async () => {
    await seed('a\nb\nc\nd\ne\nf\ng\nh\n');
    const r = await callTool(fileEditTool, { path: 'code.ts', old_string: 'e', new_string: 'E1\nE2' }, t.ctx);
    expect(r.ok).toBe(true);
    expect(await readFile(file, 'utf8')).toBe('a\nb\nc\nd\nE1\nE2\nf\ng\nh\n');
    expect(r.content).toBe(
      [
        'replaced 1 occurrence in code.ts',
        '',
        '   2 | b',
        '   3 | c',
        '   4 | d',
        '   5 | E1',
        '   6 | E2',
        '   7 | f',
        '   8 | g',
        '   9 | h',
      ].join('\n'),
    );
  });

  it('reports old_string that is not in the file', async () => {
    await seed('hello\n');
    const r = await callTool(fileEditTool, { path: 'code.ts', old_string: 'bye', new_string: 'x' }, t.ctx);
    expect(r.errorKind).toBe('validation');
    expect(r.content).toContain('old_string not found');
  });

  it('refuses an ambiguous match and leaves the file alone', async () => {
    await seed('x = 1\nx = 1\nx = 1\n');
    const r = await callTool(fileEditTool, { path: 'code.ts', old_string: 'x = 1', new_string: 'x = 2' }, t.ctx);
    expect(r.errorKind).toBe('validation');
    expect(r.content).toContain('found 3 times');
    expect(r.content).toContain('replace_all');
    expect(await readFile(file, 'utf8')).toBe('x = 1\nx = 1\nx = 1\n');
  });

  it('replaces every occurrence with replace_all', async () => {
    await seed('x = 1\nx = 1\nx = 1\n');
    const r = await callTool(
      fileEditTool,
      { path: 'code.ts', old_string: 'x = 1', new_string: 'x = 2', replace_all: true },
      t.ctx,
    );
    expect(r.content).toContain('replaced 3 occurrences');
    expect(await readFile(file, 'utf8')).toBe('x = 2\nx = 2\nx = 2\n');
  });

  it('refuses to edit a file that was not read in this session', async () => {
    await writeFile(file, 'hello\n');
    const r = await callTool(fileEditTool, { path: 'code.ts', old_string: 'hello', new_string: 'bye' }, t.ctx);
    expect(r.errorKind).toBe('validation');
    expect(r.content).toContain('file_read');
    expect(await readFile(file, 'utf8')).toBe('hello\n');
  });

  it('refuses when the file changed on disk since it was read (same size, new mtime)', async () => {
    await seed('hello\n');
    await writeFile(file, 'HELLO\n');
    await utimes(file, new Date(), new Date(Date.now() + 60_000));
    const r = await callTool(fileEditTool, { path: 'code.ts', old_string: 'HELLO', new_string: 'bye' }, t.ctx);
    expect(r.errorKind).toBe('validation');
    expect(r.content).toContain('changed on disk');
    expect(await readFile(file, 'utf8')).toBe('HELLO\n');
  });

  it('allows consecutive edits without re-reading', async () => {
    await seed('one two three\n');
    await callTool(fileEditTool, { path: 'code.ts', old_string: 'one', new_string: '1' }, t.ctx);
    const r = await callTool(fileEditTool, { path: 'code.ts', old_string: 'three', new_string: '3' }, t.ctx);
    expect(r.ok).toBe(true);
    expect(await readFile(file, 'utf8')).toBe('1 two 3\n');
  });

  it('keeps the file mode', async () => {
    await writeFile(file, '#!/bin/sh\necho hi\n');
    await chmod(file, 0o750);
    await callTool(fileReadTool, { path: 'code.ts' }, t.ctx);
    await callTool(fileEditTool, { path: 'code.ts', old_string: 'hi', new_string: 'there' }, t.ctx);
    expect((await stat(file)).mode & 0o777).toBe(0o750);
  });

  it('inserts new_string literally, dollar signs included', async () => {
    await seed('price\n');
    await callTool(fileEditTool, { path: 'code.ts', old_string: 'price', new_string: "$& costs $1 and $'" }, t.ctx);
    expect(await readFile(file, 'utf8')).toBe("$& costs $1 and $'\n");
  });

  it('matches \\n in old_string against a file with Windows line endings and keeps them', async () => {
    await seed('one\r\ntwo\r\nthree\r\n');
    const r = await callTool(fileEditTool, { path: 'code.ts', old_string: 'one\ntwo', new_string: 'uno\ndos' }, t.ctx);
    expect(r.ok).toBe(true);
    expect(await readFile(file, 'utf8')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('refuses protected paths with the reason given', async () => {
    await seed('memory\n');
    const ctx = { ...t.ctx, protectedPaths: new Map([[file, 'use memory_append']]) };
    const r = await callTool(fileEditTool, { path: 'code.ts', old_string: 'memory', new_string: 'x' }, ctx);
    expect(r.errorKind).toBe('permission');
    expect(r.content).toContain('use memory_append');
  });

  it('refuses other spellings of MEMORY.md when its folder ignores case', async () => {
    await writeFile(join(t.dir, 'MEMORY.md'), '- keep\n');
    await callTool(fileReadTool, { path: 'MEMORY.md' }, t.ctx);
    const ctx = { ...t.ctx, protectedPaths: protectedMemoryPaths(t.dir, { caseInsensitive: true }) };
    for (const path of ['MEMORY.md', 'memory.md', 'Memory.Md']) {
      const r = await callTool(fileEditTool, { path, old_string: 'keep', new_string: 'lose' }, ctx);
      expect(r.errorKind).toBe('permission');
      expect(r.content).toContain('use memory_append');
    }
    expect(await readFile(join(t.dir, 'MEMORY.md'), 'utf8')).toBe('- keep\n');
  });

  it('rejects an empty old_string at the schema and identical strings in the call', async () => {
    expect(fileEditTool.input.safeParse({ path: 'a', old_string: '', new_string: 'x' }).success).toBe(false);
    await seed('same\n');
    const r = await callTool(fileEditTool, { path: 'code.ts', old_string: 'same', new_string: 'same' }, t.ctx);
    expect(r.errorKind).toBe('validation');
  });

  it('sends a missing file to file_write', async () => {
    const r = await callTool(fileEditTool, { path: 'nope.ts', old_string: 'a', new_string: 'b' }, t.ctx);
    expect(r.errorKind).toBe('validation');
    expect(r.content).toContain('file_write');
  });
});
