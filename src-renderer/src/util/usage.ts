// The usage arithmetic is the core's (pure, bundled into the page with the event schemas).
export { emptyUsage as zeroUsage, sumUsage as addUsage } from '../../../src-main/core/api/index.js';
