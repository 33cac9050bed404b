/**
 * Named agents: list, read, create, update, delete — the service behind `GET/POST /agents`,
 * `GET/PUT/DELETE /agents/{name}` and the desktop's agent editor. Every part of a request (persona,
 * config, memory, commands, attached skills) is validated before anything is written; the writes then
 * go file by file, atomically, and if one fails the ones already made are undone (a new agent's
 * folder is removed; an updated agent's files get their old contents back). Deleting moves the folder
 * to the trash (core/agents), cancels the agent's runs and forgets its routes.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { stringify as toYaml } from 'yaml';
import {
  agentExists,
  agentLayout,
  checkAgentConfig,
  checkAttachedSkills,
  deleteAgent,
  isDefaultAgent,
  listAgents,
  loadAgent,
  mergeAgentConfig,
  parseAgentConfigText,
  validateAgent,
  type AgentConfig,
  type AgentProblem,
} from '../agents/index.js';
import type { DaemonEvent } from '../api/events.js';
import { NAME_PATTERN } from '../api/patterns.js';
import type {
  AgentDetail,
  AgentSummary,
  ChangePending,
  CreateAgentInput,
  FileProblem,
  SaveAgentInput,
  SlashCommandInfo,
} from '../api/reinApi.js';
import { loadCommands } from '../commands/index.js';
import { DEFAULT_AGENT } from '../config/paths.js';
import { ReinError, errorMessage, fieldError } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import type { GlobalConfig } from '../config/schema.js';
import { permissionRaises, type PermissionPosture } from '../permissions/raises.js';
import type { ChangeSource, ProposedChange } from './changeDesk.js';

export interface AgentsDeps {
  home: string;
  publish(event: DaemonEvent): void;
  /** Cancels the agent's runs and forgets its routes before its folder moves. */
  evictAgent(name: string): Promise<void>;
  /** The global config runs start with now (an agent's permissions are its config merged over it). */
  globalConfig(): GlobalConfig | Promise<GlobalConfig>;
  /** A remote change that raises permissions: kept for a person (a shell on the daemon's machine, the desktop app), or refused (changeDesk.ts). */
  confirm(change: ProposedChange): ChangePending;
}

/** What an agent with this config may do without asking, merged over the global config (permissions/raises.ts). */
export function agentPosture(global: GlobalConfig, agent: AgentConfig): PermissionPosture {
  const e = mergeAgentConfig(global, agent);
  return {
    mode: e.mode,
    autoApprove: e.autoApprove,
    unattendedApprovals: e.unattendedApprovals,
    permissions: e.permissions,
    tools: { allowed: e.tools.allowed, denied: e.tools.denied, env_passthrough: e.config.tools.env_passthrough },
    mcpServers: e.mcpServers,
    hooks: e.config.hooks,
    ...(e.cwd !== undefined ? { cwd: e.cwd } : {}),
    ...(global.base_url !== undefined ? { baseUrl: global.base_url } : {}),
  };
}

const changed = (agent: string, change: 'created' | 'updated' | 'deleted'): DaemonEvent => ({
  type: 'agent_changed',
  at: new Date().toISOString(),
  agent,
  change,
});

export async function listAgentSummaries(home: string): Promise<AgentSummary[]> {
  const agents: AgentSummary[] = [];
  for (const name of await listAgents(home)) {
    try {
      const a = await loadAgent(home, name);
      agents.push({
        name,
        has_memory: a.hasMemory,
        has_config: a.hasConfigFile,
        command_count: (await commandNames(a.layout.commandsDir)).length,
        skill_count: a.attachedSkills.length,
      });
    } catch (e) {
      agents.push({ name, problem: errorMessage(e) });
    }
  }
  return agents;
}

/**
 * Creates an agent. Asked for over the API (`from: 'remote'`), an agent whose config would let it do
 * more than the global config does (permissions/raises.ts) is not created: a person confirms it first —
 * `rein changes accept` in a shell on the daemon's machine, or the desktop app — (the answer is a
 * ChangePending), or it is refused when nobody can (no daemon, no app).
 */
export async function createAgent(
  deps: AgentsDeps,
  body: CreateAgentInput,
  from: ChangeSource,
): Promise<AgentDetail | ChangePending> {
  const layout = agentLayout(deps.home, body.name);
  const configText = body.config !== undefined ? checkedConfig(layout.config, body.config) : undefined;
  if (body.skills) await checkSkillsExist(deps.home, body.skills);
  if (from === 'remote' && configText !== undefined) {
    const global = await deps.globalConfig();
    const raises = permissionRaises(
      agentPosture(global, {}),
      agentPosture(global, parsedConfig(layout.config, configText)),
    );
    if (raises.length > 0) {
      if (await agentExists(deps.home, body.name))
        throw new ReinError('agent_exists', `agent "${body.name}" already exists`);
      return deps.confirm({
        kind: 'create_agent',
        agent: body.name,
        raises,
        request: body,
        apply: () => createAgent(deps, body, 'person'),
      });
    }
  }

  await mkdir(join(deps.home, 'agents'), { recursive: true, mode: 0o700 });
  try {
    // Not recursive: making the folder is the claim, so two creators cannot both win.
    await mkdir(layout.dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST')
      throw new ReinError('agent_exists', `agent "${body.name}" already exists`);
    throw e;
  }
  try {
    await writeText(layout.persona, body.prompt);
    if (configText !== undefined) await writeText(layout.config, configText);
    if (body.memory !== undefined) await writeText(layout.memory, body.memory);
    if (body.skills) await writeText(layout.attached, attachedYaml(body.skills));
    for (const [cmd, text] of Object.entries(body.commands ?? {})) {
      await mkdir(layout.commandsDir, { recursive: true, mode: 0o700 });
      await writeText(join(layout.commandsDir, `${cmd}.md`), text);
    }
  } catch (e) {
    await rm(layout.dir, { recursive: true, force: true });
    throw new ReinError(
      'agent_write_failed',
      `could not create agent "${body.name}" (nothing was kept): ${errorMessage(e)}`,
    );
  }
  deps.publish(changed(body.name, 'created'));
  return view(deps.home, body.name);
}

/** Updates an agent; a remote change to its config that raises its permissions waits for a person (see createAgent). */
export async function saveAgent(
  deps: AgentsDeps,
  input: SaveAgentInput,
  from: ChangeSource,
): Promise<AgentDetail | ChangePending> {
  const { name, ...body } = input;
  if (!(await agentExists(deps.home, name))) throw new ReinError('agent_not_found', `agent "${name}" not found`);
  const layout = agentLayout(deps.home, name);
  if (from === 'remote' && body.config !== undefined) {
    const after = body.config === null ? {} : parsedConfig(layout.config, checkedConfig(layout.config, body.config));
    // An absent or broken config.yaml inherits everything: the agent runs with the global settings (or not at all).
    const before = (await checkAgentConfig(layout.config)).value.config;
    const global = await deps.globalConfig();
    const raises = permissionRaises(agentPosture(global, before), agentPosture(global, after));
    if (raises.length > 0) {
      if (body.skills !== undefined) await checkSkillsExist(deps.home, body.skills);
      return deps.confirm({
        kind: 'save_agent',
        agent: name,
        raises,
        request: input,
        apply: () => saveAgent(deps, input, 'person'),
      });
    }
  }

  // Everything is checked first; a write happens only when the whole request is acceptable.
  const writes: { file: string; text: string | null }[] = [];
  if (body.prompt !== undefined) writes.push({ file: layout.persona, text: body.prompt });
  if (body.config !== undefined)
    writes.push({ file: layout.config, text: body.config === null ? null : checkedConfig(layout.config, body.config) });
  if (body.memory !== undefined) writes.push({ file: layout.memory, text: body.memory });
  if (body.skills !== undefined) {
    await checkSkillsExist(deps.home, body.skills);
    writes.push({ file: layout.attached, text: attachedYaml(body.skills) });
  }
  for (const [cmd, text] of Object.entries(body.commands ?? {}))
    writes.push({ file: join(layout.commandsDir, `${cmd}.md`), text });

  const undo: { file: string; text: string | null }[] = [];
  try {
    for (const w of writes) {
      undo.push({ file: w.file, text: await readIfPresent(w.file) });
      if (w.text === null) await rm(w.file, { force: true });
      else {
        await mkdir(join(w.file, '..'), { recursive: true, mode: 0o700 });
        await writeText(w.file, w.text);
      }
    }
  } catch (e) {
    for (const u of undo.reverse()) {
      await (u.text === null ? rm(u.file, { force: true }) : writeText(u.file, u.text)).catch(() => undefined);
    }
    throw new ReinError(
      'agent_write_failed',
      `could not update agent "${name}" (the earlier files were restored): ${errorMessage(e)}`,
    );
  }
  deps.publish(changed(name, 'updated'));
  return view(deps.home, name);
}

export async function removeAgent(
  deps: AgentsDeps,
  name: string,
): Promise<{ deleted: true; name: string; moved_to: string }> {
  if (isDefaultAgent(name))
    throw fieldError('invalid_request', '"default" is the built-in agent and cannot be deleted', 'name');
  if (!(await agentExists(deps.home, name))) throw new ReinError('agent_not_found', `agent "${name}" not found`);
  await deps.evictAgent(name);
  const trash = await deleteAgent(deps.home, name);
  deps.publish(changed(name, 'deleted'));
  return { deleted: true, name, moved_to: trash };
}

/** The YAML text to write, or an invalid_request naming the field exactly as the loader would. */
function checkedConfig(file: string, value: string | Record<string, unknown>): string {
  const text = typeof value === 'string' ? value : toYaml(value);
  const parsed = parseAgentConfigText(file, text);
  if (!parsed.ok) {
    const p = parsed.problems[0]!;
    const where = p.field ? `config.${p.field}` : 'config';
    throw fieldError(
      'invalid_request',
      parsed.problems.map((q) => `${q.field ? `config.${q.field}` : 'config'}: ${q.message}`).join('; '),
      where,
    );
  }
  return text;
}

async function checkSkillsExist(home: string, names: readonly string[]): Promise<void> {
  for (const [i, n] of names.entries()) {
    const file = join(home, 'skills', n, 'SKILL.md');
    if ((await readIfPresent(file)) === null) {
      throw fieldError(
        'invalid_request',
        `skills[${i}]: no global skill "${n}" (${file} does not exist)`,
        `skills[${i}]`,
      );
    }
  }
}

/** The config of a text checkedConfig accepted. */
function parsedConfig(file: string, text: string): AgentConfig {
  const parsed = parseAgentConfigText(file, text);
  return parsed.ok ? parsed.value : {};
}

function attachedYaml(names: readonly string[]): string {
  return names.length === 0 ? '[]\n' : toYaml([...new Set(names)]);
}

/**
 * What the editor shows. A broken agent opens too: its files come back as written, with every problem
 * (file relative to the agent's folder, line, field, message), so the person can fix them here; only
 * the parts that validate are given parsed (`config` is null while config.yaml is invalid).
 */
export async function view(home: string, name: string): Promise<AgentDetail> {
  if (isDefaultAgent(name)) return builtinView(home);
  if (!(await agentExists(home, name))) throw new ReinError('agent_not_found', `agent "${name}" not found`);
  const layout = agentLayout(home, name);
  const [config, attached, problems] = await Promise.all([
    checkAgentConfig(layout.config),
    checkAttachedSkills(layout.attached),
    validateAgent(home, name),
  ]);
  return {
    name,
    prompt: (await readLenient(layout.persona)) ?? '',
    memory: await readLenient(layout.memory),
    config: config.problems.length === 0 && config.value.exists ? config.value.config : null,
    config_text: await readLenient(layout.config),
    commands: await commandTexts(layout.commandsDir),
    skills: attached.value,
    problems: problems.map((p) => relativeTo(layout.dir, p)),
    slash_commands: await slashCommands(home, name),
  };
}

/** `default` has Rein's own persona and the global config; what it may have of its own is commands. */
async function builtinView(home: string): Promise<AgentDetail> {
  const layout = agentLayout(home, DEFAULT_AGENT);
  return {
    name: DEFAULT_AGENT,
    builtin: true,
    prompt: '',
    memory: null,
    config: null,
    config_text: null,
    commands: await commandTexts(layout.commandsDir),
    skills: [],
    problems: (await validateAgent(home, DEFAULT_AGENT)).map((p) => relativeTo(layout.dir, p)),
    slash_commands: await slashCommands(home, DEFAULT_AGENT),
  };
}

/** Every command the agent's chat accepts (its own over global ones of the same name), as the daemon expands them. */
async function slashCommands(home: string, agent: string): Promise<SlashCommandInfo[]> {
  const { commands } = await loadCommands({ home, agent });
  return commands.map((c) => ({
    name: c.name,
    description: c.description,
    ...(c.argumentHint ? { argument_hint: c.argumentHint } : {}),
    scope: c.scope,
  }));
}

function relativeTo(dir: string, p: AgentProblem): FileProblem {
  const rel = relative(dir, p.file);
  const file = rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? p.file : rel.split(sep).join('/');
  return {
    file,
    ...(p.line !== undefined ? { line: p.line } : {}),
    ...(p.column !== undefined ? { column: p.column } : {}),
    ...(p.field !== undefined ? { field: p.field } : {}),
    message: p.message,
  };
}

async function commandTexts(dir: string): Promise<Record<string, string>> {
  const commands: Record<string, string> = {};
  for (const cmd of await commandNames(dir)) {
    const text = await readLenient(join(dir, `${cmd}.md`));
    if (text !== null) commands[cmd] = text;
  }
  return commands;
}

async function commandNames(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir))
      .filter((f) => f.endsWith('.md') && NAME_PATTERN.test(f.slice(0, -3)))
      .map((f) => f.slice(0, -3))
      .sort();
  } catch {
    return [];
  }
}

/** For showing files: one that cannot be read is shown as absent (its problem is listed). */
async function readLenient(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}

async function readIfPresent(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

async function writeText(file: string, text: string): Promise<void> {
  await atomicWriteFile(file, text.endsWith('\n') || text === '' ? text : `${text}\n`, { mode: 0o600 });
}
