/** Symlinks resolved for a path that may not exist yet. */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** Whether something (a file, a folder, a link) is at `p`; never throws (an exception costs more than the check). */
function present(p: string): boolean {
  try {
    return lstatSync(p, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false; // ENOTDIR and the like: nothing is there
  }
}

/** realpath when the file exists; otherwise realpath of the nearest existing folder plus the rest. */
export function realpathLoose(abs: string): string {
  const tail: string[] = [];
  let dir = abs;
  for (let guard = 0; guard < 256; guard++) {
    if (present(dir)) {
      try {
        const real = realpathSync.native(dir);
        return tail.length > 0 ? path.join(real, ...tail) : real;
      } catch {
        // A dangling or looping link: resolve what is above it.
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return abs;
    tail.unshift(path.basename(dir));
    dir = parent;
  }
  return abs;
}
