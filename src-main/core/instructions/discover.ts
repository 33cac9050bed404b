/**
 * Which instruction files apply to a run, in ascending priority (the last one matters most):
 *
 *   global  <home>/AGENTS.md, CLAUDE.md, instructions.md, rules/*.md
 *   project for each folder from the repository root down to the working folder:
 *           AGENTS.md, CLAUDE.md, instructions.md, .rein/rules/*.md
 *
 * The repository root is the nearest folder at or above the working folder holding `.git` (a folder,
 * or a file in worktrees and submodules); outside a repository only the working folder itself is
 * read. Project rules live in `.rein/rules/` rather than `rules/` because plenty of projects have an
 * unrelated `rules/` folder (lint rules, game rules) that must not end up in the prompt.
 */
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

export const INSTRUCTION_FILE_NAMES = ['AGENTS.md', 'CLAUDE.md', 'instructions.md'] as const;

export interface InstructionCandidate {
  file: string;
  scope: 'global' | 'project';
}

export async function discoverInstructionFiles(home: string, cwd: string): Promise<InstructionCandidate[]> {
  const out: InstructionCandidate[] = [];
  const globalDir = resolve(home);
  for (const file of await filesIn(globalDir, join(globalDir, 'rules'))) out.push({ file, scope: 'global' });
  for (const dir of (await projectFolders(resolve(cwd))).reverse()) {
    for (const file of await filesIn(dir, join(dir, '.rein', 'rules'))) out.push({ file, scope: 'project' });
  }
  return out;
}

/** The working folder and its parents up to the repository root, nearest first. */
export async function projectFolders(cwd: string): Promise<string[]> {
  const chain: string[] = [];
  let dir = cwd;
  for (;;) {
    chain.push(dir);
    if (await exists(join(dir, '.git'))) return chain;
    const parent = dirname(dir);
    if (parent === dir) return [cwd];
    dir = parent;
  }
}

async function filesIn(dir: string, rulesDir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of INSTRUCTION_FILE_NAMES) {
    const file = join(dir, name);
    if (await isFile(file)) found.push(file);
  }
  let rules: string[] = [];
  try {
    rules = (await readdir(rulesDir)).filter((n) => n.endsWith('.md') && !n.startsWith('.'));
  } catch {
    // No rules folder (or not a folder): nothing to add.
  }
  for (const name of rules.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const file = join(rulesDir, name);
    if (await isFile(file)) found.push(file);
  }
  return found;
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

async function isFile(p: string): Promise<boolean> {
  return stat(p).then(
    (s) => s.isFile(),
    () => false,
  );
}
