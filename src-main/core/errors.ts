/**
 * Errors are values the caller can act on: every error Rein raises on purpose is a ReinError with a
 * stable string code. Messages are written for the person reading them (name the file, the field).
 */
export type ReinErrorCode =
  | 'config_invalid'
  | 'config_io'
  | 'no_api_key'
  | 'usage'
  | 'llm_failed'
  | 'llm_cancelled'
  | 'session_not_found'
  | 'session_corrupt'
  | 'tool_failed'
  | 'not_found'
  | 'invalid_input'
  | 'internal';

export class ReinError extends Error {
  override readonly name = 'ReinError';
  constructor(
    readonly code: ReinErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const isReinError = (e: unknown, code?: ReinErrorCode): e is ReinError =>
  e instanceof ReinError && (code === undefined || e.code === code);

/** Message of anything thrown, without a stack. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
