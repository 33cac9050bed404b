// Read-only git commands run without asking only in a repository whose own settings name no program git would
// run (issue 14, finding 2): core.fsmonitor, diff.external, textconv and filter drivers, pagers, a
// post-index-change hook — found through includes, worktrees, submodules and bare repositories; anything the
// check cannot read or parse asks. Nothing here runs git: the repositories are files written by the test.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkCommandLine } from '../../../src-main/core/permissions/commandRules.js';
import { clearGitRepoCache, gitRepoRisk, parseGitConfig } from '../../../src-main/core/permissions/gitRepoConfig.js';
import { initShellParser } from '../../../src-main/core/permissions/shell/parser.js';
import { bash } from './helpers.js';

let root: string;
let home: string;

/** Writes a repository skeleton: .git/HEAD, objects/, refs/ and the given config text. */
function repo(dir: string, config = '[core]\n\trepositoryformatversion = 0\n\tbare = false\n'): string {
  mkdirSync(path.join(dir, '.git', 'objects'), { recursive: true });
  mkdirSync(path.join(dir, '.git', 'refs'), { recursive: true });
  writeFileSync(path.join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(path.join(dir, '.git', 'config'), config);
  return dir;
}

let n = 0;
const fresh = (config?: string) => repo(path.join(root, `r${n++}`), config);
// The files are checked at most once per turn of the event loop (as core/util/stampCache.ts does): let one pass.
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const decide = async (line: string, cwd: string) => {
  await nextTurn();
  return bash(line, { home }, 'default', cwd);
};

beforeAll(async () => {
  await initShellParser();
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'rein-git-')));
  home = path.join(root, 'home');
  mkdirSync(home);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => clearGitRepoCache());

describe('git config parsing', () => {
  it('reads sections, subsections, quoting, comments and continuations', () => {
    const entries = parseGitConfig(
      '[core]\n  fsmonitor = "a b" # c\n[diff "x"]\n textconv = cat\\\n   -v\n[Section.Sub] key\n; comment\n',
    );
    expect(entries).toEqual([
      { key: 'core.fsmonitor', value: 'a b' },
      { key: 'diff.x.textconv', value: 'cat   -v' },
      { key: 'section.sub.key', value: undefined },
    ]);
  });

  it('refuses what it does not understand', () => {
    expect(() => parseGitConfig('[core\nfsmonitor = x')).toThrow();
    expect(() => parseGitConfig('fsmonitor = x')).toThrow();
    expect(() => parseGitConfig('[core]\n!!! = x')).toThrow();
  });
});

describe('read-only git commands and the repository settings', () => {
  it('allows them in a repository that names no program', async () => {
    const r = fresh();
    for (const line of ['git status', 'git diff', 'git log -p -3', 'git show HEAD', 'git grep foo']) {
      expect((await decide(line, r)).decision, line).toBe('allow');
    }
  });

  it.each([
    ['[core]\n\tfsmonitor = .git/hooks/x\n', 'core.fsmonitor'],
    ['[diff]\n\texternal = ./difftool\n', 'diff.external'],
    ['[diff "pdf"]\n\ttextconv = ./pdftotext\n', 'diff.pdf.textconv'],
    ['[filter "x"]\n\tclean = ./clean.sh\n', 'filter.x.clean'],
    ['[core]\n\tpager = sh -c id\n', 'core.pager'],
    ['[pager]\n\tlog = ./p\n', 'pager.log'],
    ['[gpg]\n\tprogram = ./gpg\n', 'gpg.program'],
    ['[core] fsmonitor = ./x\n', 'core.fsmonitor'],
    ['[CORE]\n\tFSMonitor = ./x\n', 'core.fsmonitor'],
  ])('asks when the config holds %j', async (config, key) => {
    const r = fresh(config);
    const d = await decide('git status', r);
    expect(d.decision).toBe('ask');
    expect(d.reason).toContain(key);
  });

  it('does not count settings that name no program', async () => {
    const r = fresh('[core]\n\tfsmonitor = true\n\tpager = less -R\n[pager]\n\tbranch = false\n[user]\n\tname = x\n');
    expect((await decide('git status', r)).decision).toBe('allow');
  });

  it('follows include.path and includeIf paths', async () => {
    const r = fresh('[include]\n\tpath = extra.cfg\n');
    writeFileSync(path.join(r, '.git', 'extra.cfg'), '[core]\n\tfsmonitor = ./x\n');
    expect((await decide('git log', r)).reason).toContain('core.fsmonitor');
    const s = fresh('[includeIf "gitdir:/never/"]\n\tpath = ../cfg\n');
    writeFileSync(path.join(s, 'cfg'), '[diff]\n\texternal = x\n');
    expect((await decide('git diff', s)).decision).toBe('ask');
  });

  it('asks when the config cannot be parsed', async () => {
    const r = fresh('[core\n\tfsmonitor = x\n');
    expect((await decide('git status', r)).reason).toMatch(/could not be checked/);
  });

  it('finds the repository from a sub-folder, through a worktree .git file, and in a bare repository', async () => {
    const r = fresh('[core]\n\tfsmonitor = ./x\n');
    mkdirSync(path.join(r, 'src', 'deep'), { recursive: true });
    expect((await decide('git status', path.join(r, 'src', 'deep'))).decision).toBe('ask');

    const main = fresh('[diff]\n\texternal = x\n');
    const wt = path.join(root, `wt${n++}`);
    mkdirSync(path.join(main, '.git', 'worktrees', 'w'), { recursive: true });
    writeFileSync(path.join(main, '.git', 'worktrees', 'w', 'commondir'), '../..\n');
    mkdirSync(wt);
    writeFileSync(path.join(wt, '.git'), `gitdir: ${path.join(main, '.git', 'worktrees', 'w')}\n`);
    expect((await decide('git diff', wt)).reason).toContain('diff.external');

    const bare = path.join(root, `bare${n++}`);
    mkdirSync(path.join(bare, 'objects'), { recursive: true });
    mkdirSync(path.join(bare, 'refs'));
    writeFileSync(path.join(bare, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(path.join(bare, 'config'), '[core]\n\tbare = true\n\tfsmonitor = ./x\n');
    expect((await decide('git log', bare)).decision).toBe('ask');
  });

  it('checks submodules and the post-index-change hook', async () => {
    const r = fresh();
    mkdirSync(path.join(r, '.git', 'modules', 'lib'), { recursive: true });
    writeFileSync(path.join(r, '.git', 'modules', 'lib', 'config'), '[core]\n\tfsmonitor = ./x\n');
    expect((await decide('git status', r)).decision).toBe('ask');

    const s = fresh();
    writeFileSync(path.join(s, '.gitmodules'), '[submodule "v"]\n\tpath = vendor/v\n');
    mkdirSync(path.join(s, 'vendor', 'v', '.git'), { recursive: true });
    writeFileSync(path.join(s, 'vendor', 'v', '.git', 'config'), '[diff "x"]\n\tcommand = ./y\n');
    expect((await decide('git status', s)).reason).toContain('diff.x.command');

    const h = fresh();
    mkdirSync(path.join(h, '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(h, '.git', 'hooks', 'post-index-change'), '#!/bin/sh\n');
    expect((await decide('git status', h)).reason).toContain('post-index-change');

    const p = fresh('[core]\n\thooksPath = .githooks\n');
    mkdirSync(path.join(p, '.githooks'));
    writeFileSync(path.join(p, '.githooks', 'post-index-change'), '#!/bin/sh\n');
    expect((await decide('git status', p)).decision).toBe('ask');
    writeFileSync(path.join(p, '.githooks', 'pre-commit'), '#!/bin/sh\n');
    rmSync(path.join(p, '.githooks', 'post-index-change'));
    expect((await decide('git status', p)).decision).toBe('allow');
  });

  it('looks where the line sends git: cd targets, -C, --git-dir; a folder known only at run time asks', async () => {
    const evil = fresh('[core]\n\tfsmonitor = ./x\n');
    const ok = fresh();
    expect((await decide(`cd ${evil} && git status`, ok)).decision).toBe('ask');
    expect((await decide(`git -C ${evil} status`, ok)).decision).toBe('ask');
    expect((await decide(`git --git-dir=${path.join(evil, '.git')} log`, ok)).decision).toBe('ask');
    expect((await decide('cd "$X" && git status', ok)).reason).toMatch(/only known when it runs/);
    expect((await decide('git -C "$X" log', ok)).decision).toBe('ask');
    expect((await decide('git --version', evil)).decision).toBe('allow');
  });

  it('sees a change to the settings at the next check in a later turn (cached by the files’ stamps)', async () => {
    const r = fresh();
    expect((await decide('git status', r)).decision).toBe('allow');
    writeFileSync(path.join(r, '.git', 'config'), '[core]\n\tfsmonitor = ./now-hostile\n');
    expect((await decide('git status', r)).decision).toBe('ask');
  });

  it('asks when the environment moves git to another repository or config', () => {
    const r = fresh();
    expect(gitRepoRisk({ dir: r, home, env: { GIT_DIR: '/elsewhere' } })).toMatch(/GIT_DIR/);
    expect(gitRepoRisk({ dir: r, home, env: {} })).toBeUndefined();
    const v = checkCommandLine('git status', {
      home,
      cwd: r,
      reinHome: path.join(home, '.rein'),
      extraPatterns: [],
      allowedCommands: [],
      deniedCommands: [],
      env: { GIT_CONFIG_GLOBAL: '/x' },
    });
    expect(v.decision).toBe('ask');
  });

  it('outside any repository git runs nothing from one', async () => {
    const plain = path.join(root, `plain${n++}`);
    mkdirSync(plain);
    expect((await decide('git status', plain)).decision).toBe('allow');
  });
});
