/**
 * Finds and validates the skills one agent may use. Three places, highest priority first:
 *
 *   1. the agent's own `<home>/agents/<agent>/skills/<name>/SKILL.md`
 *   2. the user's `<home>/skills/<name>/SKILL.md` — all of them for the default agent; for a named
 *      agent only those listed in its `_attached.yaml`
 *   3. the skills bundled with the app (`bundledDir`, see `bundledSkillsDir()`)
 *
 * A name found in a higher place hides the same name below it. A broken skill is reported (file and
 * field) and skipped; it never stops the others from loading. Nothing here writes to disk.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { ReinError, errorMessage } from '../errors.js';
import { AGENT_NAME_RE, DEFAULT_AGENT, paths } from '../config/paths.js';
import { describeIssues } from '../util/zodIssues.js';
import { splitFrontMatter } from './frontMatter.js';
import { AttachedSkills, normalizeAllowedTools, SKILL_NAME_RE, SkillFrontMatter } from './schema.js';
import type { LoadedSkills, Skill, SkillProblem, SkillSource } from './types.js';

export interface LoadSkillsOptions {
  /** Rein's home folder (`reinHome()`). */
  home: string;
  /** The agent the skills are for; the default agent when omitted. */
  agent?: string;
  /** Folder of the skills shipped with the app; omitted means none. */
  bundledDir?: string;
}

/** SKILL.md files larger than this are refused: a skill's body goes into the conversation whole. */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;

export const skillPaths = {
  agentSkillsDir: (home: string, agent: string) => join(paths.agentDir(home, agent), 'skills'),
  userSkillsDir: (home: string) => join(home, 'skills'),
  attachedFile: (home: string, agent: string) => join(paths.agentDir(home, agent), '_attached.yaml'),
};

export async function loadSkills(opts: LoadSkillsOptions): Promise<LoadedSkills> {
  const agent = opts.agent ?? DEFAULT_AGENT;
  // Checked before any path is built from it, so a name can never point outside the agents folder.
  if (!AGENT_NAME_RE.test(agent)) {
    throw new ReinError('invalid_input', `agent name "${agent}" is not valid (${AGENT_NAME_RE.source})`, { agent });
  }
  const problems: SkillProblem[] = [];
  const userDir = resolve(skillPaths.userSkillsDir(opts.home));
  const bundledDir = opts.bundledDir ? resolve(opts.bundledDir) : undefined;

  const agentTier = await readSkillRoot(resolve(skillPaths.agentSkillsDir(opts.home, agent)), 'agent', problems);

  // The default agent is the user's own: it sees every user skill. A named agent sees only the ones
  // attached to it, so a skill written for one agent does not leak into another's catalogue.
  const attached =
    agent === DEFAULT_AGENT
      ? undefined
      : await readAttached(resolve(skillPaths.attachedFile(opts.home, agent)), problems);
  const userTier = await readSkillRoot(userDir, 'user', problems, attached && ((name) => attached.names.has(name)));
  const bundledTier = bundledDir
    ? await readSkillRoot(bundledDir, 'bundled', problems)
    : { skills: [], folders: new Set<string>() };

  for (const [name, index] of attached?.positions ?? []) {
    // Attaching a bundled skill is harmless (it is available anyway); a name found nowhere is a typo.
    if (!userTier.folders.has(name) && !bundledTier.folders.has(name)) {
      problems.push({ file: attached!.file, field: `[${index}]`, message: `skill "${name}" is not in ${userDir}` });
    }
  }
  return finish([agentTier.skills, userTier.skills, bundledTier.skills], problems);
}

function finish(tiers: Skill[][], problems: SkillProblem[]): LoadedSkills {
  const byName = new Map<string, Skill>();
  for (const tier of tiers) {
    for (const skill of tier) if (!byName.has(skill.name)) byName.set(skill.name, skill);
  }
  const skills = [...byName.values()].sort((a, b) => compareNames(a.name, b.name));
  return { skills, problems };
}

/** Code-point order, so the result does not depend on the machine's locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

interface SkillFolder {
  name: string;
  dir: string;
}

/** Sub-folders of a skills root (symlinks followed), hidden entries and plain files ignored. */
async function listSkillFolders(root: string, problems?: SkillProblem[]): Promise<SkillFolder[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return [];
    problems?.push({ file: root, message: code === 'ENOTDIR' ? 'is not a folder' : `cannot read: ${errorMessage(e)}` });
    return [];
  }
  const folders: SkillFolder[] = [];
  for (const name of names.sort(compareNames)) {
    if (name.startsWith('.')) continue;
    const dir = join(root, name);
    const info = await stat(dir).catch(() => undefined);
    if (info?.isDirectory()) folders.push({ name, dir });
  }
  return folders;
}

async function readSkillRoot(
  root: string,
  source: SkillSource,
  problems: SkillProblem[],
  include?: (name: string) => boolean,
): Promise<{ skills: Skill[]; folders: Set<string> }> {
  const folders = (await listSkillFolders(root, problems)).filter((f) => !include || include(f.name));
  const skills: Skill[] = [];
  for (const folder of folders) {
    const result = await readSkill(folder, source);
    if ('skill' in result) skills.push(result.skill);
    else problems.push(...result.problems);
  }
  return { skills, folders: new Set(folders.map((f) => f.name)) };
}

type ReadResult = { skill: Skill } | { problems: SkillProblem[] };

async function readSkill(folder: SkillFolder, source: SkillSource): Promise<ReadResult> {
  const file = join(folder.dir, 'SKILL.md');
  const fail = (message: string, field?: string): ReadResult => ({
    problems: [field === undefined ? { file, message } : { file, field, message }],
  });

  if (!SKILL_NAME_RE.test(folder.name)) {
    return fail(
      `folder name "${folder.name}" is not a valid skill name (lowercase letters, digits and hyphens, at most 64)`,
    );
  }
  let text: string;
  try {
    const info = await stat(file);
    if (info.size > MAX_SKILL_FILE_BYTES) {
      return fail(
        `is ${info.size} bytes; a SKILL.md may be at most ${MAX_SKILL_FILE_BYTES} (move details into references/)`,
      );
    }
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return fail('missing: every skill folder needs a SKILL.md');
    return fail(`cannot read: ${errorMessage(e)}`);
  }

  const split = splitFrontMatter(text);
  if (split.kind === 'none')
    return fail('no front matter: the file must start with a "---" line, then name and description');
  if (split.kind === 'error')
    return fail(split.line !== undefined ? `line ${split.line}: ${split.message}` : split.message);
  if (split.data === null || typeof split.data !== 'object' || Array.isArray(split.data)) {
    return fail('front matter must be a YAML mapping (name: …, description: …)');
  }

  const parsed = SkillFrontMatter.safeParse(split.data);
  if (!parsed.success) {
    return {
      problems: describeIssues(parsed.error.issues, split.data).map((p) => ({
        file,
        field: p.field,
        message: p.message,
      })),
    };
  }
  const fm = parsed.data;
  if (fm.name !== folder.name) {
    return fail(`is "${fm.name}" but the folder is "${folder.name}"; they must match`, 'name');
  }
  const body = split.body.trim();
  if (body.length === 0) return fail('has no instructions after the front matter');

  const skill: Skill = {
    name: fm.name,
    description: fm.description.replace(/\s+/g, ' ').trim(),
    dir: folder.dir,
    file,
    body,
    source,
  };
  const allowedTools = normalizeAllowedTools(fm);
  if (allowedTools) skill.allowedTools = allowedTools;
  if (fm.license !== undefined) skill.license = fm.license;
  if (fm.compatibility !== undefined) skill.compatibility = fm.compatibility;
  if (fm.metadata) skill.metadata = Object.fromEntries(Object.entries(fm.metadata).map(([k, v]) => [k, String(v)]));
  return { skill };
}

interface Attached {
  file: string;
  names: Set<string>;
  /** Each valid name with its index in the list, for problems that point at the entry. */
  positions: [string, number][];
}

/** Reads `_attached.yaml`. A missing file attaches nothing; bad entries are reported and left out. */
async function readAttached(file: string, problems: SkillProblem[]): Promise<Attached> {
  const none: Attached = { file, names: new Set(), positions: [] };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      problems.push({ file, message: `cannot read: ${errorMessage(e)}` });
    return none;
  }
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0) {
    problems.push({ file, message: `YAML syntax error: ${doc.errors[0]!.message.split('\n', 1)[0]}` });
    return none;
  }
  const value: unknown = doc.toJS() ?? [];
  if (!Array.isArray(value)) {
    problems.push({ file, message: 'must be a YAML list of skill names (- name)' });
    return none;
  }
  const result = AttachedSkills.safeParse(value);
  const bad = new Set<number>();
  if (!result.success) {
    for (const p of describeIssues(result.error.issues, value)) {
      const index = p.path[0];
      if (typeof index === 'number') bad.add(index);
      problems.push({ file, field: p.field, message: p.message });
    }
  }
  const positions: [string, number][] = [];
  value.forEach((entry, index) => {
    if (!bad.has(index) && typeof entry === 'string' && !positions.some(([n]) => n === entry))
      positions.push([entry, index]);
  });
  return { file, names: new Set(positions.map(([n]) => n)), positions };
}
