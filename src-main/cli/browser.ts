/** The browser opener of `rein mcp login` lives in core (the daemon's sign-in uses it too). */
export { browserOpener } from '../core/mcpClient/browser.js';
