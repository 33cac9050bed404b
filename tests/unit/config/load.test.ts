import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src-main/core/config/load.js';
import { defaultConfig } from '../../../src-main/core/config/schema.js';
import { ReinError, isReinError } from '../../../src-main/core/errors.js';

let root: string;
let home: string;
let cwd: string;
let globalFile: string;
let projectFile: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'rein-config-'));
  home = join(root, 'home', '.rein');
  cwd = join(root, 'project');
  globalFile = join(home, 'config.yaml');
  projectFile = join(cwd, '.rein', 'config.yaml');
  await mkdir(home, { recursive: true });
  await mkdir(cwd, { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function writeGlobal(text: string) {
  await writeFile(globalFile, text);
}
async function writeProject(text: string) {
  await mkdir(join(cwd, '.rein'), { recursive: true });
  await writeFile(projectFile, text);
}
async function loadError(): Promise<ReinError> {
  try {
    await loadConfig({ home, cwd });
  } catch (e) {
    expect(isReinError(e), String(e)).toBe(true);
    return e as ReinError;
  }
  throw new Error('expected loadConfig to throw');
}

describe('loadConfig: files and defaults', () => {
  it('returns the defaults and no files when neither file exists, and creates nothing', async () => {
    const { config, files } = await loadConfig({ home, cwd });
    expect(config).toEqual(defaultConfig());
    expect(files).toEqual([]);
    expect(await readdir(home)).toEqual([]);
    expect(await readdir(cwd)).toEqual([]);
  });

  it('treats an empty or comments-only file as all defaults', async () => {
    await writeGlobal('');
    expect(await loadConfig({ home, cwd })).toEqual({ config: defaultConfig(), files: [globalFile] });
    await writeGlobal('# nothing here yet\n\n# really\n');
    expect((await loadConfig({ home, cwd })).config).toEqual(defaultConfig());
  });

  it('fills defaults around the keys the global file sets', async () => {
    await writeGlobal(
      ['model: claude-opus-4-1', 'permissions:', '  mode: acceptEdits', 'tools:', '  bash_timeout: 30', ''].join('\n'),
    );
    const { config } = await loadConfig({ home, cwd });
    const d = defaultConfig();
    expect(config.model).toBe('claude-opus-4-1');
    expect(config.permissions).toEqual({ ...d.permissions, mode: 'acceptEdits' });
    expect(config.tools).toEqual({ ...d.tools, bash_timeout: 30 });
    expect(config.max_iterations).toBe(d.max_iterations);
  });

  it('keeps the case of MCP env keys', async () => {
    await writeGlobal(
      ['mcp_servers:', '  gh:', '    command: gh-mcp', '    env:', '      GitHub_Token: abc', ''].join('\n'),
    );
    const { config } = await loadConfig({ home, cwd });
    expect(config.mcp_servers.gh?.env).toEqual({ GitHub_Token: 'abc' });
  });

  it('reads a file only once when the project overlay and the global file are the same path', async () => {
    // cwd = the folder that holds REIN_HOME, as when REIN_HOME is ~/.rein and Rein runs in ~.
    await writeGlobal('permissions:\n  allowed_commands: [ls]\n');
    const { config, files } = await loadConfig({ home, cwd: join(root, 'home') });
    expect(files).toEqual([globalFile]);
    expect(config.permissions.allowed_commands).toEqual(['ls']);
  });

  it('ignores a .rein that is a file rather than a folder', async () => {
    await writeFile(join(cwd, '.rein'), 'not a folder');
    expect((await loadConfig({ home, cwd })).files).toEqual([]);
  });

  it('reports a config path it cannot read as config_io', async () => {
    await mkdir(globalFile); // a folder where the file should be
    const e = await loadError();
    expect(e.code).toBe('config_io');
    expect(e.message).toContain(globalFile);
  });
});

describe('loadConfig: project overlay (of a trusted folder; tests/unit/config/folderTrust.test.ts has the untrusted one)', () => {
  beforeEach(async () => {
    await writeGlobal(
      [
        'model: claude-sonnet-4-5',
        'max_iterations: 40',
        'tools:',
        '  max_parallel: 4',
        'permissions:',
        '  allowed_commands: [git status, ls]',
        '  denied_commands: [rm -rf /]',
        'mcp_servers:',
        '  fs:',
        '    command: npx',
        '    args: [-y, fs-server]',
        '    env: { ROOT: /data }',
        '  web:',
        '    type: http',
        '    url: http://127.0.0.1:9000/mcp',
        'hooks:',
        '  PreToolUse:',
        '    - command: audit.sh',
        '',
      ].join('\n'),
    );
  });

  it('overrides scalars, merges nested objects key by key and keeps global values it does not mention', async () => {
    await writeProject(['model: claude-opus-4-1', 'tools:', '  bash_timeout: 60', ''].join('\n'));
    const { config, files } = await loadConfig({ home, cwd, trust: 'trusted' });
    expect(files).toEqual([globalFile, projectFile]);
    expect(config.model).toBe('claude-opus-4-1');
    expect(config.max_iterations).toBe(40);
    expect(config.tools.max_parallel).toBe(4);
    expect(config.tools.bash_timeout).toBe(60);
  });

  it('appends lists without duplicates, keeping order', async () => {
    await writeProject(
      ['permissions:', '  allowed_commands: [ls, npm test, git status, make]', '  denied_commands: []', ''].join('\n'),
    );
    const { config } = await loadConfig({ home, cwd, trust: 'trusted' });
    expect(config.permissions.allowed_commands).toEqual(['git status', 'ls', 'npm test', 'make']);
    // An empty overlay list cannot erase the user's denials.
    expect(config.permissions.denied_commands).toEqual(['rm -rf /']);
  });

  it('appends hook entries, skipping one identical to a global entry', async () => {
    await writeProject(
      ['hooks:', '  PreToolUse:', '    - command: audit.sh', '    - matcher: bash', '      command: lint.sh', ''].join(
        '\n',
      ),
    );
    const { config } = await loadConfig({ home, cwd, trust: 'trusted' });
    expect(config.hooks.PreToolUse).toEqual([{ command: 'audit.sh' }, { matcher: 'bash', command: 'lint.sh' }]);
  });

  it('replaces an MCP server of the same name whole and keeps the others', async () => {
    await writeProject(
      ['mcp_servers:', '  fs:', '    command: ./local-fs', '  extra:', '    command: extra-mcp', ''].join('\n'),
    );
    const { config } = await loadConfig({ home, cwd, trust: 'trusted' });
    expect(config.mcp_servers.fs).toEqual({ type: 'stdio', command: './local-fs', args: [], env: {}, disabled: false });
    expect(config.mcp_servers.web).toMatchObject({ type: 'http', url: 'http://127.0.0.1:9000/mcp' });
    expect(config.mcp_servers.extra).toMatchObject({ command: 'extra-mcp' });
  });

  it('does not let overlay defaults reset global values', async () => {
    // The overlay mentions `permissions` but not `mode`; the global mode must survive.
    await writeGlobal('permissions:\n  mode: plan\n');
    await writeProject('permissions:\n  allowed_dirs: [/tmp]\n');
    const { config } = await loadConfig({ home, cwd, trust: 'trusted' });
    expect(config.permissions.mode).toBe('plan');
    expect(config.permissions.allowed_dirs).toEqual(['/tmp']);
  });
});

describe('loadConfig: errors', () => {
  it('names file, line, column and field of a bad enum value', async () => {
    await writeGlobal(
      ['model: claude-sonnet-4-5', '', 'tools:', '  bash_timeout: 30', '', 'permissions:', '  mode: yolo', ''].join(
        '\n',
      ),
    );
    const e = await loadError();
    expect(e.code).toBe('config_invalid');
    expect(e.message).toBe(
      `${globalFile}:7:3: permissions.mode: expected one of default|acceptEdits|plan|dontAsk|bypassPermissions`,
    );
    expect(e.details).toMatchObject({ file: globalFile, line: 7, column: 3, field: 'permissions.mode' });
  });

  it('rejects an unknown key, pointing at the key', async () => {
    await writeGlobal(['tools:', '  bash_timeot: 30', ''].join('\n'));
    const e = await loadError();
    expect(e.message).toBe(`${globalFile}:2:3: tools.bash_timeot: unknown key`);
    expect(e.details).toMatchObject({ line: 2, column: 3, field: 'tools.bash_timeot' });
  });

  it('lists every problem of both files, one per line, naming the right file', async () => {
    await writeGlobal(['max_iterations: lots', 'colour: blue', ''].join('\n'));
    await writeProject(['daemon:', '  port: 99999', 'hooks:', '  Stop:', '    - matcher: x', ''].join('\n'));
    const e = await loadError();
    expect(e.message.split('\n')).toEqual([
      `${globalFile}:1:1: max_iterations: expected number, got string "lots"`,
      `${globalFile}:2:1: colour: unknown key`,
      `${projectFile}:2:3: daemon.port: Too big: expected number to be <=65535`,
      `${projectFile}:5:7: hooks.Stop[0].command: missing (expected string)`,
    ]);
    expect(e.details?.problems).toHaveLength(4);
  });

  it('reports YAML syntax errors with file, line and column', async () => {
    await writeProject(['model: x', 'tools: [unclosed', ''].join('\n'));
    const e = await loadError();
    expect(e.code).toBe('config_invalid');
    expect(e.message).toMatch(new RegExp(`^${escape(projectFile)}:\\d+:\\d+: YAML syntax error: `));
    expect(e.details).toMatchObject({ file: projectFile });
    expect(typeof e.details?.line).toBe('number');
  });

  it('refuses a YAML alias bomb, an oversized file and an oversized model name as problems of the file', async () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`),
    ].join('\n');
    await writeGlobal(bomb);
    const aliases = await loadError();
    expect(aliases.code).toBe('config_invalid');
    expect(aliases.message).toContain(globalFile);
    expect(aliases.message).toMatch(/alias/i);
    await writeGlobal(`# ${'x'.repeat(300 * 1024)}\nmodel: claude-opus\n`);
    expect((await loadError()).message).toMatch(/at most 262144/);
    await writeGlobal(`model: ${'m'.repeat(201)}\n`);
    expect((await loadError()).details?.field).toBe('model');
  });

  it('treats a duplicated key as an error rather than silently keeping one', async () => {
    await writeGlobal(['model: a', 'model: b', ''].join('\n'));
    const e = await loadError();
    expect(e.message).toMatch(new RegExp(`^${escape(globalFile)}:2:1: YAML syntax error: .*unique`));
  });

  it('rejects a file that is not a mapping', async () => {
    await writeGlobal('- model: x\n');
    const e = await loadError();
    expect(e.message).toBe(`${globalFile}:1:1: (top level): expected object, got a list`);
  });

  it('never rewrites a broken file', async () => {
    const broken = 'permissions:\n  mode: yolo   # keep my comment\n\tbad indent: [\n';
    await writeGlobal(broken);
    const before = await stat(globalFile);
    await loadError();
    expect(await readFile(globalFile, 'utf8')).toBe(broken);
    expect((await stat(globalFile)).mtimeMs).toBe(before.mtimeMs);
    expect(await readdir(home)).toEqual(['config.yaml']);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
