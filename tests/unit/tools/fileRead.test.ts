import { spawnSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileReadTool } from '../../../src-main/core/tools/builtin/fileRead.js';
import { callTool, makeToolContext, type TempToolContext } from './toolTestContext.js';

let t: TempToolContext;
beforeEach(async () => {
  t = await makeToolContext();
});
afterEach(async () => {
  await t.cleanup();
});

const lines = (n: number) => Array.from({ length: n }, (_, k) => `line ${k + 1}`).join('\n') + '\n';
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('file_read', () => {
  it('numbers lines from 1 with width 4 and " | "', async () => {
    await writeFile(join(t.dir, 'a.txt'), 'alpha\nbeta\n');
    const r = await callTool(fileReadTool, { path: 'a.txt' }, t.ctx);
    expect(r).toEqual({ ok: true, content: '   1 | alpha\n   2 | beta' });
  });

  it('starts at the 0-based offset, returns limit lines and says how to read on', async () => {
    await writeFile(join(t.dir, 'ten.txt'), lines(10));
    const r = await callTool(fileReadTool, { path: 'ten.txt', offset: 3, limit: 2 }, t.ctx);
    expect(r.ok).toBe(true);
    expect(r.content.split('\n').slice(0, 2)).toEqual(['   4 | line 4', '   5 | line 5']);
    expect(r.content).toContain('showing lines 4–5 of 10; call file_read with offset 5 to read more');
  });

  it('returns 2,000 lines by default', async () => {
    await writeFile(join(t.dir, 'long.txt'), lines(2500));
    const r = await callTool(fileReadTool, { path: 'long.txt' }, t.ctx);
    const numbered = r.content.split('\n').filter((l) => / \| /.test(l));
    expect(numbered).toHaveLength(2000);
    expect(numbered.at(-1)).toBe('2000 | line 2000');
    expect(r.content).toContain('call file_read with offset 2000');
  });

  it('ends a file that fits without a note', async () => {
    await writeFile(join(t.dir, 'ten.txt'), lines(10));
    const r = await callTool(fileReadTool, { path: 'ten.txt', limit: 10 }, t.ctx);
    expect(r.content).not.toContain('read more');
  });

  it('cuts lines longer than 2,000 characters', async () => {
    await writeFile(join(t.dir, 'wide.txt'), 'x'.repeat(5000) + '\nshort\n');
    const r = await callTool(fileReadTool, { path: 'wide.txt' }, t.ctx);
    const [first, second] = r.content.split('\n');
    expect(first).toBe(`   1 | ${'x'.repeat(2000)}... (line cut, 5000 chars)`);
    expect(second).toBe('   2 | short');
  });

  it('answers an identical re-read of an unchanged file with a short stub', async () => {
    const file = join(t.dir, 'a.txt');
    await writeFile(file, 'alpha\n');
    const first = await callTool(fileReadTool, { path: 'a.txt' }, t.ctx);
    expect(first.content).toContain('alpha');
    const second = await callTool(fileReadTool, { path: file }, t.ctx);
    expect(second.ok).toBe(true);
    expect(second.content).toMatch(/unchanged since you last read it at \S+; the content above is still current/);
    expect(second.content).not.toContain('alpha');
  });

  it('reads again in full when the range differs or the file changed', async () => {
    const file = join(t.dir, 'a.txt');
    await writeFile(file, 'alpha\nbeta\n');
    await callTool(fileReadTool, { path: 'a.txt' }, t.ctx);
    const otherRange = await callTool(fileReadTool, { path: 'a.txt', offset: 1 }, t.ctx);
    expect(otherRange.content).toBe('   2 | beta');
    await writeFile(file, 'alpha\nbeta\ngamma\n');
    const changed = await callTool(fileReadTool, { path: 'a.txt', offset: 1 }, t.ctx);
    expect(changed.content).toContain('gamma');
  });

  it('records the read in the session tracker', async () => {
    await writeFile(join(t.dir, 'a.txt'), 'alpha\n');
    await callTool(fileReadTool, { path: 'a.txt', offset: 0, limit: 5 }, t.ctx);
    expect(t.tracker.lastRead(join(t.dir, 'a.txt'))).toMatchObject({ offset: 0, limit: 5, size: 6 });
  });

  it('refuses a binary file with its size', async () => {
    await writeFile(join(t.dir, 'blob.bin'), Buffer.from([1, 2, 0, 3, 4]));
    const r = await callTool(fileReadTool, { path: 'blob.bin' }, t.ctx);
    expect(r.ok).toBe(false);
    expect(r.errorKind).toBe('validation');
    expect(r.content).toContain('binary file (5 bytes)');
  });

  it('returns an image block for a PNG, recognised by its magic bytes', async () => {
    const png = Buffer.concat([PNG_MAGIC, Buffer.from([0, 0, 0, 13, 1, 2, 3])]);
    await writeFile(join(t.dir, 'picture.dat'), png);
    const r = await callTool(fileReadTool, { path: 'picture.dat' }, t.ctx);
    expect(r.ok).toBe(true);
    expect(r.images).toEqual([{ mediaType: 'image/png', data: png.toString('base64') }]);
  });

  it('recognises JPEG, GIF and WebP', async () => {
    const samples: [string, Buffer][] = [
      ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])],
      ['image/gif', Buffer.from('GIF89a\x01\x00', 'latin1')],
      ['image/webp', Buffer.concat([Buffer.from('RIFF'), Buffer.from([4, 0, 0, 0]), Buffer.from('WEBPVP8 ')])],
    ];
    for (const [type, bytes] of samples) {
      await writeFile(join(t.dir, 'img'), bytes);
      const r = await callTool(fileReadTool, { path: 'img' }, t.ctx);
      expect(r.images?.[0]?.mediaType).toBe(type);
    }
  });

  it('refuses an image above 5 MB', async () => {
    await writeFile(join(t.dir, 'huge.png'), Buffer.concat([PNG_MAGIC, Buffer.alloc(5 * 1024 * 1024)]));
    const r = await callTool(fileReadTool, { path: 'huge.png' }, t.ctx);
    expect(r.ok).toBe(false);
    expect(r.content).toContain('5242880 byte limit');
  });

  it('refuses device paths, also behind a symlink', async () => {
    const direct = await callTool(fileReadTool, { path: '/dev/zero' }, t.ctx);
    expect(direct.errorKind).toBe('validation');
    expect(direct.content).toContain('device');
    await symlink('/dev/zero', join(t.dir, 'zeros'));
    const linked = await callTool(fileReadTool, { path: 'zeros' }, t.ctx);
    expect(linked.errorKind).toBe('validation');
    expect(linked.content).toContain('device');
  });

  it.skipIf(process.platform === 'win32')('refuses a FIFO instead of blocking on it', async () => {
    const fifo = join(t.dir, 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const r = await callTool(fileReadTool, { path: 'pipe' }, t.ctx);
    expect(r.errorKind).toBe('validation');
    expect(r.content).toContain('FIFO');
  });

  it('refuses a directory and names a tool that lists it', async () => {
    await mkdir(join(t.dir, 'sub'));
    const r = await callTool(fileReadTool, { path: 'sub' }, t.ctx);
    expect(r.errorKind).toBe('validation');
    expect(r.content).toContain('directory_list');
  });

  it('reports a missing file as a validation error', async () => {
    const r = await callTool(fileReadTool, { path: 'nope.txt' }, t.ctx);
    expect(r).toMatchObject({ ok: false, errorKind: 'validation' });
    expect(r.content).toContain('nope.txt does not exist');
  });

  it('reports an offset past the end', async () => {
    await writeFile(join(t.dir, 'ten.txt'), lines(10));
    const r = await callTool(fileReadTool, { path: 'ten.txt', offset: 50 }, t.ctx);
    expect(r.errorKind).toBe('validation');
    expect(r.content).toContain('past the end');
  });

  it('says when a file is empty', async () => {
    await writeFile(join(t.dir, 'empty.txt'), '');
    const r = await callTool(fileReadTool, { path: 'empty.txt' }, t.ctx);
    expect(r).toEqual({ ok: true, content: '(the file is empty)' });
  });

  it('expands ~ to the home folder', async () => {
    const oldHome = process.env.HOME;
    process.env.HOME = t.ctx.reinHome;
    try {
      await writeFile(join(t.ctx.reinHome, 'note.txt'), 'from home\n');
      const r = await callTool(fileReadTool, { path: '~/note.txt' }, t.ctx);
      expect(r.content).toBe('   1 | from home');
    } finally {
      process.env.HOME = oldHome;
    }
  });

  it('handles Windows line endings', async () => {
    await writeFile(join(t.dir, 'crlf.txt'), 'one\r\ntwo\r\n');
    const r = await callTool(fileReadTool, { path: 'crlf.txt' }, t.ctx);
    expect(r.content).toBe('   1 | one\n   2 | two');
  });
});
