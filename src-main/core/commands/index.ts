export {
  loadCommands,
  commandPaths,
  COMMAND_NAME_RE,
  MAX_COMMAND_CHARS,
  RESERVED_COMMAND_NAMES,
  type Command,
  type CommandProblem,
  type CommandScope,
  type LoadedCommands,
} from './loadCommands.js';
export { expandSlashCommand, fillTemplate, splitArgs, type SlashExpansion } from './expand.js';
