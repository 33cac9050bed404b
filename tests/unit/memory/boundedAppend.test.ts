import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { boundedAppend, MEMORY_LINE_BOUND } from '../../../src-main/core/memory/index.js';
import { isReinError } from '../../../src-main/core/errors.js';
import { autoFiles, numberedLines, readMemory, tempDir } from './tempMemory.js';

const NOW = new Date(2026, 2, 5, 14, 30); // local time: file names use the user's calendar date
let root: string;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ root, cleanup } = await tempDir());
  dir = join(root, 'memory');
});
afterEach(() => cleanup());

describe('boundedAppend', () => {
  it('creates the folder and MEMORY.md on first use, ending the entry with a newline', async () => {
    const r = await boundedAppend(dir, '- prefers pnpm', { now: NOW });
    expect(r).toEqual({ path: join(dir, 'MEMORY.md'), overflowed: false });
    expect(await readMemory(dir)).toBe('- prefers pnpm\n');
  });

  it('appends each entry on its own line with no blank lines between', async () => {
    await boundedAppend(dir, '- one', { now: NOW });
    await boundedAppend(dir, '- two\n', { now: NOW });
    await boundedAppend(dir, '- three\n- four', { now: NOW });
    expect(await readMemory(dir)).toBe('- one\n- two\n- three\n- four\n');
  });

  it('starts a new line after a hand-edited file that lacks a final newline', async () => {
    await boundedAppend(dir, '- first', { now: NOW });
    await writeFile(join(dir, 'MEMORY.md'), '# Notes\n- written by hand');
    await boundedAppend(dir, '- appended', { now: NOW });
    expect(await readMemory(dir)).toBe('# Notes\n- written by hand\n- appended\n');
  });

  it('normalises content: CRLF becomes LF and NUL bytes are dropped', async () => {
    await boundedAppend(dir, '- a\r\n- b\0c\r\n', { now: NOW });
    expect(await readMemory(dir)).toBe('- a\n- bc\n');
  });

  it('refuses empty or whitespace-only content and creates nothing', async () => {
    for (const bad of ['', '   \n\t\n', '\0\0']) {
      const err = await boundedAppend(dir, bad, { now: NOW }).catch((e: unknown) => e);
      expect(isReinError(err, 'invalid_input')).toBe(true);
    }
    await expect(readdir(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('appends in place when the result is exactly 150 lines', async () => {
    await boundedAppend(dir, numberedLines(MEMORY_LINE_BOUND - 1), { now: NOW });
    const r = await boundedAppend(dir, '- the 150th line', { now: NOW });
    expect(r.overflowed).toBe(false);
    const text = await readMemory(dir);
    expect(text.split('\n')).toHaveLength(151); // 150 lines + the empty string after the final newline
    expect(text.endsWith('- line 149\n- the 150th line\n')).toBe(true);
    expect(await autoFiles(dir)).toEqual([]);
  });

  it('past 150 lines writes the entry to an overflow file and appends only a pointer line', async () => {
    await boundedAppend(dir, numberedLines(MEMORY_LINE_BOUND), { now: NOW });
    const before = await readMemory(dir);
    const r = await boundedAppend(dir, '- line 151 goes elsewhere', { now: NOW, randomHex: () => '0a1b2c' });
    expect(r).toEqual({ path: join(dir, 'auto-2026-03-05-0a1b2c.md'), overflowed: true });
    expect(await readFile(r.path, 'utf8')).toBe(
      '# Auto-persisted Learnings (2026-03-05)\n\n- line 151 goes elsewhere\n',
    );
    expect(await readMemory(dir)).toBe(
      `${before}- [2026-03-05] See [auto-2026-03-05-0a1b2c.md](auto-2026-03-05-0a1b2c.md) for details\n`,
    );
  });

  it('overflows a multi-line entry that would cross the bound, even when the file is below it', async () => {
    await boundedAppend(dir, numberedLines(148), { now: NOW });
    const r = await boundedAppend(dir, '- a\n- b\n- c', { now: NOW });
    expect(r.overflowed).toBe(true);
    expect(await readFile(r.path, 'utf8')).toContain('- a\n- b\n- c\n');
    const lines = (await readMemory(dir)).trimEnd().split('\n');
    expect(lines).toHaveLength(149);
    expect(lines[148]).toMatch(
      /^- \[2026-03-05\] See \[auto-2026-03-05-[0-9a-f]{6}\.md\]\(auto-2026-03-05-[0-9a-f]{6}\.md\) for details$/,
    );
  });

  it('keeps adding pointer lines once full, one overflow file per entry', async () => {
    await boundedAppend(dir, numberedLines(MEMORY_LINE_BOUND), { now: NOW });
    for (let i = 0; i < 3; i++) await boundedAppend(dir, `- extra ${i}`, { now: NOW });
    const files = await autoFiles(dir);
    expect(files).toHaveLength(3);
    const pointers = (await readMemory(dir)).split('\n').filter((l) => l.includes('See [auto-'));
    expect(pointers.map((l) => /\((auto-[^)]+)\)/.exec(l)?.[1]).sort()).toEqual(files);
  });

  it('never overwrites an existing overflow file when the random name is taken', async () => {
    await boundedAppend(dir, numberedLines(MEMORY_LINE_BOUND), { now: NOW });
    const taken = join(dir, 'auto-2026-03-05-aaaaaa.md');
    await writeFile(taken, 'older detail\n');
    const draws = ['aaaaaa', 'aaaaaa', 'bbbbbb'];
    const r = await boundedAppend(dir, '- new detail', { now: NOW, randomHex: () => draws.shift()! });
    expect(r.path).toBe(join(dir, 'auto-2026-03-05-bbbbbb.md'));
    expect(await readFile(taken, 'utf8')).toBe('older detail\n');
    expect(draws).toEqual([]);
  });

  it('leaves no temp or lock files behind', async () => {
    await boundedAppend(dir, numberedLines(MEMORY_LINE_BOUND), { now: NOW });
    await boundedAppend(dir, '- overflow', { now: NOW, randomHex: () => 'cccccc' });
    expect((await readdir(dir)).sort()).toEqual(['MEMORY.md', 'auto-2026-03-05-cccccc.md']);
  });
});
