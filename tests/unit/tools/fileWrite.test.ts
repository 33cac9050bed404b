import { lstat, mkdir, readFile, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileEditTool } from '../../../src-main/core/tools/builtin/fileEdit.js';
import { fileReadTool } from '../../../src-main/core/tools/builtin/fileRead.js';
import { fileWriteTool } from '../../../src-main/core/tools/builtin/fileWrite.js';
import { protectedMemoryPaths } from '../../../src-main/core/memory/files.js';
import { callTool, makeToolContext, type TempToolContext } from './toolTestContext.js';

let t: TempToolContext;
beforeEach(async () => {
  t = await makeToolContext();
});
afterEach(async () => {
  await t.cleanup();
});

describe('file_write', () => {
  it('creates a new file and its parent folders and reports the byte count', async () => {
    const r = await callTool(fileWriteTool, { path: 'deep/er/new.txt', content: 'héllo\n' }, t.ctx);
    expect(r).toEqual({ ok: true, content: 'wrote 7 bytes to deep/er/new.txt' });
    const file = join(t.dir, 'deep/er/new.txt');
    expect(await readFile(file, 'utf8')).toBe('héllo\n');
    expect((await stat(file)).mode & 0o777).toBe(0o644 & ~process.umask());
  });

  it('refuses to overwrite a file that was not read in this session', async () => {
    await writeFile(join(t.dir, 'old.txt'), 'keep me');
    const r = await callTool(fileWriteTool, { path: 'old.txt', content: 'replaced' }, t.ctx);
    expect(r.errorKind).toBe('validation');
    expect(r.content).toContain('file_read');
    expect(await readFile(join(t.dir, 'old.txt'), 'utf8')).toBe('keep me');
  });

  it('overwrites a file after it was read', async () => {
    await writeFile(join(t.dir, 'old.txt'), 'keep me');
    await callTool(fileReadTool, { path: 'old.txt' }, t.ctx);
    const r = await callTool(fileWriteTool, { path: 'old.txt', content: 'replaced' }, t.ctx);
    expect(r.ok).toBe(true);
    expect(await readFile(join(t.dir, 'old.txt'), 'utf8')).toBe('replaced');
  });

  it('refuses when the file changed on disk after it was read', async () => {
    const file = join(t.dir, 'old.txt');
    await writeFile(file, 'v1');
    await callTool(fileReadTool, { path: 'old.txt' }, t.ctx);
    await writeFile(file, 'v2 from another editor');
    const r = await callTool(fileWriteTool, { path: 'old.txt', content: 'mine' }, t.ctx);
    expect(r.errorKind).toBe('validation');
    expect(r.content).toContain('changed on disk');
    expect(await readFile(file, 'utf8')).toBe('v2 from another editor');
  });

  it('refuses protected paths with the reason given', async () => {
    const memory = join(t.dir, 'MEMORY.md');
    const ctx = { ...t.ctx, protectedPaths: new Map([[memory, 'MEMORY.md is changed only through memory_append']]) };
    const r = await callTool(fileWriteTool, { path: 'MEMORY.md', content: 'x' }, ctx);
    expect(r.errorKind).toBe('permission');
    expect(r.content).toContain('MEMORY.md is changed only through memory_append');
    await expect(stat(memory)).rejects.toThrow();
  });

  it('refuses other spellings of MEMORY.md when its folder ignores case', async () => {
    const ctx = { ...t.ctx, protectedPaths: protectedMemoryPaths(t.dir, { caseInsensitive: true }) };
    for (const path of ['memory.md', 'Memory.Md', join(t.dir, 'MEMORY.MD')]) {
      const r = await callTool(fileWriteTool, { path, content: 'x' }, ctx);
      expect(r.errorKind).toBe('permission');
    }
    await expect(stat(join(t.dir, 'memory.md'))).rejects.toThrow();
  });

  it('refuses a protected path reached through a symlink', async () => {
    await mkdir(join(t.dir, 'agent'));
    const memory = join(t.dir, 'agent', 'MEMORY.md');
    await symlink(join(t.dir, 'agent'), join(t.dir, 'alias'));
    const ctx = { ...t.ctx, protectedPaths: new Map([[memory, 'protected']]) };
    const r = await callTool(fileWriteTool, { path: 'alias/MEMORY.md', content: 'x' }, ctx);
    expect(r.errorKind).toBe('permission');
  });

  it('lets the session edit a file it has just written without reading it again', async () => {
    await callTool(fileWriteTool, { path: 'fresh.txt', content: 'one two' }, t.ctx);
    const r = await callTool(fileEditTool, { path: 'fresh.txt', old_string: 'two', new_string: 'three' }, t.ctx);
    expect(r.ok).toBe(true);
    expect(await readFile(join(t.dir, 'fresh.txt'), 'utf8')).toBe('one three');
  });

  it('makes the next read a real read after writing', async () => {
    const file = join(t.dir, 'a.txt');
    await writeFile(file, 'v1');
    const before = await stat(file);
    await callTool(fileReadTool, { path: 'a.txt' }, t.ctx);
    await callTool(fileWriteTool, { path: 'a.txt', content: 'v2' }, t.ctx);
    // Same size and, forced here, the same mtime as at the first read: only the tracker's record of the
    // write keeps the "unchanged" stub from hiding the new content.
    await utimes(file, before.atime, before.mtime);
    const r = await callTool(fileReadTool, { path: 'a.txt' }, t.ctx);
    expect(r.content).toBe('   1 | v2');
  });

  it('writes through a symlink and keeps the link', async () => {
    await writeFile(join(t.dir, 'target.txt'), 'old');
    await symlink(join(t.dir, 'target.txt'), join(t.dir, 'link.txt'));
    await callTool(fileReadTool, { path: 'link.txt' }, t.ctx);
    const r = await callTool(fileWriteTool, { path: 'link.txt', content: 'new' }, t.ctx);
    expect(r.ok).toBe(true);
    expect((await lstat(join(t.dir, 'link.txt'))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(t.dir, 'target.txt'), 'utf8')).toBe('new');
  });

  it('refuses to write over a folder', async () => {
    await mkdir(join(t.dir, 'sub'));
    const r = await callTool(fileWriteTool, { path: 'sub', content: 'x' }, t.ctx);
    expect(r.errorKind).toBe('validation');
  });

  it('is destructive only when an absolute target exists', async () => {
    await writeFile(join(t.dir, 'exists.txt'), 'x');
    expect(fileWriteTool.isDestructive({ path: join(t.dir, 'exists.txt'), content: '' })).toBe(true);
    expect(fileWriteTool.isDestructive({ path: join(t.dir, 'missing.txt'), content: '' })).toBe(false);
    expect(fileWriteTool.isReadOnly({ path: 'x', content: '' })).toBe(false);
  });
});
