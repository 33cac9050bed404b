// File tools: paths are resolved the way the tool will (~, relative, symlinks), sensitive files ask even
// for reads, writes ask unless the mode allows them. Uses real files and symlinks in a temp folder.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFileAccess, sensitiveReason } from '../../../src-main/core/permissions/fileRules.js';
import { initShellParser } from '../../../src-main/core/permissions/shell/parser.js';
import { engineFor, fakeTool } from './helpers.js';

let root: string;
let home: string;
let project: string;

const read = fakeTool('file_read', { readOnly: true });
const write = fakeTool('file_write');
const edit = fakeTool('file_edit');
const glob = fakeTool('glob', { readOnly: true });
const grep = fakeTool('grep', { readOnly: true });
const list = fakeTool('directory_list', { readOnly: true });

beforeAll(async () => {
  await initShellParser();
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'rein-perm-')));
  home = path.join(root, 'home');
  project = path.join(home, 'project');
  mkdirSync(path.join(home, '.ssh'), { recursive: true });
  mkdirSync(path.join(home, '.aws'), { recursive: true });
  mkdirSync(path.join(project, 'src'), { recursive: true });
  writeFileSync(path.join(home, '.ssh', 'id_ed25519'), 'secret');
  writeFileSync(path.join(home, '.ssh', 'config'), 'Host x');
  writeFileSync(path.join(home, '.aws', 'credentials'), 'secret');
  writeFileSync(path.join(project, '.env'), 'A=1');
  writeFileSync(path.join(project, 'README.md'), 'hi');
  symlinkSync(path.join(home, '.ssh', 'id_ed25519'), path.join(project, 'innocent.txt'));
  symlinkSync(path.join(home, '.aws'), path.join(project, 'cloud'));
  symlinkSync('/etc', path.join(project, 'etc-link'));
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const check = (opts: Parameters<typeof engineFor>[0] = {}) =>
  engineFor({ home, reinHome: path.join(home, '.rein'), ...opts });

describe('reads', () => {
  it('allows reading ordinary files, relative or absolute', async () => {
    expect((await check()({ tool: read, input: { path: 'README.md' }, cwd: project })).decision).toBe('allow');
    expect(
      (await check()({ tool: read, input: { path: path.join(project, 'README.md') }, cwd: project })).decision,
    ).toBe('allow');
  });

  it.each([
    ['.env', 'the env file'],
    ['~/.ssh/id_ed25519', 'an ssh key via ~'],
    ['~/.ssh/config', 'the ssh config (a pattern that could never match by name alone)'],
    ['../.aws/credentials', 'aws credentials via ..'],
    ['server.pem', 'a pem file that does not exist yet'],
    ['keys/api.key', 'a .key file'],
    ['tokens.json', 'tokens.json'],
    ['/Library/Keychains/System.keychain', 'a keychain'],
  ])('asks before reading %s (%s)', async (p) => {
    const d = await check()({ tool: read, input: { path: p }, cwd: project });
    expect(d.decision).toBe('ask');
    expect(d.reason).toMatch(/sensitive/);
    expect(d.risk).toBe('medium');
  });

  it('asks when a harmless-looking symlink points at a sensitive file or folder', async () => {
    const viaFile = await check()({ tool: read, input: { path: 'innocent.txt' }, cwd: project });
    expect(viaFile.decision).toBe('ask');
    expect(viaFile.reason).toContain('.ssh');
    expect((await check()({ tool: read, input: { path: 'cloud/credentials' }, cwd: project })).decision).toBe('ask');
  });

  it('asks for glob, grep and directory_list aimed at a sensitive place', async () => {
    expect((await check()({ tool: list, input: { path: '~/.ssh' }, cwd: project })).decision).toBe('ask');
    expect((await check()({ tool: grep, input: { pattern: 'KEY', path: '~/.aws' }, cwd: project })).decision).toBe(
      'ask',
    );
    expect((await check()({ tool: glob, input: { pattern: '~/.ssh/*' }, cwd: project })).decision).toBe('ask');
    expect((await check()({ tool: glob, input: { pattern: '**/*.ts' }, cwd: project })).decision).toBe('allow');
    expect((await check()({ tool: list, input: {}, cwd: project })).decision).toBe('allow');
  });

  it('honours sensitive_patterns from the config, by name or by path', async () => {
    const c = check({ permissions: { sensitive_patterns: ['*.sqlite', '~/project/private/**'] } });
    expect((await c({ tool: read, input: { path: 'data.sqlite' }, cwd: project })).decision).toBe('ask');
    expect((await c({ tool: read, input: { path: 'private/notes.md' }, cwd: project })).decision).toBe('ask');
    expect((await c({ tool: read, input: { path: 'public/notes.md' }, cwd: project })).decision).toBe('allow');
  });

  it("treats Rein's own settings as sensitive", async () => {
    expect(
      (await check()({ tool: write, input: { path: '~/.rein/config.yaml' }, cwd: project, mode: 'acceptEdits' }))
        .decision,
    ).toBe('ask');
    // A protected place: a person decides in bypassPermissions too (protected.test.ts).
    expect(
      (
        await check()({
          tool: write,
          input: { path: '~/.rein/agents/ops/config.yaml' },
          cwd: project,
          mode: 'bypassPermissions',
        })
      ).decision,
    ).toBe('ask');
  });
});

describe('writes', () => {
  it('ask in default mode, inside or outside the working folder', async () => {
    expect((await check()({ tool: write, input: { path: 'src/new.ts' }, cwd: project })).decision).toBe('ask');
    expect((await check()({ tool: edit, input: { path: 'README.md' }, cwd: project })).decision).toBe('ask');
    const outside = await check()({ tool: write, input: { path: '/tmp/x' }, cwd: project });
    expect(outside.reason).toMatch(/outside the working folder/);
    expect(outside.risk).toBe('high');
  });

  it('acceptEdits allows writes inside the working folder but not through a symlink that leaves it', async () => {
    expect(
      (await check()({ tool: edit, input: { path: 'src/new.ts' }, cwd: project, mode: 'acceptEdits' })).decision,
    ).toBe('allow');
    expect(
      (await check()({ tool: write, input: { path: 'etc-link/hosts' }, cwd: project, mode: 'acceptEdits' })).decision,
    ).toBe('ask');
    expect(
      (await check()({ tool: write, input: { path: 'innocent.txt' }, cwd: project, mode: 'acceptEdits' })).decision,
    ).toBe('ask');
  });

  it('denies a call without a usable path', async () => {
    expect((await check()({ tool: write, input: {}, cwd: project })).decision).toBe('deny');
    expect((await check()({ tool: read, input: { path: 'a\0b' }, cwd: project })).decision).toBe('deny');
  });
});

describe('sensitiveReason', () => {
  const ctx = () => ({ home, reinHome: path.join(home, '.rein'), extraPatterns: [] });
  it.each([
    '.env',
    '.env.local',
    '.envrc',
    'id_rsa',
    'id_rsa.pub',
    'id_ed25519',
    'cert.pem',
    'tls.key',
    'credentials.json',
    'tokens.json',
    'login.keychain-db',
  ])('flags the name %s', (name) => {
    expect(sensitiveReason(path.join(project, name), ctx())).toBeDefined();
  });
  it.each(['README.md', 'env.ts', 'keyboard.ts', 'src/pem-parser.ts', 'tokens.ts'])('leaves %s alone', (name) => {
    expect(sensitiveReason(path.join(project, name), ctx())).toBeUndefined();
  });
  it('checks folders anywhere in the path', () => {
    expect(sensitiveReason('/Users/someone/.ssh/config', ctx())).toMatch(/\.ssh/);
    expect(sensitiveReason(path.join(home, '.aws', 'config'), ctx())).toMatch(/\.aws/);
  });
  it('is what checkFileAccess reports', () => {
    const v = checkFileAccess('file_read', { path: '.env' }, { ...ctx(), cwd: project, allowedDirs: [] });
    expect(v).toMatchObject({ decision: 'ask', action: 'read' });
    expect(v.sensitive).toMatch(/\.env/);
  });
});
