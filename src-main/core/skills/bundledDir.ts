/**
 * Where the skills shipped with Rein live. Source runs (tests, tsx) and the built CLI
 * (`out/cli/rein.js`) both sit below the folder holding Rein's package.json, with the skills in
 * `resources/skills/` beside it. The packaged desktop app keeps them outside app.asar in
 * `Contents/Resources/skills/` (a script inside an asar archive cannot be executed), which Electron
 * exposes as `process.resourcesPath`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The nearest folder at or above `start` that holds a package's package.json (one with a `name`), or
 * undefined. A package.json without a name only sets the module kind of its folder, as the built CLI's
 * `out/cli/package.json` (`"type": "commonjs"`) does, and is passed over.
 */
export function findPackageRoot(start: string): string | undefined {
  let dir = start;
  for (;;) {
    if (isPackage(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function isPackage(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown };
    return typeof pkg.name === 'string';
  } catch {
    return false;
  }
}

/**
 * The bundled skills folder, or undefined when none is found. `moduleUrl` is the URL of the calling
 * module's file (defaults to this one, which after bundling is the CLI or main bundle).
 */
export function bundledSkillsDir(moduleUrl: string = import.meta.url): string | undefined {
  const resourcesPath = (process as { resourcesPath?: string }).resourcesPath;
  const candidates: string[] = [];
  if (resourcesPath) candidates.push(join(resourcesPath, 'skills'));
  const root = findPackageRoot(dirname(fileURLToPath(moduleUrl)));
  if (root) candidates.push(join(root, 'resources', 'skills'));
  return candidates.find((dir) => existsSync(dir));
}
