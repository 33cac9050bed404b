/** Finding programs on PATH without spawning `which` (which may itself be missing). */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export function findOnPath(name: string, pathVar: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (pathVar ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}
