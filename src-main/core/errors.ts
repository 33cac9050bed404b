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
  /** A write failed because the disk (or the user's quota) is full; `details.file` names the file (util/diskErrors.ts). */
  | 'disk_full'
  /** A write failed for another input/output reason (EIO, a read-only file system…); `details.file` names the file. */
  | 'io_error'
  /** Another process (or run) is writing the session and did not let go in time (sessions/sessionLock.ts). */
  | 'session_busy'
  | 'tool_failed'
  | 'not_found'
  | 'invalid_input'
  /** A request's body or query failed validation (`details.field` names the field). */
  | 'invalid_request'
  | 'internal'
  // The service's own refusals (core/service), the same codes over HTTP, WebSocket and IPC.
  | 'agent_not_found'
  | 'agent_exists'
  | 'agent_write_failed'
  | 'unknown_command'
  | 'not_running'
  | 'approval_not_found'
  | 'approval_already_decided'
  | 'shutting_down'
  | 'api_key_not_stored'
  | 'settings_write_failed'
  /** A change that raises permissions was asked for over the API and no person can confirm it (core/service/changeDesk.ts). */
  | 'confirmation_required'
  | 'change_not_found'
  | 'unavailable';

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

/** A refusal naming the input field it is about (`details.field`), for the adapters' error bodies. */
export function fieldError(code: ReinErrorCode, message: string, field: string): ReinError {
  return new ReinError(code, message, { field });
}

export const isReinError = (e: unknown, code?: ReinErrorCode): e is ReinError =>
  e instanceof ReinError && (code === undefined || e.code === code);

/** Message of anything thrown, without a stack. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
