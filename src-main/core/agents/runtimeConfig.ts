/**
 * Everything the composition root needs to build a runtime for one agent (used by `rein run --agent`
 * and by the daemon's and UI's switchAgent): persona, effective settings and the folders that keep the
 * agent's memory, sessions, skills and commands apart from every other agent's. The loop itself does
 * not change between agents; only what this returns does.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_AGENT, paths } from '../config/paths.js';
import type { GlobalConfig } from '../config/schema.js';
import type { AgentConfig } from './agentConfig.js';
import { loadAgent } from './agentStore.js';
import { agentLayout, assertAgentName, isDefaultAgent } from './layout.js';
import { mergeAgentConfig, type EffectiveConfig } from './mergeAgentConfig.js';

export interface AgentRuntimeConfig {
  name: string;
  /** True for the built-in agent, which has no folder and runs with the global config as it is. */
  isDefault: boolean;
  /** The agent's folder; absent for the built-in agent. */
  dir?: string;
  /** AGENT.md text, replacing the default persona; absent for the built-in agent. */
  persona?: string;
  /** The agent's own config.yaml as validated (`{}` for none). */
  agentConfig: AgentConfig;
  effective: EffectiveConfig;
  /** Folder holding MEMORY.md and its overflow files. */
  memoryDir: string;
  memoryFile: string;
  sessionsDir: string;
  /**
   * The agent's own skills (highest priority). The built-in agent's are in `agents/default/skills`:
   * it has no persona or config folder, but may have skills and commands of its own.
   */
  skillsDir: string;
  /** Where global skills live. */
  globalSkillsDir: string;
  /**
   * Global skills this agent may use: the names from `_attached.yaml`. The built-in agent may use
   * every global skill (`allGlobalSkills`), and its list is empty.
   */
  attachedSkills: string[];
  allGlobalSkills: boolean;
  /** The agent's own slash commands (`<name>.md` files); they win over the global ones. */
  commandsDir: string;
  /** Slash commands every agent has. */
  globalCommandsDir: string;
  /** HEARTBEAT.md, when the agent has one with content. */
  heartbeatFile?: string;
  /** The agent's working folder with `~` expanded, when its config sets one. */
  cwd?: string;
  /** Watch folders with `~` expanded. */
  watch: EffectiveConfig['watch'];
}

export interface ResolveAgentOptions {
  /** The user's home folder for `~` (default: the OS's); tests pass a temp folder. */
  userHome?: string;
}

/**
 * Resolves the named agent (or `default`, the built-in one) against the global config. Throws as
 * loadAgent does: `invalid_input` for a bad name, `not_found`, `config_invalid` naming file/line/field.
 */
export async function resolveAgentRuntimeConfig(
  home: string,
  globalConfig: GlobalConfig,
  name: string = DEFAULT_AGENT,
  opts: ResolveAgentOptions = {},
): Promise<AgentRuntimeConfig> {
  assertAgentName(name);
  const userHome = opts.userHome ?? homedir();
  const globalSkillsDir = join(home, 'skills');
  const globalCommandsDir = join(home, 'commands');
  if (isDefaultAgent(name)) {
    const layout = agentLayout(home, name);
    const effective = mergeAgentConfig(globalConfig, {});
    // The built-in agent keeps its own always-allow grants in the global file.
    effective.config.permissions.always_allow_tools = [...globalConfig.permissions.always_allow_tools];
    effective.permissions.always_allow_tools = [...globalConfig.permissions.always_allow_tools];
    effective.config.permissions.grants = structuredClone(globalConfig.permissions.grants);
    effective.permissions.grants = structuredClone(globalConfig.permissions.grants);
    const memoryDir = join(home, 'memory');
    return {
      name,
      isDefault: true,
      agentConfig: {},
      effective,
      memoryDir,
      memoryFile: join(memoryDir, 'MEMORY.md'),
      sessionsDir: paths.sessionsDir(home, name),
      skillsDir: layout.skillsDir,
      globalSkillsDir,
      attachedSkills: [],
      allGlobalSkills: true,
      commandsDir: layout.commandsDir,
      globalCommandsDir,
      watch: [],
    };
  }

  const agent = await loadAgent(home, name);
  const effective = mergeAgentConfig(globalConfig, agent.config);
  const { layout } = agent;
  return {
    name,
    isDefault: false,
    dir: agent.dir,
    persona: agent.persona,
    agentConfig: agent.config,
    effective,
    memoryDir: agent.dir,
    memoryFile: layout.memory,
    sessionsDir: layout.sessionsDir,
    skillsDir: layout.skillsDir,
    globalSkillsDir,
    attachedSkills: agent.attachedSkills,
    allGlobalSkills: false,
    commandsDir: layout.commandsDir,
    globalCommandsDir,
    ...(agent.hasHeartbeat ? { heartbeatFile: layout.heartbeat } : {}),
    ...(effective.cwd !== undefined ? { cwd: expandHome(effective.cwd, userHome) } : {}),
    watch: effective.watch.map((w) => ({ ...w, path: expandHome(w.path, userHome) })),
  };
}

/** `~` and `~/x` to the user's home; other paths (absolute, as the schema demands) unchanged. */
export function expandHome(path: string, userHome: string): string {
  if (path === '~') return userHome;
  if (path.startsWith('~/')) return join(userHome, path.slice(2));
  return path;
}
