/**
 * The ReinApi contract: what the page may ask of Rein, one entry per operation. Shared by the Electron
 * shell (IPC handlers), the preload (typed bridge) and, later, the daemon's HTTP face and the page's
 * HTTP+WS client. Pure TypeScript + zod with no Node built-ins: the renderer bundles this file.
 */
import { z } from 'zod';
import type { ReinEvent } from './events.js';

export const ReinStatus = z.strictObject({
  /** Rein's version (package.json). */
  version: z.string(),
  /** Name of the agent new messages go to. */
  activeAgent: z.string(),
});
export type ReinStatus = z.infer<typeof ReinStatus>;

/**
 * Every operation, by method name. `input` is checked where the call arrives (IPC handler, HTTP route);
 * an operation without input takes `z.undefined()`, so a stray argument is refused rather than ignored.
 */
export const reinOperations = {
  status: { input: z.undefined(), output: ReinStatus },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;

export type ReinOperationName = keyof typeof reinOperations;
export type ReinOperationInput<K extends ReinOperationName> = z.input<(typeof reinOperations)[K]['input']>;
export type ReinOperationOutput<K extends ReinOperationName> = z.output<(typeof reinOperations)[K]['output']>;

/** The IPC channel of an operation: `rein:` + its method name. */
export type ReinChannel<K extends ReinOperationName = ReinOperationName> = `rein:${K}`;
export const reinChannel = <K extends ReinOperationName>(name: K): ReinChannel<K> => `rein:${name}`;
/** Main → page push channel carrying ReinEvent frames. */
export const REIN_EVENT_CHANNEL = 'rein:event';

/**
 * What crosses IPC: Electron keeps only the message of a thrown error, so handlers answer with an
 * envelope instead and the caller decides what to throw. `code` is a ReinErrorCode or `refused`.
 */
export type ReinEnvelope<T> = { ok: true; value: T } | { ok: false; error: string; code: string };

type OperationMethod<K extends ReinOperationName> = undefined extends ReinOperationInput<K>
  ? (input?: ReinOperationInput<K>) => Promise<ReinOperationOutput<K>>
  : (input: ReinOperationInput<K>) => Promise<ReinOperationOutput<K>>;

export type ReinOperationMethods = { [K in ReinOperationName]: OperationMethod<K> };

/** The page's whole view of Rein: one method per operation, plus a stream of events. */
export interface ReinApi extends ReinOperationMethods {
  /** Receive every ReinEvent; returns the function that stops listening. */
  subscribe(listener: (event: ReinEvent) => void): () => void;
}
