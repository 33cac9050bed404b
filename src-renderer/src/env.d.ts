import type { ReinApi } from '../../src-main/core/api/index.js';

declare global {
  interface Window {
    /** Set by the preload inside Rein's window; absent when the page runs in a plain browser. */
    rein?: ReinApi;
  }
}
