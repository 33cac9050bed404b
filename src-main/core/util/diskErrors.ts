/**
 * What a failed write means, in one place: a full disk (`ENOSPC`, a quota, SQLite's `SQLITE_FULL`) or
 * any other input/output failure becomes a ReinError that names the file — `disk_full` or `io_error`,
 * `details.file` and `details.errno` — so every face can say "cannot save session S to FILE: no space
 * left on device" instead of Node's bare "ENOSPC: no space left on device, write", which names nothing.
 * atomicWrite.ts, the session store and lock, the appenders (memory's overflow files, the pending-index
 * notes, heartbeat logs, the audit log, spilled tool results) and the search index all go through it.
 */
import { accessSync, constants, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { ReinError, errorMessage, isReinError } from '../errors.js';

/** errno codes that mean "no room": the disk, or the user's quota on it. */
const FULL = new Set(['ENOSPC', 'EDQUOT']);
/**
 * errno codes of a device or file system that cannot take the write at all. Codes callers act on
 * themselves (ENOENT: make the folder; EEXIST: the name is taken) are not storage failures.
 */
const DEVICE = new Set(['EIO', 'EROFS', 'ENXIO', 'EFBIG']);

/** The words for a code, as strerror says them (Node's messages add the syscall, which helps nobody). */
const WORDS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
  EROFS: 'read-only file system',
  ENXIO: 'no such device',
  EFBIG: 'file too large',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  SQLITE_FULL: 'no space left on device',
};

/** The errno (or SQLite) code of a failure, looking through ReinErrors made by this module and causes. */
export function errnoOf(e: unknown): string | undefined {
  return codeSource(e)?.code;
}

/** The error that carries the code, and the code (a ReinError's own code is Rein's, not the system's). */
function codeSource(e: unknown): { code: string; error: unknown } | undefined {
  for (let cur: unknown = e, depth = 0; cur !== null && typeof cur === 'object' && depth < 4; depth++) {
    if (isReinError(cur)) {
      const errno = cur.details?.errno;
      if (typeof errno === 'string') return { code: errno, error: cur };
    } else {
      const code = (cur as { code?: unknown }).code;
      if (typeof code === 'string') return { code, error: cur };
    }
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Whether the file system holding `path` (or its nearest existing folder) has no room left for its
 * user. SQLite says "disk I/O error" when its -wal or -shm cannot grow, whatever the reason; this tells
 * a full disk apart. False when it cannot be told.
 */
export function noRoomAt(path: string): boolean {
  for (let p = path, i = 0; i < 64; i++) {
    try {
      const st = statfsSync(p);
      return st.bavail === 0 || st.bavail * st.bsize < 4096;
    } catch {
      const up = dirname(p);
      if (up === p) return false;
      p = up;
    }
  }
  return false;
}

/** Whether the failure is a full disk (or quota). */
export function isDiskFull(e: unknown): boolean {
  const code = errnoOf(e);
  return code !== undefined && (FULL.has(code) || code === 'SQLITE_FULL');
}

/**
 * Whether the failure means the storage could not take a write: full, failing, or read-only. SQLite says
 * so with SQLITE_FULL, SQLITE_IOERR_* (its -wal or -shm could not grow), SQLITE_READONLY_* and
 * SQLITE_CANTOPEN (it could not make its journal).
 */
export function isStorageFailure(e: unknown): boolean {
  const code = errnoOf(e);
  if (code === undefined) return false;
  return (
    FULL.has(code) ||
    DEVICE.has(code) ||
    code === 'SQLITE_FULL' ||
    code.startsWith('SQLITE_IOERR') ||
    code.startsWith('SQLITE_READONLY') ||
    code === 'SQLITE_CANTOPEN'
  );
}

/**
 * The reason in words: strerror's for known codes, else the message of the error that carries the code
 * without Node's `CODE: ` and `, syscall 'path'`. With `file`, an I/O error of SQLite's on a disk with
 * no room left is said as the full disk it is.
 */
export function writeErrorReason(e: unknown, file?: string): string {
  if (isReinError(e, 'disk_full') || isReinError(e, 'io_error')) {
    const reason = e.details?.reason;
    if (typeof reason === 'string') return reason;
  }
  const source = codeSource(e);
  const code = source?.code;
  if (code !== undefined && Object.hasOwn(WORDS, code)) return WORDS[code]!;
  if (file !== undefined && code !== undefined && isSqliteIo(code)) {
    if (noRoomAt(file)) return WORDS.ENOSPC!;
    const denied = writeDenied(dirname(file));
    if (denied) return WORDS[denied]!;
  }
  const message = errorMessage(source?.error ?? e);
  const node = /^E[A-Z]+: (.*?)(?:, [a-z_]+(?: '.*')?)?$/.exec(message);
  return node ? node[1]! : message;
}

const isSqliteIo = (code: string) => code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN';

/** Why the folder cannot be written to (EROFS, EACCES…), when that is why; undefined otherwise. */
function writeDenied(dir: string): string | undefined {
  try {
    accessSync(dir, constants.W_OK);
    return undefined;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code !== undefined && code !== 'ENOENT' && Object.hasOwn(WORDS, code) ? code : undefined;
  }
}

/**
 * The failure of a write to `file` as a ReinError naming it: `cannot ${action}: ${reason}`, where the
 * action defaults to `write FILE` (the session store says `save session S to FILE`). `disk_full` for a
 * full disk or quota, `io_error` for anything else. An error this function made already keeps its
 * errno and reason and gets the new wording.
 */
export function describeWriteError(err: unknown, file: string, action = `write ${file}`): ReinError {
  const errno = errnoOf(err);
  const reason = writeErrorReason(err, file);
  const code = isDiskFull(err) || reason === WORDS.ENOSPC ? 'disk_full' : 'io_error';
  const cause = isReinError(err, 'disk_full') || isReinError(err, 'io_error') ? (err.cause ?? err) : err;
  return new ReinError(
    code,
    `cannot ${action}: ${reason}`,
    { file, reason, ...(errno !== undefined ? { errno } : {}) },
    { cause },
  );
}
