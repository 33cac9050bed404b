/**
 * What a failed accessibility call tells its caller: the protocol's code (STALE_REF, NOT_VISIBLE…) or one
 * of the client's own (the helper is missing, it exited, it answered nonsense, the call was cancelled, a
 * mutation's outcome is unknown), the method, and a hint the model or the person can act on.
 */
import type { AxErrorCode } from './protocol.js';

export type AxClientErrorCode =
  | AxErrorCode
  /** The helper could not be found or started (no display, no AT-SPI, not built). */
  | 'HELPER_UNAVAILABLE'
  /** The helper exited or its connection closed while the call was pending. */
  | 'HELPER_EXITED'
  /** The helper answered something that is not the protocol. */
  | 'PROTOCOL'
  | 'CANCELLED'
  /** A mutation was sent and no acknowledgement came in time: it may or may not have happened. */
  | 'COMMIT_UNKNOWN';

export class AxError extends Error {
  override readonly name = 'AxError';

  constructor(
    readonly code: AxClientErrorCode,
    message: string,
    readonly method?: string,
    readonly extra: { rpcCode?: number; hint?: string; data?: Record<string, unknown> } = {},
  ) {
    super(message);
  }

  get rpcCode(): number | undefined {
    return this.extra.rpcCode;
  }

  get hint(): string | undefined {
    return this.extra.hint;
  }
}

export const isAxError = (e: unknown, code?: AxClientErrorCode): e is AxError =>
  e instanceof AxError && (code === undefined || e.code === code);

/** Failures worth a retry after a moment (the helper restarts, the app was busy). */
export const TRANSIENT_AX_CODES: ReadonlySet<AxClientErrorCode> = new Set([
  'HELPER_EXITED',
  'TIMEOUT',
  'COMMIT_UNKNOWN',
]);
