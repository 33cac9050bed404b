/** Named agents: folders under `<REIN_HOME>/agents/`, their config, and how it merges with the global one. */
export { AgentConfig, AgentHeartbeatConfig, AgentWatchEntry, MIN_HEARTBEAT_MS } from './agentConfig.js';
export {
  COMMAND_MAX_CHARS,
  checkAgentConfig,
  checkAgentSkills,
  checkAttachedSkills,
  checkCommands,
  checkPersona,
  parseAgentConfigText,
} from './agentFiles.js';
export {
  agentExists,
  createAgent,
  deleteAgent,
  listAgents,
  loadAgent,
  validateAgent,
  validateAllAgents,
  type Agent,
  type AllAgentsReport,
  type CreateAgentOptions,
} from './agentStore.js';
export { inDailyWindow, parseDailyWindow, parseDuration, type DailyWindow } from './duration.js';
export { agentLayout, agentsTrash, assertAgentName, isAgentName, isDefaultAgent, type AgentLayout } from './layout.js';
export {
  DEFAULT_WATCH_DEBOUNCE_MS,
  mergeAgentConfig,
  type EffectiveConfig,
  type EffectiveHeartbeat,
  type EffectiveWatch,
} from './mergeAgentConfig.js';
export { formatProblem, type AgentProblem } from './problems.js';
export { expandHome, resolveAgentRuntimeConfig, type AgentRuntimeConfig } from './runtimeConfig.js';
