/** `rein agents list | show NAME | create NAME [--from-file FILE] | validate [NAME] | delete NAME` */
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import {
  checkAgentSkills,
  checkCommands,
  createAgent,
  deleteAgent,
  formatProblem,
  isAgentName,
  listAgents,
  loadAgent,
  resolveAgentRuntimeConfig,
  validateAgent,
  validateAllAgents,
  type AgentProblem,
  type AgentRuntimeConfig,
} from '../../core/agents/index.js';
import { loadConfig } from '../../core/config/load.js';
import { storedTrust } from '../folderTrust.js';
import { DEFAULT_AGENT, reinHome } from '../../core/config/paths.js';
import { isReinError } from '../../core/errors.js';
import { isSessionId } from '../../core/sessions/id.js';
import { defaultIterationsText } from '../../core/permissions/runPolicy.js';
import { UsageError, type CliIo } from '../io.js';

export const AGENTS_HELP = `Usage:
  rein agents list                          the agents and the first line of each persona
  rein agents show NAME                     persona, effective config and counts of one agent
  rein agents create NAME [--from-file F]   a new agent (persona from F, or a starter to edit)
  rein agents validate [NAME]               every problem in every file of one or all agents
  rein agents delete NAME                   move an agent's folder to $REIN_HOME/trash/agents

Agents live in $REIN_HOME/agents/NAME/ (see docs/agents.md). Names: lowercase letters, digits,
- and _, starting with a letter or digit, at most 64 characters.
Exit codes: 0 ok, 1 problems found or the operation failed, 2 bad usage.
`;

const PERSONA_HEAD_LINES = 12;

export async function agentsCommand(argv: string[], io: CliIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`rein agents: ${err.message}\nRun \`rein agents --help\` for usage.\n`);
      return 2;
    }
    if (isReinError(err)) {
      io.stderr.write(`rein agents: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

async function dispatch(argv: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined) throw new UsageError('missing subcommand: list, show, create, validate or delete');
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(AGENTS_HELP);
    return 0;
  }
  const { values, positionals } = parse(rest, sub === 'create');
  if (values.help) {
    io.stdout.write(AGENTS_HELP);
    return 0;
  }
  const home = reinHome(io.env);
  switch (sub) {
    case 'list':
      expectArgs(sub, positionals, 0, 0);
      return listCommand(home, io);
    case 'show':
      expectArgs(sub, positionals, 1, 1);
      return showCommand(home, agentName(positionals[0]!, true), io);
    case 'create': {
      expectArgs(sub, positionals, 1, 1);
      const name = agentName(positionals[0]!, false);
      const fromFile = values['from-file'];
      if (fromFile === '') throw new UsageError('--from-file needs a file name');
      return createCommand(home, name, fromFile === undefined ? undefined : resolve(io.cwd, fromFile), io);
    }
    case 'validate':
      expectArgs(sub, positionals, 0, 1);
      return validateCommand(home, positionals[0] === undefined ? undefined : agentName(positionals[0], true), io);
    case 'delete': {
      expectArgs(sub, positionals, 1, 1);
      const name = agentName(positionals[0]!, false);
      const target = await deleteAgent(home, name);
      io.stdout.write(
        `Moved agent "${name}" to ${target}\n(move the folder back to $REIN_HOME/agents/${name} to restore it)\n`,
      );
      return 0;
    }
    default:
      throw new UsageError(`unknown subcommand "${sub}": use list, show, create, validate or delete`);
  }
}

function parse(args: string[], withFromFile: boolean) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        ...(withFromFile ? { 'from-file': { type: 'string' as const } } : {}),
      },
    }) as { values: { help?: boolean; 'from-file'?: string }; positionals: string[] };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

function expectArgs(sub: string, positionals: string[], min: number, max: number): void {
  if (positionals.length < min) throw new UsageError(`${sub}: missing agent NAME`);
  if (positionals.length > max) throw new UsageError(`${sub}: unexpected argument "${positionals[max]}"`);
}

/** A malformed name is a usage mistake (exit 2), caught before it reaches any path. */
function agentName(name: string, allowDefault: boolean): string {
  if (!isAgentName(name)) {
    throw new UsageError(
      `"${name}" is not a valid agent name (lowercase letters, digits, - and _, starting with a letter or digit, at most 64)`,
    );
  }
  if (!allowDefault && name === DEFAULT_AGENT)
    throw new UsageError(`"${DEFAULT_AGENT}" is the built-in agent; choose another name`);
  return name;
}

async function listCommand(home: string, io: CliIo): Promise<number> {
  const names = await listAgents(home);
  const rows: [string, string][] = [[DEFAULT_AGENT, '(built-in)']];
  for (const name of names) {
    try {
      rows.push([name, personaSummary((await loadAgent(home, name)).persona)]);
    } catch (err) {
      if (!isReinError(err)) throw err;
      rows.push([name, `(has problems: run \`rein agents validate ${name}\`)`]);
    }
  }
  const width = Math.max(...rows.map(([n]) => n.length));
  for (const [name, summary] of rows) io.stdout.write(`${name.padEnd(width)}  ${summary}\n`);
  return 0;
}

/** The first line of prose in a persona, with Markdown heading marks taken off, cut to fit a line. */
function personaSummary(persona: string): string {
  const line = persona
    .split('\n')
    .map((l) => l.replace(/^#+\s*/, '').trim())
    .find((l) => l !== '');
  if (line === undefined) return '';
  return line.length > 72 ? `${line.slice(0, 71)}…` : line;
}

async function showCommand(home: string, name: string, io: CliIo): Promise<number> {
  const { config: global, files } = await loadConfig({ home, cwd: io.cwd, ...storedTrust(io) });
  const rt = await resolveAgentRuntimeConfig(home, global, name);
  const out: string[] = [];
  out.push(`Agent: ${name}${rt.isDefault ? ' (built-in)' : ''}`);
  if (rt.dir) out.push(`Folder: ${rt.dir}`);
  out.push('');
  if (rt.persona !== undefined) {
    const lines = rt.persona.replace(/\s+$/, '').split('\n');
    out.push(
      `Persona (AGENT.md${lines.length > PERSONA_HEAD_LINES ? `, first ${PERSONA_HEAD_LINES} of ${lines.length} lines` : ''}):`,
    );
    for (const l of lines.slice(0, PERSONA_HEAD_LINES)) out.push(`  ${l}`.trimEnd());
  } else {
    out.push("Persona: Rein's built-in persona");
  }
  out.push('');
  const agentFile = rt.dir ? join(rt.dir, 'config.yaml') : undefined;
  const sources = [...files, ...(agentFile && (await isFile(agentFile)) ? [agentFile] : [])];
  out.push(`Effective config (${sources.length > 0 ? sources.join(' + ') : 'defaults'}):`);
  for (const l of stringify(effectiveForDisplay(rt), { lineWidth: 0 }).replace(/\s+$/, '').split('\n'))
    out.push(`  ${l}`);
  out.push('');
  const [sessions, commands, skills] = await Promise.all([
    countSessions(rt.sessionsDir),
    checkCommands(rt.commandsDir).then((c) => c.value.length),
    checkAgentSkills(rt.skillsDir).then((s) => s.value.length),
  ]);
  const attached = rt.allGlobalSkills
    ? 'every global skill'
    : `${rt.attachedSkills.length} attached${rt.attachedSkills.length ? ` (${rt.attachedSkills.join(', ')})` : ''}`;
  out.push(`Sessions: ${sessions}`);
  out.push(`Commands: ${commands} own (global ones in ${rt.globalCommandsDir})`);
  out.push(`Skills: ${skills} own, ${attached}`);
  out.push(`Memory: ${rt.memoryFile}`);
  if (!rt.isDefault) out.push(`Heartbeat checklist: ${rt.heartbeatFile ?? 'none'}`);
  io.stdout.write(`${out.join('\n')}\n`);
  return 0;
}

/** The effective settings in the config file's own words, with MCP environment values hidden (they hold keys). */
function effectiveForDisplay(rt: AgentRuntimeConfig): Record<string, unknown> {
  const e = rt.effective;
  const hb = rt.agentConfig.heartbeat;
  const mcp: Record<string, unknown> = {};
  for (const [server, cfg] of Object.entries(e.mcpServers)) {
    mcp[server] = {
      ...cfg,
      env: Object.fromEntries(Object.keys(cfg.env).map((k) => [k, '(hidden)'])),
      // Header values and a client secret hold credentials too.
      ...(cfg.headers ? { headers: Object.fromEntries(Object.keys(cfg.headers).map((k) => [k, '(hidden)'])) } : {}),
      ...(cfg.oauth?.client_secret ? { oauth: { ...cfg.oauth, client_secret: '(hidden)' } } : {}),
    };
  }
  return {
    model: e.model,
    small_model: e.smallModel,
    max_iterations: e.maxIterations ?? `origin default (${defaultIterationsText()})`,
    unattended_approvals: e.unattendedApprovals,
    max_tokens: e.maxTokens,
    context_window: e.contextWindow,
    mode: e.mode,
    auto_approve: e.autoApprove,
    budget: { max_usd_per_run: e.maxUsdPerRun },
    tools: e.tools,
    permissions: e.permissions,
    mcp_servers: mcp,
    ...(hb && e.heartbeat
      ? {
          heartbeat: {
            every: hb.every,
            ...(hb.active_hours ? { active_hours: hb.active_hours } : {}),
            model: e.heartbeat.model,
            overlap_prevention: e.heartbeat.overlapPrevention,
          },
        }
      : {}),
    ...(rt.watch.length > 0
      ? {
          watch: rt.watch.map((w) => ({
            path: w.path,
            ...(w.glob ? { glob: w.glob } : {}),
            debounce_ms: w.debounceMs,
            ...(w.prompt ? { prompt: w.prompt } : {}),
          })),
        }
      : {}),
    ...(rt.cwd ? { cwd: rt.cwd } : {}),
  };
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function countSessions(dir: string): Promise<number> {
  try {
    return (await readdir(dir)).filter((n) => n.endsWith('.json') && isSessionId(n.slice(0, -5))).length;
  } catch {
    return 0;
  }
}

async function createCommand(home: string, name: string, fromFile: string | undefined, io: CliIo): Promise<number> {
  const agent = await createAgent(home, name, fromFile === undefined ? {} : { fromFile });
  io.stdout.write(
    `Created agent "${name}" in ${agent.dir}\n` +
      `  ${agent.layout.persona}   persona${fromFile === undefined ? ' (a starter: edit it)' : ''}\n` +
      `  ${agent.layout.config}   settings (all commented out: inherits the global config)\n` +
      `Run it with: rein run --agent ${name} "…"\n`,
  );
  return 0;
}

async function validateCommand(home: string, name: string | undefined, io: CliIo): Promise<number> {
  let problems: AgentProblem[];
  let checked: number;
  if (name === undefined) {
    const report = await validateAllAgents(home);
    problems = report.problems;
    checked = report.checked.length;
  } else {
    problems = await validateAgent(home, name);
    checked = 1;
  }
  for (const p of problems) io.stdout.write(`${formatProblem(p)}\n`);
  if (problems.length > 0) {
    io.stderr.write(`${problems.length} problem${problems.length === 1 ? '' : 's'} found\n`);
    return 1;
  }
  io.stdout.write(
    name === undefined
      ? `ok: ${checked} agent${checked === 1 ? '' : 's'} checked, no problems\n`
      : `ok: agent "${name}" has no problems\n`,
  );
  return 0;
}
