export {
  loadInstructions,
  DEFAULT_INSTRUCTIONS_MAX_CHARS,
  type LoadInstructionsOptions,
  type LoadedInstructions,
  type InstructionProblem,
} from './loadInstructions.js';
export { discoverInstructionFiles, projectFolders, INSTRUCTION_FILE_NAMES } from './discover.js';
export { dedupeLines } from './dedupe.js';
