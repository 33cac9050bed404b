import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, realpath, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundledSkillsDir, findPackageRoot } from '../../../src-main/core/skills/bundledDir.js';
import { loadSkills } from '../../../src-main/core/skills/loadSkills.js';
import { createUseSkillTool } from '../../../src-main/core/tools/builtin/useSkill.js';
import { callTool, makeToolContext } from '../tools/toolTestContext.js';

const repoRoot = resolve(import.meta.dirname, '..', '..', '..');
const shipped = join(repoRoot, 'resources', 'skills');

let tmp: string;
beforeEach(async () => {
  tmp = await realpath(await mkdtemp(join(tmpdir(), 'rein-bundled-')));
});
afterEach(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function run(script: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync('bash', [script, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
}

describe('finding the bundled skills folder', () => {
  it('works from the source tree and from the built CLI bundle', () => {
    expect(findPackageRoot(join(repoRoot, 'src-main', 'core', 'skills'))).toBe(repoRoot);
    expect(bundledSkillsDir()).toBe(shipped);
    expect(bundledSkillsDir(pathToFileURL(join(repoRoot, 'out', 'cli', 'rein.js')).href)).toBe(shipped);
  });

  it('passes over a package.json that only sets the module kind of its folder (out/cli)', async () => {
    await mkdir(join(tmp, 'pkg', 'out', 'cli', 'chunks'), { recursive: true });
    await writeFile(join(tmp, 'pkg', 'package.json'), '{ "name": "rein" }\n');
    await writeFile(join(tmp, 'pkg', 'out', 'cli', 'package.json'), '{ "type": "commonjs" }\n');
    expect(findPackageRoot(join(tmp, 'pkg', 'out', 'cli', 'chunks'))).toBe(join(tmp, 'pkg'));
  });

  it('is undefined when no package root holds resources/skills', async () => {
    expect(bundledSkillsDir(pathToFileURL(join(tmp, 'x.js')).href)).toBeUndefined();
  });
});

describe('the shipped skills', () => {
  it('all load without problems', async () => {
    const home = join(tmp, 'home');
    const { skills, problems } = await loadSkills({ home, bundledDir: shipped });
    expect(problems).toEqual([]);
    expect(skills.map((s) => s.name)).toEqual(['clean-downloads', 'git-standup', 'mac-system-health']);
    for (const s of skills) expect(s.source).toBe('bundled');
  });

  it('point at scripts that exist once use_skill has made the paths absolute', async () => {
    const { skills } = await loadSkills({ home: join(tmp, 'home'), bundledDir: shipped });
    const tool = createUseSkillTool(skills);
    const t = await makeToolContext();
    try {
      for (const skill of skills) {
        const r = await callTool(tool, { skill_name: skill.name }, t.ctx);
        expect(r.ok).toBe(true);
        const scripts = await readdir(join(skill.dir, 'scripts'));
        for (const script of scripts) {
          if (!skill.body.includes(`scripts/${script}`)) continue;
          expect(r.content).toContain(`${skill.dir}/scripts/${script}`);
        }
        expect(r.content).not.toMatch(/(^|\s)scripts\//m);
      }
    } finally {
      await t.cleanup();
    }
  });

  it('have scripts that bash can parse', async () => {
    for (const name of await readdir(shipped)) {
      const dir = join(shipped, name, 'scripts');
      if (!existsSync(dir)) continue;
      for (const script of await readdir(dir)) {
        const r = spawnSync('bash', ['-n', join(dir, script)], { encoding: 'utf8' });
        expect(r.status, `${name}/scripts/${script}: ${r.stderr}`).toBe(0);
      }
    }
  });
});

describe('mac-system-health script', () => {
  it('prints every section and exits 0 (on any system)', () => {
    const r = run(join(shipped, 'mac-system-health', 'scripts', 'health.sh'), ['3']);
    expect(r.status, r.stderr).toBe(0);
    for (const section of [
      'System',
      'Disk',
      'Memory',
      'Battery',
      'Top 3 processes by CPU',
      'Top 3 processes by memory',
    ]) {
      expect(r.stdout).toContain(`== ${section} ==`);
    }
    expect(r.stdout).toMatch(/PID/);
  });
});

describe('clean-downloads scripts', () => {
  const scan = join(shipped, 'clean-downloads', 'scripts', 'scan.sh');
  const trash = join(shipped, 'clean-downloads', 'scripts', 'trash.sh');

  it('flags old, large, installer and copy items, largest first, and changes nothing', async () => {
    const dl = join(tmp, 'Downloads');
    await mkdir(join(dl, 'Project Folder'), { recursive: true });
    await writeFile(join(dl, 'Big Installer.dmg'), Buffer.alloc(2 * 1024 * 1024));
    await writeFile(join(dl, 'report (1).pdf'), 'x');
    await writeFile(join(dl, 'fresh.txt'), 'x');
    await writeFile(join(dl, 'Project Folder', 'data.bin'), Buffer.alloc(300 * 1024));
    const old = new Date('2020-01-02T00:00:00Z');
    await utimes(join(dl, 'report (1).pdf'), old, old);

    const r = run(scan, [dl, '30', '1']);
    expect(r.status, r.stderr).toBe(0);
    const rows = r.stdout
      .split('\n')
      .filter((l) => l.includes('\t'))
      .slice(1)
      .map((l) => l.split('\t'));
    expect(rows.map((c) => c[3])).toEqual([
      join(dl, 'Big Installer.dmg'),
      join(dl, 'Project Folder'),
      expect.stringMatching(/(report \(1\)\.pdf|fresh\.txt)$/),
      expect.stringMatching(/(report \(1\)\.pdf|fresh\.txt)$/),
    ]);
    const flags = Object.fromEntries(rows.map((c) => [c[3]!.slice(dl.length + 1), c[2]]));
    expect(flags).toEqual({
      'Big Installer.dmg': 'large,installer',
      'Project Folder': '-',
      'report (1).pdf': 'old,copy',
      'fresh.txt': '-',
    });
    expect(r.stdout).toMatch(/4 items, [\d.]+ MB in total; 1 not modified for 30\+ days/);
    expect((await readdir(dl)).sort()).toEqual(['Big Installer.dmg', 'Project Folder', 'fresh.txt', 'report (1).pdf']);
  });

  it('rejects a missing folder and bad numbers', () => {
    expect(run(scan, [join(tmp, 'nope')]).status).toBe(2);
    expect(run(scan, [tmp, 'soon']).status).toBe(2);
  });

  it('trash.sh refuses relative or missing paths without touching anything', async () => {
    await writeFile(join(tmp, 'keep.txt'), 'x');
    expect(run(trash, []).status).toBe(2);
    expect(run(trash, ['keep.txt']).status).toBe(2);
    expect(run(trash, [join(tmp, 'keep.txt'), join(tmp, 'missing.txt')]).status).toBe(2);
    expect(existsSync(join(tmp, 'keep.txt'))).toBe(true);
  });
});

describe('git-standup script', () => {
  const standup = join(shipped, 'git-standup', 'scripts', 'standup.sh');

  function git(cwd: string, args: string[], date?: string) {
    const dates = date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {};
    const r = spawnSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: tmp, ...dates },
    });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  }

  async function repo(rel: string, commits: { message: string; email: string; date?: string }[]) {
    const dir = join(tmp, 'code', rel);
    await mkdir(dir, { recursive: true });
    git(dir, ['init', '-q']);
    for (const c of commits) {
      git(
        dir,
        ['-c', `user.email=${c.email}`, '-c', 'user.name=Someone', 'commit', '-q', '--allow-empty', '-m', c.message],
        c.date,
      );
    }
    return dir;
  }

  it('lists recent commits by the author per repository, skipping node_modules and other authors', async () => {
    const app = await repo('app', [
      { message: 'old work', email: 'me@example.com', date: '2001-01-01T10:00:00' },
      { message: 'fix login redirect', email: 'me@example.com' },
      { message: 'colleague change', email: 'them@example.com' },
    ]);
    await repo('team/site', [{ message: 'new pricing page', email: 'me@example.com' }]);
    await repo('idle', [{ message: 'ancient', email: 'me@example.com', date: '2001-01-01T10:00:00' }]);
    await repo('app2/node_modules/dep', [{ message: 'vendored', email: 'me@example.com' }]);
    await writeFile(join(app, 'wip.txt'), 'x');

    const r = run(standup, [join(tmp, 'code'), '2 days ago', 'me@example.com'], { HOME: tmp });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`== ${app} (on `);
    expect(r.stdout).toContain('fix login redirect');
    expect(r.stdout).toContain('new pricing page');
    expect(r.stdout).toContain('+ 1 uncommitted change(s)');
    expect(r.stdout).not.toContain('old work');
    expect(r.stdout).not.toContain('colleague change');
    expect(r.stdout).not.toContain('vendored');
    expect(r.stdout).not.toContain('ancient');
    expect(r.stdout).toContain('3 repositories searched, 2 with commits in the period.');

    const everyone = run(standup, [join(tmp, 'code'), '2 days ago', 'all'], { HOME: tmp });
    expect(everyone.stdout).toContain('colleague change');
  });

  it('rejects a folder that does not exist', () => {
    expect(run(standup, [join(tmp, 'nope')]).status).toBe(2);
  });
});
