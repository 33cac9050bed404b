/**
 * The MCP SDK (its client, transports and protocol schemas, with ajv behind them) is loaded by the first
 * connection, not when an agent with MCP servers is merely configured: an idle daemon, a run whose
 * servers are disabled and every command that never connects skip it (docs/architecture.md, *Startup*).
 */
type ConnectionModule = typeof import('./connection.js');

let loaded: ConnectionModule | undefined;

export async function loadConnectionModule(): Promise<ConnectionModule> {
  loaded ??= await import('./connection.js');
  return loaded;
}

/**
 * The module once a connection was attempted, else undefined: an error of the SDK's can only exist after
 * that, so a classifier may answer "no" without loading anything.
 */
export const connectionModuleIfLoaded = (): ConnectionModule | undefined => loaded;
