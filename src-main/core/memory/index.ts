/** An agent's memory: MEMORY.md with bounded appends, prompt loading and consolidation. */
export { boundedAppend, normalizeMemoryContent, MEMORY_LINE_BOUND } from './boundedAppend.js';
export type { BoundedAppendOptions, BoundedAppendResult } from './boundedAppend.js';
export { loadMemory, MEMORY_LOAD_CHARS, MEMORY_LOAD_LINES, TRUNCATION_NOTE } from './load.js';
export type { LoadMemoryOptions } from './load.js';
export {
  consolidateMemory,
  shouldConsolidate,
  consolidationFacts,
  consolidationDue,
  splitMemory,
  listAutoFiles,
  CONSOLIDATE_COOLDOWN_MS,
  CONSOLIDATE_MIN_AUTO_FILES,
} from './consolidate.js';
export type { ConsolidationFacts, ConsolidateOptions, ConsolidationOutcome, MemoryParts } from './consolidate.js';
export {
  memoryDir,
  memoryFile,
  protectedMemoryPaths,
  MEMORY_FILE,
  GC_MARKER,
  AUTO_FILE_RE,
  PROTECTED_MEMORY_REASON,
} from './files.js';
