import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildLaunchdPlist, writeLaunchdPlist } from '../../../src-main/core/schedule/launchdPlist.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

const CHILD = join(import.meta.dirname, '..', '..', 'fixtures', 'schedule', 'plistWriterChild.ts');
// About a megabyte each (9,499 and 9,039 dicts), so a write takes long enough to be shot in the middle.
const CRONS = ['0-58 0-22 1-7 * *', '1-59 1-23 2-8 * *'];
const plist = (cron: string) =>
  buildLaunchdPlist({ id: 'k1ll9', cron, programPrefix: ['/usr/bin/true'], reinHome: '/tmp/rein-kill-test' }).xml;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-plist-kill-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts the writer, lets it finish `writes` writes plus a random part of the next, then kill -9. */
async function shootWriter(target: string, writes: number, extraMs: number): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, target, ...CRONS], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let lines = 0;
    child.stdout.on('data', (b: Buffer) => {
      lines += b.toString().split('\n').length - 1;
      if (lines >= writes) resolve();
    });
    child.once('exit', (code) => reject(new Error(`writer exited early (${code}): ${stderr}`)));
  });
  await new Promise((r) => setTimeout(r, extraMs));
  child.kill('SIGKILL');
  await exited;
}

it(
  'a writer killed with SIGKILL leaves the old or the new plist, never part of one',
  { timeout: 120_000 },
  async () => {
    const a = plist(CRONS[0]!);
    const b = plist(CRONS[1]!);
    expect(a.length).toBeGreaterThan(500_000);
    const target = join(dir, 'dev.rein.schedule.k1ll9.plist');
    const seen = new Set<string>();
    for (let round = 0; round < 12; round++) {
      await shootWriter(target, 1 + (round % 3), Math.floor(Math.random() * 40));
      const text = await readFile(target, 'utf8');
      expect(text === a || text === b, `round ${round}: ${text.length} bytes, neither plist`).toBe(true);
      seen.add(text === a ? 'a' : 'b');
    }
    // Both versions were caught on disk at some point: the kills landed between and during writes.
    expect(seen.size).toBe(2);
    // What a kill can leave is a temp file next to it, never under the plist's own name.
    const leftovers = (await readdir(dir)).filter((n) => n !== 'dev.rein.schedule.k1ll9.plist');
    expect(leftovers.every((n) => /^\.dev\.rein\.schedule\.k1ll9\.plist\.\d+\.[0-9a-z]+\.tmp$/.test(n))).toBe(true);
  },
);

it('the writer replaces the file whole, mode 0644, and leaves no temp file', async () => {
  const target = join(dir, 'x.plist');
  await writeLaunchdPlist(target, plist('@daily'));
  await writeLaunchdPlist(target, plist('@hourly'));
  expect(await readFile(target, 'utf8')).toBe(plist('@hourly'));
  const { stat } = await import('node:fs/promises');
  expect((await stat(target)).mode & 0o777).toBe(0o644);
  expect(await readdir(dir)).toEqual(['x.plist']);
});
