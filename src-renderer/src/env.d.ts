import type { ReinApi } from '../../src-main/core/api/index.js';
import type { ReinDesktopApi } from '../../src-main/core/api/desktopApi.js';

declare global {
  interface Window {
    /** Set by the preload inside Rein's window; absent when the page runs in a plain browser. */
    rein?: ReinApi;
    /** The desktop-only operations (and the shell asking to open a view); absent in a plain browser. */
    reinDesktop?: ReinDesktopApi;
  }
}
