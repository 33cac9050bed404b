/**
 * The page's operations as IPC handlers, generated from the two operation tables: one handler per
 * ReinApi operation (`rein:<name>`) and per desktop operation (`rein:desktop.<name>`), each with the
 * input schema of its contract, each behind the sender check. A handler does nothing but call the
 * service function of the same name; there is no channel that forwards arbitrary calls.
 */
import {
  desktopChannel,
  desktopOperationNames,
  desktopOperations,
  type DesktopOperationName,
  type DesktopOperationOutput,
} from '../core/api/desktopApi.js';
import { reinChannel, reinOperationNames, reinOperations } from '../core/api/index.js';
import type { DesktopReinApi } from '../core/desktop/desktopApi.js';
import type { z } from 'zod';
import type { Disposable } from '../core/base/lifecycle.js';
import { handle, type SenderCheck } from './ipc.js';

export type DesktopService = {
  [K in DesktopOperationName]: (
    input: z.output<(typeof desktopOperations)[K]['input']>,
  ) => Promise<DesktopOperationOutput<K>>;
};

type AnyOperation = (input: unknown) => Promise<unknown>;

export function registerReinHandlers(trusted: SenderCheck, service: DesktopReinApi): Disposable {
  const ops = service as unknown as Record<string, AnyOperation>;
  const handlers = reinOperationNames.map((name) =>
    handle(reinChannel(name), reinOperations[name].input, trusted, (input: unknown) => ops[name]!(input)),
  );
  return { dispose: () => handlers.forEach((h) => h.dispose()) };
}

export function registerDesktopHandlers(trusted: SenderCheck, service: DesktopService): Disposable {
  const ops = service as unknown as Record<string, AnyOperation>;
  const handlers = desktopOperationNames.map((name) =>
    handle(desktopChannel(name), desktopOperations[name].input, trusted, (input: unknown) => ops[name]!(input)),
  );
  return { dispose: () => handlers.forEach((h) => h.dispose()) };
}
