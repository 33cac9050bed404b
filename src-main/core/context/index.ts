/** Context discipline: prompt assembly for cache hits, deferred tools, housekeeping and compaction. */
export * from './tokens.js';
export * from './promptAssembly.js';
export * from './deferredTools.js';
export * from './houseKeep.js';
export * from './identifiers.js';
export * from './transcript.js';
export * from './checkpoint.js';
export * from './summarize.js';
export * from './compaction.js';
export * from './historyShape.js';
export * from './contextState.js';
