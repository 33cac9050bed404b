/**
 * A real small disk for full-disk tests: a tmpfs of a few MB mounted on a temp folder (root only), that
 * a test fills to the last byte with a filler file and frees again. Where it cannot be mounted the tests
 * are skipped with the reason — except under CI=true, where .ci/run runs as root and a skip would hide
 * the very checks the suite exists for: there the test fails instead.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Why no small disk can be mounted here, or undefined when one can. */
export const smallDiskUnavailable: string | undefined = probe();

function probe(): string | undefined {
  if (process.platform !== 'linux') return `tmpfs mounts are a Linux feature (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  const dir = mkdtempSync(join(tmpdir(), 'rein-tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'pipe' });
    execFileSync('umount', [dir], { stdio: 'pipe' });
    return undefined;
  } catch (e) {
    return `mount -t tmpfs failed: ${(e as { stderr?: Buffer }).stderr?.toString().trim() || String(e)}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Skips (or, under CI, fails) when no small disk can be had. Call at the top of a describe's tests. */
export function requireSmallDisk(): boolean {
  if (smallDiskUnavailable === undefined) return true;
  if (process.env.CI === 'true')
    throw new Error(`CI runs as root and must run the full-disk tests: ${smallDiskUnavailable}`);
  return false;
}

export interface SmallDisk {
  /** The mount point. */
  dir: string;
  /**
   * Fills every free byte (a filler file, written until ENOSPC). With `leave`, that many bytes (whole
   * 4 KiB pages) stay free: room for a small file (a lock's owner record) but not for a session.
   */
  fill(opts?: { leave?: number }): Promise<void>;
  /** Removes the filler: the disk has room again. */
  free(): Promise<void>;
  /** Unmounts and removes the mount point. */
  unmount(): void;
}

export async function mountSmallDisk(sizeBytes = 2 * 1024 * 1024): Promise<SmallDisk> {
  const dir = mkdtempSync(join(tmpdir(), 'rein-small-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  const filler = join(dir, '.filler');
  return {
    dir,
    async fill(opts = {}) {
      await mkdir(dir, { recursive: true });
      const reserve = join(dir, '.reserve');
      if (opts.leave) await writeFile(reserve, Buffer.alloc(opts.leave, 0x2e));
      const fh = await open(filler, 'a');
      try {
        // Big pieces first, then smaller ones, down to a single byte: no page is left half free.
        for (let size = 256 * 1024; size >= 1; size = Math.floor(size / 4)) {
          const chunk = Buffer.alloc(size, 0x2e);
          for (;;) {
            try {
              const { bytesWritten } = await fh.write(chunk);
              if (bytesWritten < size) break;
            } catch (e) {
              if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
              break;
            }
          }
        }
      } finally {
        await fh.close().catch(() => undefined);
        await rm(reserve, { force: true });
      }
    },
    async free() {
      await rm(filler, { force: true });
    },
    unmount() {
      try {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
