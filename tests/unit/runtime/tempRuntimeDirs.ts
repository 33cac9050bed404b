/** A temporary Rein home and working folder per test (made before each test, removed after it). */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

export interface RuntimeDirs {
  root: string;
  home: string;
  cwd: string;
}

export function tempRuntimeDirs(prefix: string): RuntimeDirs {
  const dirs: RuntimeDirs = { root: '', home: '', cwd: '' };
  beforeEach(async () => {
    dirs.root = await mkdtemp(join(tmpdir(), prefix));
    dirs.home = join(dirs.root, 'home');
    dirs.cwd = join(dirs.root, 'work');
    await mkdir(dirs.cwd, { recursive: true });
    await mkdir(dirs.home, { recursive: true });
  });
  afterEach(async () => {
    await rm(dirs.root, { recursive: true, force: true });
  });
  return dirs;
}
