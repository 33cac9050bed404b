import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { boundedAppend, loadMemory, MEMORY_LINE_BOUND } from '../../../src-main/core/memory/index.js';
import { numberedLines, tempDir } from './tempMemory.js';

let root: string;
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ root, cleanup } = await tempDir());
  dir = join(root, 'memory');
  await mkdir(dir);
});
afterEach(() => cleanup());

const write = (name: string, text: string) => writeFile(join(dir, name), text);

describe('loadMemory', () => {
  it('is empty when there is no memory folder, no MEMORY.md, or only whitespace', async () => {
    expect(await loadMemory(join(root, 'nowhere'))).toBe('');
    expect(await loadMemory(dir)).toBe('');
    await write('MEMORY.md', '\n  \n');
    expect(await loadMemory(dir)).toBe('');
  });

  it('returns MEMORY.md as written when it is short', async () => {
    await write('MEMORY.md', '# Memory\n\n- prefers pnpm\n- lives in Lyon\n');
    expect(await loadMemory(dir)).toBe('# Memory\n\n- prefers pnpm\n- lives in Lyon');
  });

  it('inlines the overflow file a pointer line links to, in place of the pointer', async () => {
    await write('auto-2026-03-05-abcdef.md', '# Auto-persisted Learnings (2026-03-05)\n\n- detail kept aside\n\n');
    await write(
      'MEMORY.md',
      '- first\n- [2026-03-05] See [auto-2026-03-05-abcdef.md](auto-2026-03-05-abcdef.md) for details\n- last\n',
    );
    expect(await loadMemory(dir)).toBe(
      '- first\n# Auto-persisted Learnings (2026-03-05)\n\n- detail kept aside\n- last',
    );
  });

  it('inlines what boundedAppend overflowed, so nothing appended is invisible to the model', async () => {
    await boundedAppend(dir, numberedLines(MEMORY_LINE_BOUND - 20, 'old'));
    await boundedAppend(dir, numberedLines(30, 'overflowed'));
    const text = await loadMemory(dir, { maxChars: 100_000 });
    expect(text).toContain('- overflowed 30');
    expect(text).not.toContain('See [auto-');
  });

  it('follows only plain .md names in the same folder, never MEMORY.md itself or paths elsewhere', async () => {
    await mkdir(join(dir, 'sub'));
    await write('sub/x.md', 'SECRET-SUB');
    await write('notes.md', 'linked note');
    await writeFile(join(root, 'outside.md'), 'SECRET-OUTSIDE');
    await write(
      'MEMORY.md',
      [
        '- see [notes](notes.md)',
        '- see [self](MEMORY.md)',
        '- see [sub](sub/x.md)',
        '- see [up](../outside.md)',
        '- see [gone](missing.md)',
        '',
      ].join('\n'),
    );
    expect(await loadMemory(dir)).toBe(
      [
        'linked note',
        '- see [self](MEMORY.md)',
        '- see [sub](sub/x.md)',
        '- see [up](../outside.md)',
        '- see [gone](missing.md)',
      ].join('\n'),
    );
  });

  it('reads at most 200 lines, counting the lines of inlined files', async () => {
    await write('detail.md', numberedLines(50, 'inlined'));
    await write('MEMORY.md', `- see [d](detail.md)\n${numberedLines(300, 'main')}`);
    const lines = (await loadMemory(dir, { maxChars: 1_000_000 })).split('\n');
    expect(lines).toHaveLength(200);
    expect(lines[0]).toBe('- inlined 1');
    expect(lines[49]).toBe('- inlined 50');
    expect(lines[199]).toBe('- main 150');
  });

  it('caps the text at 2,000 characters and says it was truncated', async () => {
    await write('MEMORY.md', `${'x'.repeat(1990)}\n${'y'.repeat(100)}\n`);
    const text = await loadMemory(dir);
    expect(text).toBe(`${'x'.repeat(1990)}\n${'y'.repeat(9)}\n[truncated]`);
  });

  it('counts characters, not UTF-16 units, and never splits one', async () => {
    await write('MEMORY.md', '😀'.repeat(2100));
    const text = await loadMemory(dir);
    expect(text).toBe(`${'😀'.repeat(2000)}\n[truncated]`);
  });

  it('leaves text of exactly 2,000 characters untouched', async () => {
    await write('MEMORY.md', 'z'.repeat(2000));
    expect(await loadMemory(dir)).toBe('z'.repeat(2000));
  });
});
