/**
 * Where each part of a named agent lives: `<REIN_HOME>/agents/<name>/…`. One place, so the loader,
 * the validator, the CLI and the runtime never spell a file name differently.
 */
import { join } from 'node:path';
import { AGENT_NAME_RE, DEFAULT_AGENT, paths } from '../config/paths.js';
import { ReinError } from '../errors.js';

export interface AgentLayout {
  dir: string;
  /** Persona; the agent exists when this file does. */
  persona: string;
  config: string;
  memory: string;
  heartbeat: string;
  /** YAML list of global skill names this agent may use. */
  attached: string;
  commandsDir: string;
  skillsDir: string;
  sessionsDir: string;
}

export function agentLayout(home: string, name: string): AgentLayout {
  const dir = paths.agentDir(home, name);
  return {
    dir,
    persona: join(dir, 'AGENT.md'),
    config: join(dir, 'config.yaml'),
    memory: join(dir, 'MEMORY.md'),
    heartbeat: join(dir, 'HEARTBEAT.md'),
    attached: join(dir, '_attached.yaml'),
    commandsDir: join(dir, 'commands'),
    skillsDir: join(dir, 'skills'),
    sessionsDir: paths.sessionsDir(home, name),
  };
}

export const agentsRoot = (home: string): string => join(home, 'agents');
/** Deleted agents are moved here, never erased. */
export const agentsTrash = (home: string): string => join(home, 'trash', 'agents');

export const NAME_RULE = 'lowercase letters, digits, - and _, starting with a letter or digit, at most 64 characters';

export function isAgentName(name: string): boolean {
  return AGENT_NAME_RE.test(name);
}

/** Checked before the name is joined into any path, so `../x` can never reach outside the agents folder. */
export function assertAgentName(name: string): void {
  if (!isAgentName(name))
    throw new ReinError('invalid_input', `agent name "${name}" is invalid: use ${NAME_RULE}`, { field: 'name' });
}

/** `default` is the built-in agent: it has no folder, so it can be neither created nor deleted. */
export function isDefaultAgent(name: string): boolean {
  return name === DEFAULT_AGENT;
}
