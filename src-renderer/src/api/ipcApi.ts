/**
 * The ReinApi inside the desktop app: `window.rein` from the preload, with the page's own checks
 * around it. The bridge can only carry an error's message, so code and field travel inside it
 * (`[code field] message`, see bridgeErrorMessage) and are read back here.
 */
import { parseBridgeErrorMessage, reinOperationNames, type ReinApi } from '../../../src-main/core/api/index.js';
import {
  desktopOperationNames,
  desktopOperations,
  type ReinDesktopApi,
} from '../../../src-main/core/api/desktopApi.js';
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
      if (typeof method !== 'function')
        throw new ApiError(`${name} is not available in this version of the app`, 'unsupported');
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

/** `window.reinDesktop` with the same checks and error decoding. */
export function createDesktopApi(bridge: ReinDesktopApi): ReinDesktopApi {
  const api: Record<string, unknown> = {
    onNavigate: (listener: Parameters<ReinDesktopApi['onNavigate']>[0]) => bridge.onNavigate(listener),
  };
  for (const name of desktopOperationNames) {
    const op = desktopOperations[name];
    api[name] = async (input?: unknown) => {
      const parsed = op.input.safeParse(input);
      if (!parsed.success)
        throw new ApiError(`${name}: ${parsed.error.issues.map((i) => i.message).join('; ')}`, 'invalid_input');
      const method = bridge[name] as ((input?: unknown) => Promise<unknown>) | undefined;
      if (typeof method !== 'function')
        throw new ApiError(`${name} is not available in this version of the app`, 'unsupported');
      let value: unknown;
      try {
        value = await method(parsed.data);
      } catch (e) {
        throw fromBridge(name, e);
      }
      const out = op.output.safeParse(value);
      if (!out.success) throw new ApiError(`${name}: the app answered in a shape this page does not know`, 'bad_reply');
      return out.data;
    };
  }
  return api as unknown as ReinDesktopApi;
}

function fromBridge(name: string, e: unknown): ApiError {
  const raw = e instanceof Error ? e.message : String(e);
  // Electron prefixes what crosses invoke with "Error invoking remote method '…': ".
  const text = raw.replace(/^Error invoking remote method '[^']*': (?:Error: )?/, '');
  const parsed = parseBridgeErrorMessage(text);
  return new ApiError(parsed.message || `${name} failed`, parsed.code ?? 'internal', undefined, parsed.field);
}
