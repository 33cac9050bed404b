/**
 * Can this process list a folder? What a file watcher needs before it trusts the folder's silence.
 *
 * `access(R_OK)` is not enough: macOS's privacy protection (TCC: Desktop, Documents, Downloads, other
 * apps' data, removable and network volumes) leaves the POSIX permission bits alone and refuses the
 * `open` of the folder itself with EPERM, for the app that is not allowed in — so the folder is opened
 * and one entry read, the way the watcher will. On Linux a folder without r/x for this user gives
 * EACCES. Both are `unreadable`; a folder that is not there (or not a folder) is said so apart.
 */
import { opendir, realpath, stat } from 'node:fs/promises';

export type FolderAccess =
  | { ok: true; /** The folder with symlinks resolved. */ real: string }
  | {
      ok: false;
      kind: 'missing' | 'not_a_folder' | 'unreadable';
      /** The errno code (EPERM, EACCES, ENOENT…). */ code?: string;
      reason: string;
    };

const DENIED = new Set(['EPERM', 'EACCES']);

/** Reads the folder at `path` (symlinks resolved) far enough to know it can be watched. Never throws. */
export async function folderAccess(
  path: string,
  probe: (dir: string) => Promise<void> = listOne,
): Promise<FolderAccess> {
  let real: string;
  try {
    real = await realpath(path);
    if (!(await stat(real)).isDirectory())
      return { ok: false, kind: 'not_a_folder', reason: `${path} is not a folder` };
  } catch (e) {
    return failure(path, e);
  }
  try {
    await probe(real);
  } catch (e) {
    return failure(path, e);
  }
  return { ok: true, real };
}

/** The error of reading a folder, in the three kinds a person acts on differently. */
export function failure(path: string, e: unknown): Extract<FolderAccess, { ok: false }> {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code && DENIED.has(code))
    return {
      ok: false,
      kind: 'unreadable',
      code,
      reason: `${path} cannot be read (${code}: ${code === 'EPERM' ? 'operation not permitted' : 'permission denied'})`,
    };
  if (code === 'ENOTDIR') return { ok: false, kind: 'not_a_folder', code, reason: `${path} is not a folder` };
  if (code === 'ENOENT') return { ok: false, kind: 'missing', code, reason: `${path} does not exist` };
  return {
    ok: false,
    kind: 'unreadable',
    ...(code ? { code } : {}),
    reason: `${path} cannot be read (${code ?? (e instanceof Error ? e.message : String(e))})`,
  };
}

/** Is this error one of a folder this process may not read? (chokidar's errors, a readdir's.) */
export function isAccessDenied(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && DENIED.has(code);
}

/** What a person does about an unreadable folder, on their platform. */
export function unreadableHint(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') {
    return 'macOS privacy settings keep Rein out of this folder: give Rein (for `rein daemon`, the terminal app it runs in) access in System Settings › Privacy & Security › Files and Folders, or Full Disk Access, then restart it';
  }
  return 'give the user Rein runs as read and search permission on the folder (ls -ld shows who may read it), or watch another folder';
}

async function listOne(dir: string): Promise<void> {
  const d = await opendir(dir);
  try {
    await d.read();
  } finally {
    await d.close().catch(() => undefined);
  }
}
