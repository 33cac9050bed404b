/**
 * Named agents over HTTP: list, read, create, update, delete. Every part of a request (persona,
 * config, memory, commands, attached skills) is validated before anything is written; the writes then
 * go file by file, atomically, and if one fails the ones already made are undone (a new agent's
 * folder is removed; an updated agent's files get their old contents back). Deleting moves the folder
 * to the trash (core/agents), cancels the agent's runs and forgets its routes.
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import { z } from 'zod';
import {
  COMMAND_MAX_CHARS,
  agentExists,
  agentLayout,
  deleteAgent,
  isDefaultAgent,
  listAgents,
  loadAgent,
  parseAgentConfigText,
  type Agent,
} from '../agents/index.js';
import { errorMessage } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import type { Route, RouteArgs } from './api.js';
import type { DaemonContext } from './context.js';
import { HttpError } from './httpError.js';
import { readJson, validate } from './httpBody.js';
import { sendJson } from './httpReply.js';
import { AGENT_NAME_PATTERN } from './protocol.js';

const ITEM_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const AgentName = z.string().regex(AGENT_NAME_PATTERN, 'expected an agent name (lowercase letters, digits, - and _, at most 64)');
const Persona = z.string().max(200_000).refine((t) => t.trim() !== '', 'must not be blank: an agent needs a persona');
const Memory = z.string().max(500_000);
/** config.yaml as a YAML string (comments kept) or as a JSON object (written as YAML). */
const ConfigValue = z.union([z.string().max(100_000), z.record(z.string(), z.unknown())]);
const CommandText = z
  .string()
  .refine((t) => t.trim() !== '', 'must not be blank')
  .refine((t) => Array.from(t).length <= COMMAND_MAX_CHARS, `at most ${COMMAND_MAX_CHARS} characters`);
const CommandName = z.string().regex(ITEM_NAME, 'expected a command name (lowercase letters, digits, - and _)');
const SkillNames = z.array(z.string().regex(ITEM_NAME, 'expected a skill name')).max(500);

const CreateAgent = z.strictObject({
  name: AgentName.refine((n) => !isDefaultAgent(n), '"default" is the built-in agent'),
  prompt: Persona,
  memory: Memory.optional(),
  config: ConfigValue.optional(),
  commands: z.record(CommandName, CommandText).optional(),
  skills: SkillNames.optional(),
});

const UpdateAgent = z.strictObject({
  prompt: Persona.optional(),
  /** null deletes MEMORY.md. */
  memory: Memory.nullable().optional(),
  /** null deletes config.yaml. */
  config: ConfigValue.nullable().optional(),
  /** Each command: new text, or null to delete it. Commands not named are left alone. */
  commands: z.record(CommandName, CommandText.nullable()).optional(),
  /** The full list of attached global skills ([] detaches all). */
  skills: SkillNames.optional(),
});

export function agentRoutes(): Route[] {
  return [
    { method: 'GET', path: '/agents', handler: list },
    { method: 'POST', path: '/agents', handler: create },
    { method: 'GET', path: '/agents/{name}', handler: get },
    { method: 'PUT', path: '/agents/{name}', handler: update },
    { method: 'DELETE', path: '/agents/{name}', handler: remove },
  ];
}

async function list(ctx: DaemonContext, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  const agents = [];
  for (const name of await listAgents(ctx.home)) {
    try {
      const a = await loadAgent(ctx.home, name);
      agents.push({
        name,
        has_memory: a.hasMemory,
        has_config: a.hasConfigFile,
        command_count: (await commandNames(a)).length,
        skill_count: a.attachedSkills.length,
      });
    } catch (e) {
      agents.push({ name, problem: errorMessage(e) });
    }
  }
  sendJson(res, 200, { agents });
}

async function get(ctx: DaemonContext, _req: IncomingMessage, res: ServerResponse, { params }: RouteArgs): Promise<void> {
  const name = nameParam(params);
  sendJson(res, 200, await view(ctx.home, name));
}

async function create(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readJson(req, CreateAgent);
  const layout = agentLayout(ctx.home, body.name);
  const configText = body.config !== undefined ? checkedConfig(layout.config, body.config) : undefined;
  if (body.skills) await checkSkillsExist(ctx.home, body.skills);

  await mkdir(join(ctx.home, 'agents'), { recursive: true, mode: 0o700 });
  try {
    // Not recursive: making the folder is the claim, so two creators cannot both win.
    await mkdir(layout.dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new HttpError(409, 'agent_exists', `agent "${body.name}" already exists`);
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
    throw new HttpError(500, 'agent_write_failed', `could not create agent "${body.name}" (nothing was kept): ${errorMessage(e)}`);
  }
  ctx.bus.publish({ type: 'agent_changed', at: new Date().toISOString(), agent: body.name, change: 'created' });
  sendJson(res, 201, await view(ctx.home, body.name));
}

async function update(ctx: DaemonContext, req: IncomingMessage, res: ServerResponse, { params }: RouteArgs): Promise<void> {
  const name = nameParam(params);
  const body = await readJson(req, UpdateAgent);
  if (!(await agentExists(ctx.home, name))) throw new HttpError(404, 'agent_not_found', `agent "${name}" not found`);
  const layout = agentLayout(ctx.home, name);

  // Everything is checked first; a write happens only when the whole request is acceptable.
  const writes: { file: string; text: string | null }[] = [];
  if (body.prompt !== undefined) writes.push({ file: layout.persona, text: body.prompt });
  if (body.config !== undefined) writes.push({ file: layout.config, text: body.config === null ? null : checkedConfig(layout.config, body.config) });
  if (body.memory !== undefined) writes.push({ file: layout.memory, text: body.memory });
  if (body.skills !== undefined) {
    await checkSkillsExist(ctx.home, body.skills);
    writes.push({ file: layout.attached, text: attachedYaml(body.skills) });
  }
  for (const [cmd, text] of Object.entries(body.commands ?? {})) writes.push({ file: join(layout.commandsDir, `${cmd}.md`), text });

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
    throw new HttpError(500, 'agent_write_failed', `could not update agent "${name}" (the earlier files were restored): ${errorMessage(e)}`);
  }
  ctx.bus.publish({ type: 'agent_changed', at: new Date().toISOString(), agent: name, change: 'updated' });
  sendJson(res, 200, await view(ctx.home, name));
}

async function remove(ctx: DaemonContext, _req: IncomingMessage, res: ServerResponse, { params }: RouteArgs): Promise<void> {
  const name = nameParam(params);
  if (isDefaultAgent(name)) throw new HttpError(400, 'invalid_request', '"default" is the built-in agent and cannot be deleted', 'name');
  if (!(await agentExists(ctx.home, name))) throw new HttpError(404, 'agent_not_found', `agent "${name}" not found`);
  await ctx.router.evictAgent(name);
  const trash = await deleteAgent(ctx.home, name);
  ctx.bus.publish({ type: 'agent_changed', at: new Date().toISOString(), agent: name, change: 'deleted' });
  sendJson(res, 200, { deleted: true, name, moved_to: trash });
}

function nameParam(params: Record<string, string>): string {
  return validate(AgentName, params.name, 'path.name');
}

/** The YAML text to write, or a 400 naming the field exactly as the loader would. */
function checkedConfig(file: string, value: string | Record<string, unknown>): string {
  const text = typeof value === 'string' ? value : toYaml(value);
  const parsed = parseAgentConfigText(file, text);
  if (!parsed.ok) {
    const p = parsed.problems[0]!;
    const where = p.field ? `config.${p.field}` : 'config';
    throw new HttpError(400, 'invalid_request', parsed.problems.map((q) => `${q.field ? `config.${q.field}` : 'config'}: ${q.message}`).join('; '), where);
  }
  return text;
}

async function checkSkillsExist(home: string, names: readonly string[]): Promise<void> {
  for (const [i, n] of names.entries()) {
    const file = join(home, 'skills', n, 'SKILL.md');
    if ((await readIfPresent(file)) === null) {
      throw new HttpError(400, 'invalid_request', `skills[${i}]: no global skill "${n}" (${file} does not exist)`, `skills[${i}]`);
    }
  }
}

function attachedYaml(names: readonly string[]): string {
  return names.length === 0 ? '[]\n' : toYaml([...new Set(names)]);
}

async function view(home: string, name: string) {
  let agent: Agent;
  try {
    agent = await loadAgent(home, name);
  } catch (e) {
    if ((e as { code?: string }).code === 'not_found') throw new HttpError(404, 'agent_not_found', `agent "${name}" not found`);
    throw e;
  }
  const commands: Record<string, string> = {};
  for (const cmd of await commandNames(agent)) {
    const text = await readIfPresent(join(agent.layout.commandsDir, `${cmd}.md`));
    if (text !== null) commands[cmd] = text;
  }
  return {
    name,
    prompt: agent.persona,
    memory: await readIfPresent(agent.layout.memory),
    config: agent.hasConfigFile ? agent.config : null,
    config_text: await readIfPresent(agent.layout.config),
    commands,
    skills: agent.attachedSkills,
  };
}

async function commandNames(agent: Agent): Promise<string[]> {
  try {
    return (await readdir(agent.layout.commandsDir))
      .filter((f) => f.endsWith('.md') && ITEM_NAME.test(f.slice(0, -3)))
      .map((f) => f.slice(0, -3))
      .sort();
  } catch {
    return [];
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
