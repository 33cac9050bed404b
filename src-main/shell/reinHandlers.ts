/**
 * The ReinApi operations as IPC handlers. Each one takes its input schema from the contract in
 * core/api and does no work of its own beyond asking the core (or, for now, the shell) for an answer.
 */
import { reinChannel, reinOperations, type ReinStatus } from '../core/api/index.js';
import { handle, type Disposable, type SenderCheck } from './ipc.js';

export interface ReinHandlerDeps {
  version(): string;
  /** The agent new messages go to; 'default' until the core has agents. */
  activeAgent(): string;
}

export function registerReinHandlers(trusted: SenderCheck, deps: ReinHandlerDeps): Disposable {
  const handlers = [
    handle(reinChannel('status'), reinOperations.status.input, trusted, (): ReinStatus => ({
      version: deps.version(),
      activeAgent: deps.activeAgent(),
    })),
  ];
  return { dispose: () => handlers.forEach((h) => h.dispose()) };
}
