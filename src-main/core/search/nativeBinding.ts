/**
 * Which better-sqlite3 binary this process loads. The project's node_modules hold the one built for
 * Node (`rein`, `npm test`, the benches); Electron 45 needs one built for its own ABI
 * (`process.versions.modules` 150), or `npm start` on a Mac loses session search. Rebuilding
 * node_modules for Electron (electron-builder's rebuild) would break Node, so the Electron build lives
 * in a folder of its own, made by `npm run rebuild:electron` (scripts/rebuildElectronSqlite.js):
 *
 *   build/native/electron/better_sqlite3.node        the addon, built for Electron
 *   build/native/electron/better_sqlite3.node.json   {electron, modules, platform, arch} it was built for
 *
 * and a packaged app carries it as `<resources>/native/better_sqlite3.node` (with its .json). Under
 * Electron the first of those whose record matches this process (ABI, platform, arch) is handed to
 * better-sqlite3 as its `nativeBinding`; under Node, or when none matches, better-sqlite3 loads its
 * own (node_modules/better-sqlite3/build/Release), as before. Pure over two reads, tested without
 * Electron.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const ELECTRON_BINDING_DIR = join('build', 'native', 'electron');
export const BINDING_FILE = 'better_sqlite3.node';

/** What the rebuild script records beside the addon. */
export interface BindingRecord {
  electron: string;
  modules: string;
  platform: string;
  arch: string;
}

export interface BindingContext {
  versions: Partial<NodeJS.ProcessVersions> & { electron?: string };
  platform: NodeJS.Platform;
  arch: string;
  /** Electron's `process.resourcesPath` in a packaged app. */
  resourcesPath?: string;
  /** The project (or the unpacked app) folder: where build/native/electron is. */
  appRoot?: string;
  exists?: (path: string) => boolean;
  readText?: (path: string) => string | undefined;
}

export type BindingChoice =
  | { binding: undefined; why: 'node' | 'none_built' }
  | { binding: string; why: 'electron' }
  /** A binary is there but was built for another Electron, platform or arch: the default is used, and this says why. */
  | { binding: undefined; why: 'mismatch'; problem: string };

const readOrUndefined = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** The candidates, in order: the packaged app's resources, then the project's build folder. */
export function bindingCandidates(ctx: Pick<BindingContext, 'resourcesPath' | 'appRoot'>): string[] {
  const out: string[] = [];
  if (ctx.resourcesPath) out.push(join(ctx.resourcesPath, 'native', BINDING_FILE));
  if (ctx.appRoot) out.push(join(ctx.appRoot, ELECTRON_BINDING_DIR, BINDING_FILE));
  return out;
}

export function chooseSqliteBinding(ctx: BindingContext): BindingChoice {
  if (!ctx.versions.electron) return { binding: undefined, why: 'node' };
  const exists = ctx.exists ?? existsSync;
  const readText = ctx.readText ?? readOrUndefined;
  let problem: string | undefined;
  for (const file of bindingCandidates(ctx)) {
    if (!exists(file)) continue;
    const record = parseRecord(readText(`${file}.json`));
    if (!record) {
      problem ??= `${file} has no readable ${BINDING_FILE}.json beside it; run npm run rebuild:electron`;
      continue;
    }
    if (record.modules !== ctx.versions.modules || record.platform !== ctx.platform || record.arch !== ctx.arch) {
      problem ??=
        `${file} was built for Electron ${record.electron} (ABI ${record.modules}, ${record.platform}-${record.arch}), ` +
        `this is Electron ${ctx.versions.electron} (ABI ${ctx.versions.modules}, ${ctx.platform}-${ctx.arch}); run npm run rebuild:electron`;
      continue;
    }
    return { binding: file, why: 'electron' };
  }
  return problem ? { binding: undefined, why: 'mismatch', problem } : { binding: undefined, why: 'none_built' };
}

function parseRecord(text: string | undefined): BindingRecord | undefined {
  if (text === undefined) return undefined;
  try {
    const r = JSON.parse(text) as Partial<BindingRecord>;
    if ([r.electron, r.modules, r.platform, r.arch].every((v) => typeof v === 'string' && v !== ''))
      return r as BindingRecord;
  } catch {
    // unreadable: treated as no record
  }
  return undefined;
}

/**
 * The folder holding Rein's package.json, from a file inside it (a bundled chunk under out/, or the
 * source under src-main/): where build/native/electron is in a checkout.
 */
export function appRootFrom(file: string, exists: (path: string) => boolean = existsSync): string | undefined {
  let dir = dirname(file);
  for (let i = 0; i < 8; i++) {
    if (exists(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
  return undefined;
}
