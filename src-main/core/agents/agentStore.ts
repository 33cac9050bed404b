/**
 * Named agents on disk: list, load, validate, create and delete `<REIN_HOME>/agents/<name>/`.
 * Loading refuses an agent whose persona, config.yaml or _attached.yaml is broken (the run would not be
 * the agent the person wrote); validating never refuses, it lists every problem in every file.
 * Nothing here erases a person's work: delete moves the folder to `<REIN_HOME>/trash/agents/`.
 */
import { cp, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ReinError, errorMessage } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import type { AgentConfig } from './agentConfig.js';
import { checkAgentConfig, checkAgentSkills, checkAttachedSkills, checkCommands, checkPersona } from './agentFiles.js';
import {
  agentLayout,
  agentsRoot,
  agentsTrash,
  assertAgentName,
  isAgentName,
  isDefaultAgent,
  NAME_RULE,
  type AgentLayout,
} from './layout.js';
import { formatProblem, sortProblems, type AgentProblem } from './problems.js';
import { starterConfig, starterPersona } from './starterFiles.js';

export interface Agent {
  name: string;
  dir: string;
  /** The full text of AGENT.md. */
  persona: string;
  /** The agent's own config.yaml, validated; `{}` when there is none. */
  config: AgentConfig;
  hasConfigFile: boolean;
  /** Global skills this agent may use, from `_attached.yaml`. */
  attachedSkills: string[];
  /** HEARTBEAT.md exists and is not blank (a heartbeat with nothing to check does nothing). */
  hasHeartbeat: boolean;
  hasMemory: boolean;
  layout: AgentLayout;
}

/** Sorted names of the usable named agents: valid folder names holding an AGENT.md. */
export async function listAgents(home: string): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await agentFolders(home)) {
    if (!isAgentName(entry) || isDefaultAgent(entry)) continue;
    if (await isFile(agentLayout(home, entry).persona)) names.push(entry);
  }
  return names;
}

export async function agentExists(home: string, name: string): Promise<boolean> {
  return isAgentName(name) && !isDefaultAgent(name) && (await isFile(agentLayout(home, name).persona));
}

/**
 * Loads one named agent. Throws `invalid_input` for a bad name, `not_found` when there is no such agent,
 * `config_invalid` (every problem, each with file, line and field) when AGENT.md is blank or config.yaml
 * or _attached.yaml is wrong. Problems in commands and skills do not stop the agent: those loaders skip
 * the bad item, and `validateAgent` reports it.
 */
export async function loadAgent(home: string, name: string): Promise<Agent> {
  assertAgentName(name);
  if (isDefaultAgent(name)) {
    throw new ReinError('not_found', `"${name}" is the built-in agent: it has no folder to load`, { agent: name });
  }
  const layout = agentLayout(home, name);
  if (!(await isFile(layout.persona))) {
    throw new ReinError('not_found', `agent "${name}" not found: ${layout.persona} does not exist`, {
      agent: name,
      file: layout.persona,
    });
  }
  const [persona, config, attached] = await Promise.all([
    checkPersona(layout.persona),
    checkAgentConfig(layout.config),
    checkAttachedSkills(layout.attached),
  ]);
  const problems = sortProblems([...persona.problems, ...config.problems, ...attached.problems]);
  if (problems.length > 0 || persona.value === undefined) throw agentInvalid(name, problems);
  return {
    name,
    dir: layout.dir,
    persona: persona.value,
    config: config.value.config,
    hasConfigFile: config.value.exists,
    attachedSkills: attached.value,
    hasHeartbeat: await hasContent(layout.heartbeat),
    hasMemory: await isFile(layout.memory),
    layout,
  };
}

/**
 * Every problem in every file of one agent, in reading order; `[]` when all is well. Throws only when
 * there is nothing to validate: a bad name (`invalid_input`) or no such folder (`not_found`).
 */
export async function validateAgent(home: string, name: string): Promise<AgentProblem[]> {
  assertAgentName(name);
  const layout = agentLayout(home, name);
  if (isDefaultAgent(name)) return validateDefaultAgentFolder(layout);
  if (!(await isDirectory(layout.dir))) {
    throw new ReinError('not_found', `agent "${name}" not found: ${layout.dir} does not exist`, {
      agent: name,
      file: layout.dir,
    });
  }
  const checks = await Promise.all([
    checkPersona(layout.persona),
    checkAgentConfig(layout.config),
    checkAttachedSkills(layout.attached),
    checkCommands(layout.commandsDir),
    checkAgentSkills(layout.skillsDir),
  ]);
  return sortProblems(checks.flatMap((c) => c.problems));
}

/**
 * The built-in agent has Rein's persona and the global config, but may keep its own commands and
 * skills in `agents/default/`. Those are checked; a persona or config file there would be silently
 * unused, so it is reported.
 */
async function validateDefaultAgentFolder(layout: AgentLayout): Promise<AgentProblem[]> {
  const problems: AgentProblem[] = [];
  const unused: [string, string][] = [
    [layout.persona, "the built-in agent uses Rein's own persona"],
    [layout.config, 'the built-in agent uses the global config.yaml'],
    [layout.attached, 'the built-in agent has every global skill'],
    [layout.heartbeat, 'heartbeats are for named agents'],
  ];
  for (const [file, why] of unused) {
    if (await exists(file)) problems.push({ file, message: `not used: ${why}; create a named agent to use this file` });
  }
  const checks = await Promise.all([checkCommands(layout.commandsDir), checkAgentSkills(layout.skillsDir)]);
  return sortProblems([...problems, ...checks.flatMap((c) => c.problems)]);
}

export interface AllAgentsReport {
  /** Folders that were checked as agents, sorted. */
  checked: string[];
  problems: AgentProblem[];
}

/** Validates every folder under `<REIN_HOME>/agents/`, including ones that could never load. */
export async function validateAllAgents(home: string): Promise<AllAgentsReport> {
  const checked: string[] = [];
  const problems: AgentProblem[] = [];
  for (const entry of await agentFolders(home)) {
    const dir = join(agentsRoot(home), entry);
    if (!isAgentName(entry)) {
      problems.push({
        file: dir,
        message: `"${entry}" is not a valid agent name (${NAME_RULE}), so this agent can never be used`,
      });
      continue;
    }
    checked.push(entry);
    problems.push(...(await validateAgent(home, entry)));
  }
  return { checked, problems };
}

export interface CreateAgentOptions {
  /** Persona text for AGENT.md. */
  persona?: string;
  /** A file whose text becomes AGENT.md. */
  fromFile?: string;
}

/**
 * Makes a new agent folder with AGENT.md (the given persona, or a starter to edit) and a commented
 * starter config.yaml. Refuses a bad or reserved name and an existing folder; a failure half-way leaves
 * no folder behind.
 */
export async function createAgent(home: string, name: string, opts: CreateAgentOptions = {}): Promise<Agent> {
  assertAgentName(name);
  if (isDefaultAgent(name))
    throw new ReinError('invalid_input', `"${name}" is the built-in agent's name; choose another`, { field: 'name' });
  if (opts.persona !== undefined && opts.fromFile !== undefined) {
    throw new ReinError('invalid_input', 'give the persona as text or as a file, not both');
  }
  const persona =
    opts.fromFile !== undefined ? await readPersonaFile(opts.fromFile) : (opts.persona ?? starterPersona(name));
  if (persona.trim() === '') {
    throw new ReinError(
      'invalid_input',
      `the persona is empty${opts.fromFile !== undefined ? ` (${opts.fromFile})` : ''}: an agent needs one`,
      {
        field: 'persona',
      },
    );
  }

  const layout = agentLayout(home, name);
  await mkdir(agentsRoot(home), { recursive: true, mode: 0o700 });
  try {
    // Not recursive: creating the folder is the claim, so two creators racing cannot both win.
    await mkdir(layout.dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new ReinError('invalid_input', `agent "${name}" already exists: ${layout.dir}`, {
        agent: name,
        file: layout.dir,
      });
    }
    throw e;
  }
  try {
    await atomicWriteFile(layout.persona, persona.endsWith('\n') ? persona : `${persona}\n`, { mode: 0o600 });
    await atomicWriteFile(layout.config, starterConfig(name), { mode: 0o600 });
  } catch (e) {
    await rm(layout.dir, { recursive: true, force: true });
    throw new ReinError(
      'internal',
      `could not create agent "${name}": ${errorMessage(e)}`,
      { agent: name },
      { cause: e },
    );
  }
  return loadAgent(home, name);
}

export interface DeleteAgentOptions {
  /** Clock for the trash folder's name (tests pass a fixed one). */
  now?: Date;
}

/**
 * Moves the agent's folder, whole, to `<REIN_HOME>/trash/agents/<name>-<time>` and returns that path:
 * memory, sessions and skills can all be recovered by moving it back. Refuses `default` and a bad name.
 */
export async function deleteAgent(home: string, name: string, opts: DeleteAgentOptions = {}): Promise<string> {
  assertAgentName(name);
  if (isDefaultAgent(name))
    throw new ReinError('invalid_input', `"${name}" is the built-in agent and cannot be deleted`, { agent: name });
  const { dir } = agentLayout(home, name);
  if (!(await isDirectory(dir)))
    throw new ReinError('not_found', `agent "${name}" not found: ${dir} does not exist`, { agent: name, file: dir });

  const trash = agentsTrash(home);
  await mkdir(trash, { recursive: true, mode: 0o700 });
  const stamp = (opts.now ?? new Date()).toISOString().replace(/[:.]/g, '-');
  for (let attempt = 1; ; attempt++) {
    const target = join(trash, attempt === 1 ? `${name}-${stamp}` : `${name}-${stamp}-${attempt}`);
    if (await exists(target)) continue;
    try {
      await rename(dir, target);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOTEMPTY' || code === 'EEXIST') continue; // someone else took the name meanwhile
      if (code !== 'EXDEV') throw e;
      // `agents/` on another volume (a symlink): copy whole, then remove the original.
      await cp(dir, target, { recursive: true, errorOnExist: true, force: false, preserveTimestamps: true });
      await rm(dir, { recursive: true, force: true });
    }
    return target;
  }
}

function agentInvalid(name: string, problems: AgentProblem[]): ReinError {
  const first = problems[0];
  return new ReinError('config_invalid', `agent "${name}" has problems:\n${problems.map(formatProblem).join('\n')}`, {
    agent: name,
    ...(first ? { file: first.file, line: first.line, column: first.column, field: first.field } : {}),
    problems,
  });
}

async function readPersonaFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new ReinError('not_found', `${file} does not exist`, { file });
    throw new ReinError('invalid_input', `${file}: cannot read: ${errorMessage(e)}`, { file }, { cause: e });
  }
}

/** Folder names under `agents/`, sorted; hidden and `_`-prefixed ones are Rein's or the system's. */
async function agentFolders(home: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(agentsRoot(home));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw e;
  }
  const out: string[] = [];
  for (const entry of entries.sort()) {
    if (entry.startsWith('.') || entry.startsWith('_')) continue;
    if (await isDirectory(join(agentsRoot(home), entry))) out.push(entry);
  }
  return out;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

async function hasContent(file: string): Promise<boolean> {
  try {
    return (await readFile(file, 'utf8')).trim() !== '';
  } catch {
    return false;
  }
}
