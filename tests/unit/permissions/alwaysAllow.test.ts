import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { isReinError } from '../../../src-main/core/errors.js';
import { persistAlwaysAllow } from '../../../src-main/core/permissions/alwaysAllow.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const persistMany = fileURLToPath(new URL('./fixtures/persistMany.ts', import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rein-always-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const USER_FILE = `# My Rein settings — hand written
model: claude-sonnet-4-5 # the default one

permissions:
  # commands I trust
  allowed_commands:
    - git status   # read only
    - "npm test"
  mode: default
`;

describe('persistAlwaysAllow', () => {
  it('appends a bash command to allowed_commands, keeping comments and layout', async () => {
    const file = join(dir, 'config.yaml');
    await writeFile(file, USER_FILE);
    const res = await persistAlwaysAllow({ file, command: 'make -j4 build' });
    expect(res).toMatchObject({ key: 'allowed_commands', value: 'make -j4 build', added: true });
    const text = await readFile(file, 'utf8');
    expect(text).toContain('# My Rein settings — hand written');
    expect(text).toContain('model: claude-sonnet-4-5 # the default one');
    expect(text).toContain('  # commands I trust');
    expect(text).toContain('    - git status # read only');
    expect(text).toContain('    - "npm test"');
    expect(parse(text).permissions.allowed_commands).toEqual(['git status', 'npm test', 'make -j4 build']);
    // Still a valid Rein config.
    expect(GlobalConfig.safeParse(parse(text)).success).toBe(true);
  });

  it('appends other tools to always_allow_tools, creating the list', async () => {
    const file = join(dir, 'config.yaml');
    await writeFile(file, USER_FILE);
    await persistAlwaysAllow({ file, tool: 'web_fetch' });
    const cfg = parse(await readFile(file, 'utf8'));
    expect(cfg.permissions.always_allow_tools).toEqual(['web_fetch']);
    expect(cfg.permissions.allowed_commands).toEqual(['git status', 'npm test']);
  });

  it('does not add an entry that is already there, and leaves the file as it was', async () => {
    const file = join(dir, 'config.yaml');
    await writeFile(file, USER_FILE);
    const res = await persistAlwaysAllow({ file, command: 'npm test' });
    expect(res.added).toBe(false);
    expect(await readFile(file, 'utf8')).toBe(USER_FILE);
    await persistAlwaysAllow({ file, tool: 'http' });
    await persistAlwaysAllow({ file, tool: 'http' });
    expect(parse(await readFile(file, 'utf8')).permissions.always_allow_tools).toEqual(['http']);
  });

  it('keeps commands with YAML-special characters exactly', async () => {
    const file = join(dir, 'config.yaml');
    const tricky = `grep -n "a: b" src/*.ts | head -5 # not a comment`;
    await persistAlwaysAllow({ file, command: tricky });
    await persistAlwaysAllow({ file, command: '- yes' });
    expect(parse(await readFile(file, 'utf8')).permissions.allowed_commands).toEqual([tricky, '- yes']);
  });

  it('creates the file and its folder when missing', async () => {
    const file = join(dir, 'agents', 'ops', 'config.yaml');
    await persistAlwaysAllow({ file, command: 'uptime' });
    expect(parse(await readFile(file, 'utf8'))).toEqual({ permissions: { allowed_commands: ['uptime'] } });
  });

  it('fills an empty file, a comment-only file and empty keys', async () => {
    const cases: Array<[string, string]> = [
      ['', ''],
      ['# nothing yet\n', '# nothing yet'],
      ['--- # start\n', '# start'],
      ['permissions:\n', ''],
      ['permissions:\n  allowed_commands: # soon\n  mode: plan\n', 'mode: plan'],
      ['permissions:\n  allowed_commands: []\n', ''],
    ];
    for (const [i, [before, kept]] of cases.entries()) {
      const file = join(dir, `c${i}.yaml`);
      await writeFile(file, before);
      await persistAlwaysAllow({ file, command: 'uptime' });
      const text = await readFile(file, 'utf8');
      expect(parse(text).permissions.allowed_commands, `case ${JSON.stringify(before)}`).toEqual(['uptime']);
      expect(text).toContain(kept);
    }
  });

  it('edits the target of a symlinked config instead of replacing the link', async () => {
    const real = join(dir, 'dotfiles', 'rein.yaml');
    await mkdir(join(dir, 'dotfiles'));
    await writeFile(real, USER_FILE);
    const link = join(dir, 'config.yaml');
    await symlink(real, link);
    const res = await persistAlwaysAllow({ file: link, tool: 'notify' });
    expect(res.file).toBe(real);
    expect(parse(await readFile(real, 'utf8')).permissions.always_allow_tools).toEqual(['notify']);
  });

  it('refuses a file that does not parse, naming it, and leaves it untouched', async () => {
    const file = join(dir, 'config.yaml');
    const broken = 'permissions:\n  allowed_commands: [git status\n  mode: "default\n';
    await writeFile(file, broken);
    const err = await persistAlwaysAllow({ file, command: 'ls' }).catch((e: unknown) => e);
    expect(isReinError(err, 'config_invalid')).toBe(true);
    expect((err as Error).message).toContain(file);
    expect(await readFile(file, 'utf8')).toBe(broken);
  });

  it('refuses a file whose list has the wrong shape, naming the field', async () => {
    const file = join(dir, 'config.yaml');
    const odd = 'permissions:\n  allowed_commands: ls\n';
    await writeFile(file, odd);
    const err = await persistAlwaysAllow({ file, command: 'ls' }).catch((e: unknown) => e);
    expect(isReinError(err, 'config_invalid')).toBe(true);
    expect((err as Error).message).toMatch(/permissions\.allowed_commands must be a list/);
    expect(await readFile(file, 'utf8')).toBe(odd);
  });

  it('needs exactly one of command or tool', async () => {
    const file = join(dir, 'config.yaml');
    for (const bad of [{ file }, { file, command: 'ls', tool: 'http' }, { file, command: '  ' }]) {
      const err = await persistAlwaysAllow(bad).catch((e: unknown) => e);
      expect(isReinError(err, 'invalid_input')).toBe(true);
    }
  });

  it('keeps every entry when several processes persist at once', async () => {
    const file = join(dir, 'config.yaml');
    await writeFile(file, USER_FILE);
    const workers = 4;
    const count = 8;
    await Promise.all(
      Array.from(
        { length: workers },
        (_, w) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, ['--import', 'tsx', persistMany, file, String(w), String(count)], {
              cwd: repoRoot,
              stdio: ['ignore', 'ignore', 'pipe'],
            });
            let stderr = '';
            child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
            child.on('error', reject);
            child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`worker ${w}: ${stderr}`))));
          }),
      ),
    );
    const text = await readFile(file, 'utf8');
    const cfg = parse(text);
    const expected = ['git status', 'npm test'];
    for (let w = 0; w < workers; w++) for (let i = 0; i < count; i++) expected.push(`echo worker-${w} item-${i}`);
    expect([...cfg.permissions.allowed_commands].sort()).toEqual(expected.sort());
    expect([...cfg.permissions.always_allow_tools].sort()).toEqual(['tool_0', 'tool_1', 'tool_2', 'tool_3']);
    expect(text).toContain('# commands I trust');
  });
});
