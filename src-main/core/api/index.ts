export * from './approvalForm.js';
export * from './events.js';
export * from './mcpStatus.js';
export * from './patterns.js';
export * from './reinApi.js';
export * from './toolSummary.js';
export * from './visibleText.js';
