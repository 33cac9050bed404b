/** Temp REIN_HOME and bundled folders with SKILL.md files written the way a person would. */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface SkillHome {
  root: string;
  home: string;
  bundled: string;
  cleanup(): Promise<void>;
}

export async function makeSkillHome(): Promise<SkillHome> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'rein-skills-')));
  const home = join(root, 'home');
  const bundled = join(root, 'bundled');
  await mkdir(home, { recursive: true });
  await mkdir(bundled, { recursive: true });
  return { root, home, bundled, cleanup: () => rm(root, { recursive: true, force: true }) };
}

export async function writeFileIn(file: string, text: string): Promise<string> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
  return file;
}

/** Writes `<skillsRoot>/<folder>/SKILL.md` with a valid front matter unless `raw` is given. */
export async function writeSkill(
  skillsRoot: string,
  folder: string,
  opts: { description?: string; body?: string; raw?: string } = {},
): Promise<string> {
  const text =
    opts.raw ??
    `---\nname: ${folder}\ndescription: ${opts.description ?? `The ${folder} skill.`}\n---\n\n${opts.body ?? `Instructions of ${folder}.`}\n`;
  return writeFileIn(join(skillsRoot, folder, 'SKILL.md'), text);
}

export const agentSkills = (home: string, agent: string) => join(home, 'agents', agent, 'skills');
export const userSkills = (home: string) => join(home, 'skills');
