import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { atomicWriteFile } from '../../../src-main/core/util/atomicWrite.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-atomic-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('atomicWriteFile', () => {
  it('writes text and bytes, replacing an existing file', async () => {
    const file = join(dir, 'a.json');
    await atomicWriteFile(file, 'first');
    await atomicWriteFile(file, new TextEncoder().encode('second ✓'));
    expect(await readFile(file, 'utf8')).toBe('second ✓');
    expect(await readdir(dir)).toEqual(['a.json']);
  });

  it('applies the requested mode regardless of umask, and keeps it on the next write', async () => {
    const file = join(dir, 'secret.json');
    await atomicWriteFile(file, '{}', { mode: 0o600 });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await atomicWriteFile(file, '{"a":1}');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('fails without leaving a temp file when the target cannot be replaced', async () => {
    const target = join(dir, 'taken');
    await mkdir(target);
    await writeFile(join(target, 'inside.txt'), 'untouched');
    await expect(atomicWriteFile(target, 'data')).rejects.toThrow();
    expect(await readdir(dir)).toEqual(['taken']);
    expect(await readFile(join(target, 'inside.txt'), 'utf8')).toBe('untouched');
  });

  it('never lets a reader see a half-written file', async () => {
    const file = join(dir, 'big.txt');
    const size = 1 << 20;
    await atomicWriteFile(file, 'A'.repeat(size));
    let writing = true;
    const writes = (async () => {
      for (let i = 0; i < 10; i++) await atomicWriteFile(file, (i % 2 ? 'B' : 'C').repeat(size));
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const text = await readFile(file, 'utf8');
      expect(text.length).toBe(size);
      expect(text[0]!.repeat(size) === text).toBe(true);
      reads++;
    }
    await writes;
    expect(reads).toBeGreaterThan(0);
    expect(await readdir(dir)).toEqual(['big.txt']);
  });

  it('gives a group-readable mode exactly, whatever the umask would take', async () => {
    const file = join(dir, 'shared.txt');
    const old = process.umask(0o077);
    try {
      await atomicWriteFile(file, 'x', { mode: 0o644 });
    } finally {
      process.umask(old);
    }
    expect((await stat(file)).mode & 0o777).toBe(0o644);
  });

  it('writes through a symlink so a dotfiles link stays a link, unless told not to follow it', async () => {
    const real = join(dir, 'real.yaml');
    const link = join(dir, 'config.yaml');
    await writeFile(real, 'old');
    await symlink(real, link);
    await atomicWriteFile(link, 'new');
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(real);
    expect(await readFile(real, 'utf8')).toBe('new');

    await atomicWriteFile(link, 'replaced', { followSymlinks: false });
    expect((await lstat(link)).isSymbolicLink()).toBe(false);
    expect(await readFile(link, 'utf8')).toBe('replaced');
    expect(await readFile(real, 'utf8')).toBe('new');
  });

  it('lands concurrent writes to one file in call order: the last call wins', async () => {
    const file = join(dir, 'order.txt');
    await Promise.all(Array.from({ length: 20 }, (_, i) => atomicWriteFile(file, `${i}`.repeat(1000 * (20 - i)))));
    expect(await readFile(file, 'utf8')).toBe('19'.repeat(1000));
    expect(await readdir(dir)).toEqual(['order.txt']);
  });

  it("creates a file without a mode 0600 whatever the umask and the folder, and keeps an existing file's mode", async () => {
    const file = join(dir, 'plain.txt');
    const kept = join(dir, 'shared.txt');
    await chmod(dir, 0o755);
    await writeFile(kept, 'old', { mode: 0o644 });
    const old = process.umask(0o022);
    try {
      await atomicWriteFile(file, 'x');
      await atomicWriteFile(kept, 'new');
    } finally {
      process.umask(old);
    }
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(kept)).mode & 0o777).toBe(0o644);
  });
});
