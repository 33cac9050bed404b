/** A temp memory folder per test, and small helpers to fill and inspect it. */
import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function tempDir(prefix = 'rein-memory-'): Promise<{ root: string; cleanup(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** `n` numbered lines, each ending with a newline. */
export const numberedLines = (n: number, label = 'line'): string =>
  Array.from({ length: n }, (_, i) => `- ${label} ${i + 1}\n`).join('');

export async function readMemory(dir: string): Promise<string> {
  return readFile(join(dir, 'MEMORY.md'), 'utf8');
}

export async function autoFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.startsWith('auto-')).sort();
}

/** Writes `count` overflow files with distinct names and contents. */
export async function writeAutoFiles(dir: string, count: number, date = '2026-03-01'): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `auto-${date}-${i.toString(16).padStart(6, '0')}.md`;
    await writeFile(join(dir, name), `# Auto-persisted Learnings (${date})\n\n- fact number ${i}\n`);
    names.push(name);
  }
  return names;
}

export async function setMtime(path: string, when: Date): Promise<void> {
  await utimes(path, when, when);
}

export const DAY_MS = 24 * 60 * 60 * 1000;
