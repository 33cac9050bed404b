/**
 * Whole-file writes that another process (or a crash) can never observe half-done: the data goes to a
 * temp file in the same folder, is fsynced, then renamed over the target. Used for session files and,
 * later, config edits.
 */
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';

export interface AtomicWriteOptions {
  /** File mode of the result (e.g. 0o600). Absent: keep the existing file's mode, else the default. */
  mode?: number;
}

export async function atomicWriteFile(
  path: string,
  data: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): Promise<void> {
  // write-file-atomic mutates its options object, so it gets a fresh one every call.
  const options: writeFileAtomic.Options = { fsync: true, encoding: 'utf8' };
  if (opts.mode !== undefined) options.mode = opts.mode;
  await writeFileAtomic(path, typeof data === 'string' ? data : Buffer.from(data), options);
  await fsyncDir(dirname(path));
}

/**
 * The rename itself lives in the folder's metadata; without syncing the folder a power cut can undo it.
 * Best effort: some platforms and file systems refuse to open or sync a directory, and the data file
 * itself is already safely on disk by then.
 */
async function fsyncDir(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Not fatal: see above.
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
