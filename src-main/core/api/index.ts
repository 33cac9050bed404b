export * from './events.js';
export * from './patterns.js';
export * from './reinApi.js';
