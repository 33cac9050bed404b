// Several real processes append to one memory folder at once: the lock must make every entry land exactly
// once, whole, and every overflow file must be reachable from exactly one pointer line.
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { autoFiles, readMemory } from './tempMemory.js';

const WORKERS = 8;
const APPENDS = 200;
const worker = join(import.meta.dirname, 'appendWorker.ts');

// 1,600 locked, fsynced writes take about a minute on a virtual disk. A RAM file system gives the same
// mkdir/rename/lock semantics (which are what this test is about) in a fraction of the time, so use one
// when the machine has it and fall back to the usual temp folder otherwise.
const RAM_TMP = '/dev/shm';
const ramTmp = (() => {
  try {
    accessSync(RAM_TMP, constants.W_OK);
    return statSync(RAM_TMP).isDirectory() ? RAM_TMP : undefined;
  } catch {
    return undefined;
  }
})();

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  const root = await mkdtemp(join(ramTmp ?? tmpdir(), 'rein-memory-conc-'));
  cleanup = () => rm(root, { recursive: true, force: true });
  dir = join(root, 'memory');
});
afterEach(() => cleanup());

function runWorker(id: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', worker, dir, String(id), String(APPENDS)], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const POINTER_RE = /^- \[\d{4}-\d{2}-\d{2}\] See \[(auto-[^\]]+\.md)\]\((auto-[^)]+\.md)\) for details$/;

describe('boundedAppend across processes', () => {
  it(
    `keeps every line of ${WORKERS} processes × ${APPENDS} appends exactly once, never interleaved`,
    { timeout: 300_000 },
    async () => {
      const results = await Promise.all(Array.from({ length: WORKERS }, (_, i) => runWorker(i)));
      for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });

      const memory = await readMemory(dir);
      expect(memory.endsWith('\n')).toBe(true);
      const entryLines: string[] = [];
      const pointed: string[] = [];
      for (const line of memory.slice(0, -1).split('\n')) {
        const m = POINTER_RE.exec(line);
        if (m) {
          expect(m[1]).toBe(m[2]);
          pointed.push(m[1]!);
        } else entryLines.push(line);
      }
      // MEMORY.md holds whole entries up to the bound, then only pointers.
      expect(entryLines.length).toBeLessThanOrEqual(150);

      const files = await autoFiles(dir);
      expect([...pointed].sort()).toEqual(files); // each overflow file linked exactly once, none dangling
      for (const name of files) {
        const text = await readFile(join(dir, name), 'utf8');
        const [heading, blank, ...rest] = text.slice(0, -1).split('\n');
        expect(heading).toMatch(/^# Auto-persisted Learnings \(\d{4}-\d{2}-\d{2}\)$/);
        expect(blank).toBe('');
        entryLines.push(...rest);
      }

      // Every entry is its two lines, in order and adjacent, exactly once.
      const seen = new Map<string, number>();
      expect(entryLines.length).toBe(WORKERS * APPENDS * 2);
      for (let i = 0; i < entryLines.length; i += 2) {
        const begin = /^- (w\d+-\d{4}) begin x{120}$/.exec(entryLines[i]!);
        expect(begin, `line ${i}: ${entryLines[i]}`).not.toBeNull();
        const tag = begin![1]!;
        expect(entryLines[i + 1]).toBe(`  ${tag} end`);
        seen.set(tag, (seen.get(tag) ?? 0) + 1);
      }
      expect(seen.size).toBe(WORKERS * APPENDS);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
    },
  );
});
