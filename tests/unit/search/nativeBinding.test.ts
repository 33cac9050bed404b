// Two better-sqlite3 binaries: Node's in node_modules (rein, npm test, the benches), Electron's in a
// folder of its own (npm run rebuild:electron), chosen by process.versions.electron.
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appRootFrom,
  bindingCandidates,
  chooseSqliteBinding,
  type BindingContext,
} from '../../../src-main/core/search/nativeBinding.js';

const record = (o: Partial<Record<'electron' | 'modules' | 'platform' | 'arch', string>> = {}) =>
  JSON.stringify({ electron: '45.5.0', modules: '150', platform: 'darwin', arch: 'arm64', ...o });

function ctx(files: Record<string, string>, over: Partial<BindingContext> = {}): BindingContext {
  return {
    versions: { electron: '45.5.0', modules: '150' },
    platform: 'darwin',
    arch: 'arm64',
    appRoot: '/work/rein',
    exists: (p) => p in files,
    readText: (p) => files[p],
    ...over,
  };
}

const DEV = '/work/rein/build/native/electron/better_sqlite3.node';
const PACKAGED = '/Applications/Rein.app/Contents/Resources/native/better_sqlite3.node';

describe('which better-sqlite3 binary', () => {
  it('under Node: none given, node_modules keeps its own (Node) build', () => {
    expect(
      chooseSqliteBinding(ctx({ [DEV]: '', [`${DEV}.json`]: record() }, { versions: { modules: '115' } })),
    ).toEqual({ binding: undefined, why: 'node' });
  });

  it('under Electron: the rebuilt one whose record matches this ABI, platform and arch', () => {
    expect(chooseSqliteBinding(ctx({ [DEV]: '', [`${DEV}.json`]: record() }))).toEqual({
      binding: DEV,
      why: 'electron',
    });
  });

  it("a packaged app's resources come first", () => {
    const files = { [DEV]: '', [`${DEV}.json`]: record(), [PACKAGED]: '', [`${PACKAGED}.json`]: record() };
    expect(chooseSqliteBinding(ctx(files, { resourcesPath: '/Applications/Rein.app/Contents/Resources' }))).toEqual({
      binding: PACKAGED,
      why: 'electron',
    });
    expect(bindingCandidates({ resourcesPath: '/R', appRoot: '/A' })).toEqual([
      '/R/native/better_sqlite3.node',
      '/A/build/native/electron/better_sqlite3.node',
    ]);
  });

  it('a binary built for another Electron, platform or arch is not loaded, and says to rebuild', () => {
    for (const wrong of [
      record({ modules: '140', electron: '44.0.0' }),
      record({ arch: 'x64' }),
      record({ platform: 'linux' }),
    ]) {
      const c = chooseSqliteBinding(ctx({ [DEV]: '', [`${DEV}.json`]: wrong }));
      expect(c).toMatchObject({ binding: undefined, why: 'mismatch' });
      expect(c.why === 'mismatch' && c.problem).toMatch(/npm run rebuild:electron/);
    }
    expect(chooseSqliteBinding(ctx({ [DEV]: '' }))).toMatchObject({ why: 'mismatch' }); // no record
  });

  it('none built yet: the default, quietly', () => {
    expect(chooseSqliteBinding(ctx({}))).toEqual({ binding: undefined, why: 'none_built' });
  });

  it('finds the project folder from a bundled chunk', async () => {
    const root = await mkdtemp(join(tmpdir(), 'rein-root-'));
    await mkdir(join(root, 'out', 'main'), { recursive: true });
    await writeFile(join(root, 'package.json'), '{}');
    expect(appRootFrom(join(root, 'out', 'main', 'chunk-abc.js'))).toBe(root);
  });
});
