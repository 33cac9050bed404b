/**
 * The ReinApi inside the desktop app: `window.rein` from the preload, with the page's own checks
 * around it. The bridge can only carry an error's message, so code and field travel inside it
 * (`[code field] message`, see bridgeErrorMessage) and are read back here.
 */
import {
  parseBridgeErrorMessage,
  reinOperationNames,
  type ReinApi,
  type ReinOperationName,
} from '../../../src-main/core/api/index.js';
import { ApiError } from './apiError.js';
import { checkInput, checkOutput } from './checked.js';

export function createIpcApi(bridge: ReinApi): ReinApi {
  const api: Record<string, unknown> = {
    subscribe: (listener: Parameters<ReinApi['subscribe']>[0]) => bridge.subscribe(listener),
  };
  for (const name of reinOperationNames) {
    api[name] = async (input?: unknown) => {
      const checked = checkInput(name, input);
      const method = bridge[name] as ((input?: unknown) => Promise<unknown>) | undefined;
      if (typeof method !== 'function') throw new ApiError(`${name} is not available in this version of the app`, 'unsupported');
      let value: unknown;
      try {
        value = await method(checked);
      } catch (e) {
        throw fromBridge(name, e);
      }
      return checkOutput(name, value);
    };
  }
  return api as unknown as ReinApi;
}

function fromBridge(name: ReinOperationName, e: unknown): ApiError {
  const raw = e instanceof Error ? e.message : String(e);
  // Electron prefixes what crosses invoke with "Error invoking remote method '…': ".
  const text = raw.replace(/^Error invoking remote method '[^']*': (?:Error: )?/, '');
  const parsed = parseBridgeErrorMessage(text);
  return new ApiError(parsed.message || `${name} failed`, parsed.code ?? 'internal', undefined, parsed.field);
}
