/** Context discipline: prompt assembly for cache hits, deferred tools, housekeeping and compaction. */
export * from './tokens.js';
export * from './promptAssembly.js';
// The deferred-tool working set moved to tools/ (tools must not import context); re-exported for the loop.
export * from '../tools/deferredTools.js';
export * from './houseKeep.js';
export * from './identifiers.js';
export * from './transcript.js';
export * from './checkpoint.js';
export * from './summarize.js';
export * from './compaction.js';
export * from './historyShape.js';
export * from './contextState.js';
