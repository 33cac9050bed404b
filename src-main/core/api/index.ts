export * from './events.js';
export * from './reinApi.js';
