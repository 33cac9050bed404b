import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileEditTool } from '../../../src-main/core/tools/builtin/fileEdit.js';
import { fileReadTool } from '../../../src-main/core/tools/builtin/fileRead.js';
import { fileWriteTool } from '../../../src-main/core/tools/builtin/fileWrite.js';
import type { ToolContext } from '../../../src-main/core/tools/tool.js';
import {
  anyCaseKey,
  isCaseInsensitiveAt,
  protectedMemoryPaths,
  protectedPathReason,
  type FileIdentity,
} from '../../../src-main/core/memory/files.js';
import { boundedAppend, memoryDir } from '../../../src-main/core/memory/index.js';
import { callTool, makeToolContext, type TempToolContext } from '../tools/toolTestContext.js';

const REASON = 'use memory_append to change memory';
const SPELLINGS = ['MEMORY.md', 'memory.md', 'Memory.Md', 'MEMORY.MD'];

/** Whether the temp folder's file system ignores case: a case-sensitive run cannot be simulated on one that does. */
const tempIgnoresCase = ((): boolean => {
  const probe = mkdtempSync(join(tmpdir(), 'rein-case-'));
  try {
    writeFileSync(join(probe, 'CASE'), '');
    return existsSync(join(probe, 'case'));
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

let t: TempToolContext;
let dir: string;
beforeEach(async () => {
  t = await makeToolContext();
  dir = memoryDir(t.ctx.reinHome, 'default');
  await boundedAppend(dir, '- keep me');
});
afterEach(() => t.cleanup());

/** Reads MEMORY.md (so staleness is not why a write fails), then tries both file tools on `path`. */
async function tryBothTools(
  ctx: ToolContext,
  path: string,
): Promise<{ write: string | undefined; edit: string | undefined }> {
  await callTool(fileReadTool, { path: join(dir, 'MEMORY.md') }, ctx);
  const w = await callTool(fileWriteTool, { path, content: 'wiped' }, ctx);
  const e = await callTool(fileEditTool, { path, old_string: 'keep', new_string: 'lose' }, ctx);
  return { write: w.errorKind, edit: e.errorKind };
}

const memoryText = (): Promise<string> => readFile(join(dir, 'MEMORY.md'), 'utf8');

describe('protected MEMORY.md on a case-insensitive file system (simulated)', () => {
  it.each(SPELLINGS)('refuses %s through file_write and file_edit', async (name) => {
    const ctx = { ...t.ctx, protectedPaths: protectedMemoryPaths(dir, { caseInsensitive: true }) };
    const w = await callTool(fileWriteTool, { path: join(dir, name), content: 'wiped' }, ctx);
    expect(w.errorKind).toBe('permission');
    expect(w.content).toContain(REASON);
    const e = await callTool(fileEditTool, { path: join(dir, name), old_string: 'keep', new_string: 'lose' }, ctx);
    expect(e.errorKind).toBe('permission');
    expect(e.content).toContain(REASON);
    expect(await memoryText()).toBe('- keep me\n');
    if (name !== 'MEMORY.md') expect(existsSync(join(dir, name))).toBe(false);
  });

  it('refuses a relative path and a folder spelt in another case', async () => {
    const ctx = { ...t.ctx, cwd: t.ctx.reinHome, protectedPaths: protectedMemoryPaths(dir, { caseInsensitive: true }) };
    expect(await tryBothTools(ctx, 'Memory/memory.md')).toEqual({ write: 'permission', edit: 'permission' });
    expect(await tryBothTools(ctx, join(t.ctx.reinHome.toUpperCase(), 'MEMORY', 'MEMORY.md'))).toEqual({
      write: 'permission',
      edit: 'permission',
    });
  });

  it('still lets other files in the memory folder be written', async () => {
    const ctx = { ...t.ctx, protectedPaths: protectedMemoryPaths(dir, { caseInsensitive: true }) };
    const w = await callTool(fileWriteTool, { path: join(dir, 'notes.md'), content: 'fine' }, ctx);
    expect(w.ok).toBe(true);
    expect(await readFile(join(dir, 'notes.md'), 'utf8')).toBe('fine');
  });
});

describe('protected MEMORY.md on a case-sensitive file system', () => {
  it.runIf(!tempIgnoresCase)(
    'refuses MEMORY.md but leaves memory.md and Memory.Md writable: they are other files',
    async () => {
      const ctx = { ...t.ctx, protectedPaths: protectedMemoryPaths(dir, { caseInsensitive: false }) };
      expect(await tryBothTools(ctx, join(dir, 'MEMORY.md'))).toEqual({ write: 'permission', edit: 'permission' });
      for (const name of ['memory.md', 'Memory.Md']) {
        const w = await callTool(fileWriteTool, { path: join(dir, name), content: `${name} body` }, ctx);
        expect(w.ok).toBe(true);
        const e = await callTool(
          fileEditTool,
          { path: join(dir, name), old_string: 'body', new_string: 'edited' },
          ctx,
        );
        expect(e.ok).toBe(true);
        expect(await readFile(join(dir, name), 'utf8')).toBe(`${name} edited`);
      }
      expect(await memoryText()).toBe('- keep me\n');
    },
  );

  it('stores no case-folded key, so no other spelling matches', () => {
    const paths = protectedMemoryPaths(dir, { caseInsensitive: false });
    expect(protectedPathReason(paths, join(dir, 'MEMORY.md'))).toBe(REASON);
    expect(protectedPathReason(paths, join(dir, 'memory.md'))).toBeUndefined();
    expect([...paths.keys()].some((k) => k === anyCaseKey(join(dir, 'MEMORY.md')))).toBe(false);
  });

  it.runIf(process.platform === 'linux')(
    'is what Linux detects, so memory.md stays writable with the default map',
    async () => {
      expect(isCaseInsensitiveAt(join(dir, 'MEMORY.md'))).toBe(false);
      const ctx = { ...t.ctx, protectedPaths: protectedMemoryPaths(dir) };
      const w = await callTool(fileWriteTool, { path: join(dir, 'memory.md'), content: 'mine' }, ctx);
      expect(w.ok).toBe(true);
      expect(await memoryText()).toBe('- keep me\n');
    },
  );
});

describe('protected MEMORY.md behind symlinks', () => {
  it('refuses other spellings through the symlinked home the map was built from', async () => {
    const link = join(t.dir, 'home-link');
    await symlink(t.ctx.reinHome, link);
    const ctx = {
      ...t.ctx,
      protectedPaths: protectedMemoryPaths(memoryDir(link, 'default'), { caseInsensitive: true }),
    };
    for (const path of [join(link, 'memory', 'memory.md'), join(dir, 'Memory.Md')]) {
      expect(await tryBothTools(ctx, path)).toEqual({ write: 'permission', edit: 'permission' });
    }
    expect(await memoryText()).toBe('- keep me\n');
  });

  it('refuses another spelling through a symlink the map knows nothing about (matched by the real path)', async () => {
    const alias = join(t.dir, 'alias');
    await symlink(dir, alias);
    const ctx = { ...t.ctx, protectedPaths: protectedMemoryPaths(dir, { caseInsensitive: true }) };
    expect(await tryBothTools(ctx, join(alias, 'Memory.md'))).toEqual({ write: 'permission', edit: 'permission' });
    expect(await memoryText()).toBe('- keep me\n');
  });
});

describe('Unicode normalisation of the memory folder', () => {
  it('refuses the NFD spelling of an NFC folder name (APFS finds the same folder by either)', async () => {
    const agentDir = memoryDir(t.ctx.reinHome, 'caf\u00e9');
    await mkdir(agentDir, { recursive: true });
    const nfd = memoryDir(t.ctx.reinHome, 'cafe\u0301');
    for (const caseInsensitive of [false, true]) {
      const paths = protectedMemoryPaths(agentDir, { caseInsensitive });
      const ctx = { ...t.ctx, protectedPaths: paths };
      const w = await callTool(fileWriteTool, { path: join(nfd, 'MEMORY.md'), content: 'x' }, ctx);
      expect(w.errorKind).toBe('permission');
    }
    const folded = protectedMemoryPaths(agentDir, { caseInsensitive: true });
    expect(protectedPathReason(folded, join(memoryDir(t.ctx.reinHome, 'CAFE\u0301'), 'memory.md'))).toBe(REASON);
  });
});

describe('isCaseInsensitiveAt', () => {
  /** A fake file system: `entries` maps a lookup spelling to a file id. */
  const fakeFs =
    (entries: Record<string, number>): FileIdentity =>
    (p) => {
      const id = entries[p];
      return id === undefined ? undefined : { dev: 1n, ino: BigInt(id) };
    };

  it('says insensitive when the flipped spelling of the file is the same file', () => {
    const identity = fakeFs({ '/h/memory/MEMORY.md': 7, '/h/memory/memory.MD': 7 });
    expect(isCaseInsensitiveAt('/h/memory/MEMORY.md', { identity, platform: 'linux' })).toBe(true);
  });

  it('says sensitive when the flipped spelling is missing or another file, whatever the platform', () => {
    expect(
      isCaseInsensitiveAt('/h/memory/MEMORY.md', {
        identity: fakeFs({ '/h/memory/MEMORY.md': 7 }),
        platform: 'darwin',
      }),
    ).toBe(false);
    const twoFiles = fakeFs({ '/h/memory/MEMORY.md': 7, '/h/memory/memory.MD': 8 });
    expect(isCaseInsensitiveAt('/h/memory/MEMORY.md', { identity: twoFiles, platform: 'win32' })).toBe(false);
  });

  it('probes the nearest existing ancestor with a letter in its name when the file does not exist yet', () => {
    const identity = fakeFs({ '/h': 1, '/H': 1, '/h/agents': 2, '/h/AGENTS': 2 });
    expect(isCaseInsensitiveAt('/h/agents/42/MEMORY.md', { identity, platform: 'linux' })).toBe(true);
    const sensitive = fakeFs({ '/h': 1, '/h/agents': 2, '/h/agents/42': 3 });
    expect(isCaseInsensitiveAt('/h/agents/42/MEMORY.md', { identity: sensitive, platform: 'darwin' })).toBe(false);
  });

  it('falls back to the platform when nothing on the path can be probed', () => {
    const nothing = fakeFs({});
    expect(isCaseInsensitiveAt('/h/memory/MEMORY.md', { identity: nothing, platform: 'darwin' })).toBe(true);
    expect(isCaseInsensitiveAt('/h/memory/MEMORY.md', { identity: nothing, platform: 'win32' })).toBe(true);
    expect(isCaseInsensitiveAt('/h/memory/MEMORY.md', { identity: nothing, platform: 'linux' })).toBe(false);
    const throws: FileIdentity = () => {
      throw Object.assign(new Error('denied'), { code: 'EACCES' });
    };
    expect(isCaseInsensitiveAt('/h/memory/MEMORY.md', { identity: throws, platform: 'darwin' })).toBe(true);
  });

  it('agrees with the real file system under the temp folder, for the file and for its folder', async () => {
    const probeDir = join(t.dir, 'probe');
    await mkdir(probeDir);
    await writeFile(join(probeDir, 'MEMORY.md'), 'x');
    const reallyInsensitive = existsSync(join(probeDir, 'memory.md'));
    expect(isCaseInsensitiveAt(join(probeDir, 'MEMORY.md'))).toBe(reallyInsensitive);
    expect(isCaseInsensitiveAt(join(probeDir, 'not-yet', 'MEMORY.md'))).toBe(reallyInsensitive);
  });
});

describe('no spelling of MEMORY.md changes it, on the real file system', () => {
  it('leaves MEMORY.md unchanged whichever spelling file_write and file_edit are given', async () => {
    const ctx = { ...t.ctx, protectedPaths: protectedMemoryPaths(dir) };
    for (const name of SPELLINGS) await tryBothTools(ctx, join(dir, name));
    expect(await memoryText()).toBe('- keep me\n');
  });
});

describe.runIf(process.platform === 'darwin')('real APFS', () => {
  it('refuses memory.md exactly when the volume finds MEMORY.md under that name', async () => {
    const insensitive = existsSync(join(dir, 'memory.md'));
    expect(isCaseInsensitiveAt(join(dir, 'MEMORY.md'))).toBe(insensitive);
    const ctx = { ...t.ctx, protectedPaths: protectedMemoryPaths(dir) };
    const w = await callTool(fileWriteTool, { path: join(dir, 'memory.md'), content: 'wiped' }, ctx);
    expect(w.errorKind).toBe(insensitive ? 'permission' : undefined);
    expect(await memoryText()).toBe('- keep me\n');
  });

  it('finds an NFC folder by its NFD name, and refuses MEMORY.md reached that way', async () => {
    const agentDir = memoryDir(t.ctx.reinHome, 'caf\u00e9');
    await boundedAppend(agentDir, '- accent');
    const nfd = memoryDir(t.ctx.reinHome, 'cafe\u0301');
    expect(existsSync(join(nfd, 'MEMORY.md'))).toBe(true);
    const ctx = { ...t.ctx, protectedPaths: protectedMemoryPaths(agentDir) };
    const w = await callTool(fileWriteTool, { path: join(nfd, 'MEMORY.md'), content: 'wiped' }, ctx);
    expect(w.errorKind).toBe('permission');
    expect(await readFile(join(agentDir, 'MEMORY.md'), 'utf8')).toBe('- accent\n');
  });
});
