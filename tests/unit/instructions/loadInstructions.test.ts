import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dedupeLines } from '../../../src-main/core/instructions/dedupe.js';
import { loadInstructions } from '../../../src-main/core/instructions/loadInstructions.js';

let root: string;
let home: string;
let repo: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'rein-instr-')));
  home = join(root, 'home');
  repo = join(root, 'outer', 'repo');
  await mkdir(home, { recursive: true });
  await mkdir(join(repo, '.git'), { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function put(file: string, text: string): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

/** The `<!-- from … -->` markers in the text, in order. */
const markers = (text: string) => [...text.matchAll(/<!-- from (.+?) -->/g)].map((m) => m[1]);

describe('discovery', () => {
  it('reads global files, then the project from the repository root down to the working folder', async () => {
    const cwd = join(repo, 'packages', 'web');
    await mkdir(cwd, { recursive: true });
    const files = [
      await put(join(home, 'AGENTS.md'), 'global agents'),
      await put(join(home, 'CLAUDE.md'), 'global claude'),
      await put(join(home, 'instructions.md'), 'global instructions'),
      await put(join(home, 'rules', 'a.md'), 'global rule a'),
      await put(join(home, 'rules', 'b.md'), 'global rule b'),
      await put(join(repo, 'AGENTS.md'), 'repo agents'),
      await put(join(repo, '.rein', 'rules', 'style.md'), 'repo rule'),
      await put(join(repo, 'packages', 'CLAUDE.md'), 'packages claude'),
      await put(join(cwd, 'AGENTS.md'), 'web agents'),
      await put(join(cwd, 'instructions.md'), 'web instructions'),
    ];
    // Outside the repository, and files that are not instructions: never read.
    await put(join(root, 'outer', 'AGENTS.md'), 'above the repo root');
    await put(join(home, 'rules', 'notes.txt'), 'not markdown');
    await put(join(repo, 'rules', 'game.md'), 'a rules/ folder that is not for Rein');

    const r = await loadInstructions({ home, cwd });
    expect(r.sources).toEqual(files);
    expect(markers(r.text)).toEqual(files);
    expect(r.truncated).toBe(false);
    expect(r.text).not.toContain('above the repo root');
    expect(r.text).not.toContain('not markdown');
    expect(r.text).not.toContain('not for Rein');
    expect(r.text).toBe(
      files
        .map(
          (f, i) =>
            `<!-- from ${f} -->\n${['global agents', 'global claude', 'global instructions', 'global rule a', 'global rule b', 'repo agents', 'repo rule', 'packages claude', 'web agents', 'web instructions'][i]}`,
        )
        .join('\n\n'),
    );
  });

  it('outside a repository reads only the working folder itself', async () => {
    const cwd = join(root, 'plain', 'sub');
    await mkdir(cwd, { recursive: true });
    await put(join(root, 'plain', 'AGENTS.md'), 'parent of cwd');
    const own = await put(join(cwd, 'CLAUDE.md'), 'cwd only');
    const r = await loadInstructions({ home, cwd });
    expect(r.sources).toEqual([own]);
  });

  it('treats a .git file (worktree, submodule) as a repository root', async () => {
    const wt = join(root, 'worktree');
    await put(join(wt, '.git'), 'gitdir: /elsewhere\n');
    const top = await put(join(wt, 'AGENTS.md'), 'worktree root');
    const cwd = join(wt, 'src');
    await mkdir(cwd);
    const r = await loadInstructions({ home, cwd });
    expect(r.sources).toEqual([top]);
  });

  it('reads a file reached twice (symlink) once, and gives nothing when there are no files', async () => {
    expect(await loadInstructions({ home, cwd: repo })).toEqual({
      text: '',
      sources: [],
      truncated: false,
      problems: [],
    });
    const agents = await put(join(repo, 'AGENTS.md'), 'shared rules');
    await symlink(agents, join(repo, 'CLAUDE.md'));
    const r = await loadInstructions({ home, cwd: repo });
    expect(r.sources).toEqual([join(repo, 'CLAUDE.md')]);
    expect(r.text.match(/shared rules/g)).toHaveLength(1);
  });

  it('skips a file that is not UTF-8 and says so', async () => {
    const bad = join(repo, 'AGENTS.md');
    await mkdir(repo, { recursive: true });
    await writeFile(bad, Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28]));
    const good = await put(join(repo, 'CLAUDE.md'), 'fine');
    const r = await loadInstructions({ home, cwd: repo });
    expect(r.sources).toEqual([good]);
    expect(r.problems).toEqual([{ file: bad, message: expect.stringMatching(/UTF-8/) }]);
  });
});

describe('duplicate lines', () => {
  it('keeps a repeated line only in the highest-priority file (nearest, project over global)', async () => {
    const cwd = join(repo, 'app');
    await mkdir(cwd);
    const g = await put(join(home, 'AGENTS.md'), '# Global\n\n- Use pnpm.\n- Be brief.\n');
    const top = await put(join(repo, 'AGENTS.md'), '# Repo\n\n- Use pnpm.\n- Run tests.\n');
    const near = await put(join(cwd, 'AGENTS.md'), '# App\n\n  - Use pnpm.  \n- Run tests.\n- App only.\n');
    const r = await loadInstructions({ home, cwd });
    const part = (file: string) => r.text.split(`<!-- from ${file} -->\n`)[1]?.split('\n\n<!-- from')[0];
    expect(part(g)).toBe('# Global\n\n- Be brief.');
    // Nothing but its heading was left: the repository file is dropped altogether.
    expect(r.sources).toEqual([g, near]);
    expect(r.text).not.toContain(top);
    expect(part(near)).toBe('# App\n\n  - Use pnpm.  \n- Run tests.\n- App only.');
    expect(r.text.match(/Use pnpm/g)).toHaveLength(1);
  });

  it('drops a file whose every line was repeated elsewhere, but keeps headings and blank lines in others', async () => {
    await put(join(home, 'AGENTS.md'), '# Same\n\nrule one\n');
    const project = await put(join(repo, 'AGENTS.md'), '# Same\n\nrule one\n');
    const r = await loadInstructions({ home, cwd: repo });
    expect(r.sources).toEqual([project]);
  });

  it('never removes code fences, lines inside code blocks, rules or table separators', () => {
    const high = 'Intro\n```bash\nnpm test\n}\n```\n---\n| a |\n|---|';
    const low = 'Intro\n```bash\nnpm test\n}\n```\n---\n| a |\n|---|\nnpm test\n';
    const [h, l] = dedupeLines([high, low]);
    expect(h).toBe(high);
    // Only prose repeated outside code goes: "Intro" and the table row "| a |".
    expect(l).toBe('```bash\nnpm test\n}\n```\n---\n|---|\nnpm test');
  });
});

describe('the cap', () => {
  it('stays within maxChars, cuts lowest priority first and says what was cut', async () => {
    const cwd = join(repo, 'app');
    await mkdir(cwd);
    const g = await put(join(home, 'AGENTS.md'), Array.from({ length: 40 }, (_, i) => `global line ${i}`).join('\n'));
    const top = await put(join(repo, 'AGENTS.md'), Array.from({ length: 40 }, (_, i) => `repo line ${i}`).join('\n'));
    const near = await put(join(cwd, 'AGENTS.md'), Array.from({ length: 10 }, (_, i) => `app line ${i}`).join('\n'));

    const r = await loadInstructions({ home, cwd, maxChars: 900 });
    expect(r.truncated).toBe(true);
    expect(r.text.length).toBeLessThanOrEqual(900);
    expect(r.text).toContain('app line 9');
    expect(r.text).toContain('repo line 0');
    expect(r.text).not.toContain('repo line 39');
    expect(r.text).not.toContain('global line');
    expect(r.sources).toEqual([top, near]);
    const note = r.text.split('\n')[0]!;
    expect(note).toMatch(/^<!-- instructions exceed 900 characters: left out .* -->$/);
    expect(note).toContain(`left out ${g}`);
    expect(note).toMatch(new RegExp(`cut ${top.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} after \\d+ of \\d+ characters`));
    // Whole lines only.
    expect(r.text).toMatch(/repo line \d+\n\n<!-- from /);
  });

  it('uses 16,000 characters by default', async () => {
    await put(join(repo, 'AGENTS.md'), Array.from({ length: 3000 }, (_, i) => `rule number ${i}`).join('\n'));
    const r = await loadInstructions({ home, cwd: repo });
    expect(r.truncated).toBe(true);
    expect(r.text.length).toBeLessThanOrEqual(16_000);
    expect(r.text.length).toBeGreaterThan(15_000);
  });

  it('is not truncated when the text fits exactly', async () => {
    const file = await put(join(repo, 'AGENTS.md'), 'x'.repeat(100));
    const exact = `<!-- from ${file} -->\n${'x'.repeat(100)}`.length;
    const r = await loadInstructions({ home, cwd: repo, maxChars: exact });
    expect(r.truncated).toBe(false);
    expect(r.text.length).toBe(exact);
  });
});
