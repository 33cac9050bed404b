/**
 * Whole-file writes that another process (or a crash) can never observe half-done: the data goes to a
 * temp file in the same folder, is fsynced, then renamed over the target, and the folder is synced so
 * the rename survives a power cut. Used for Rein's own files (sessions, config, memory, daemon.json),
 * which are created 0600 unless the caller says otherwise.
 *
 * Written here rather than with write-file-atomic (which the file tools still use for the user's files,
 * where keeping the owner matters): that library resolves, stats, chowns and chmods on every call, and
 * a session is saved after every iteration of every run, so those five extra trips through libuv's
 * small thread pool were a large part of the daemon's latency under load. Writes to one path are
 * queued, so the last call's data is what ends up on disk.
 */
import * as fs from 'node:fs';
import { realpath, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describeWriteError, errnoOf } from './diskErrors.js';

export interface AtomicWriteOptions {
  /**
   * File mode of the result (e.g. 0o600), exactly. Absent: keep the existing file's mode, else 0o600.
   * Rein's files hold sessions, config, memory and tokens: a new one is its owner's alone whatever the
   * folder's mode (a REIN_HOME of 0755 must not make config.yaml readable by others).
   */
  mode?: number;
  /**
   * Write through a symlink to its target, so a config file kept in a dotfiles repository stays a link
   * (default true). Files only Rein makes (sessions) skip the extra lookup.
   */
  followSymlinks?: boolean;
  /**
   * Sync the folder after the rename (default true), which makes a new file's name survive a power
   * cut. A writer replacing a file it has already written once may skip it: should the rename be lost,
   * the previous complete version is what remains.
   */
  syncDir?: boolean;
}

/** The mode of a file this module creates when the caller names none. */
export const NEW_FILE_MODE = 0o600;

/** Temp names are unique within the process (the counter) and between processes (the pid). */
let tmpCounter = 0;

/** The write in progress (or queued last) per path: a new write for the path starts after it. */
const tails = new Map<string, Promise<unknown>>();

/**
 * What to write: text (as UTF-8), bytes, or pieces of them, each written before the next is asked for
 * (a large session is serialised that way, never held whole; sessions/sessionJson.ts). A piece that
 * throws ends the write: the temp file goes and the target stays as it was.
 */
export type AtomicWriteData = string | Uint8Array | Iterable<string | Uint8Array>;

export async function atomicWriteFile(
  path: string,
  data: AtomicWriteData,
  opts: AtomicWriteOptions = {},
): Promise<void> {
  const previous = tails.get(path);
  const mine = (previous ? previous.catch(() => undefined) : Promise.resolve()).then(() => writeNow(path, data, opts));
  tails.set(path, mine);
  try {
    await mine;
  } catch (e) {
    throw asWriteError(e, path);
  } finally {
    if (tails.get(path) === mine) tails.delete(path);
  }
}

/**
 * Node's errors of write(2), fsync(2) and rename(2) name no file ("ENOSPC: no space left on device,
 * write"), or the temp file: they become a ReinError naming the file asked for (`disk_full`, `io_error`).
 * A missing folder stays ENOENT, which callers answer by making it.
 */
function asWriteError(e: unknown, path: string): unknown {
  const code = errnoOf(e);
  if (code === undefined || code === 'ENOENT' || code === 'ENOTDIR' || !code.startsWith('E')) return e;
  return describeWriteError(e, path);
}

async function writeNow(link: string, data: AtomicWriteData, opts: AtomicWriteOptions): Promise<void> {
  const path = opts.followSymlinks === false ? link : await realpath(link).catch(() => link);
  // An explicit mode, else the existing file's; a new file is the owner's alone.
  const kept =
    opts.mode ??
    (await stat(path).then(
      (s) => s.mode & 0o7777,
      () => undefined,
    ));
  const mode = kept ?? NEW_FILE_MODE;
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${(tmpCounter++).toString(36)}.tmp`);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data instanceof Uint8Array ? data : undefined;
  // Plain descriptors rather than FileHandle objects: each FileHandle costs the main thread far more
  // than the system call it wraps, and a daemon under load saves sessions hundreds of times a second.
  const fd = await fdCall<number>((cb) => fs.open(tmp, 'wx', mode, cb));
  let renamed = false;
  try {
    try {
      if (bytes) await writeAll(fd, bytes);
      else
        for (const piece of data as Iterable<string | Uint8Array>)
          await writeAll(fd, typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece);
      // open() applies the umask, which may take group/other bits the mode asks for; an owner-only mode
      // (0o600, Rein's usual) cannot be changed by it, so only other modes cost a chmod.
      if (kept !== undefined && (kept & 0o077) !== 0) await fdCall<void>((cb) => fs.fchmod(fd, kept, cb));
      await fdCall<void>((cb) => fs.fsync(fd, cb));
    } finally {
      await fdCall<void>((cb) => fs.close(fd, cb));
    }
    await fdCall<void>((cb) => fs.rename(tmp, path, cb));
    renamed = true;
  } finally {
    if (!renamed) await unlink(tmp).catch(() => undefined);
  }
  if (opts.syncDir !== false) await fsyncDir(dirname(path));
}

/** A callback-style fs call as a promise. */
function fdCall<T>(start: (cb: (err: NodeJS.ErrnoException | null, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => start((err, value) => (err ? reject(err) : resolve(value as T))));
}

/** write(2) may take fewer bytes than asked: go on from where it stopped. */
async function writeAll(fd: number, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.byteLength) {
    const written = await fdCall<number>((cb) => fs.write(fd, bytes, offset, bytes.byteLength - offset, null, cb));
    offset += written;
  }
}

/**
 * The rename itself lives in the folder's metadata; without syncing the folder a power cut can undo it.
 * Best effort: some platforms and file systems refuse to open or sync a directory, and the data file
 * itself is already safely on disk by then.
 */
async function fsyncDir(dir: string): Promise<void> {
  let fd: number | undefined;
  try {
    fd = await fdCall<number>((cb) => fs.open(dir, 'r', cb));
    await fdCall<void>((cb) => fs.fsync(fd!, cb));
  } catch {
    // Not fatal: see above.
  } finally {
    if (fd !== undefined) await fdCall<void>((cb) => fs.close(fd!, cb)).catch(() => undefined);
  }
}
