/**
 * Refusals and failures as HTTP answers: every error body is `{error, code}` (plus `field` when a
 * request failed validation). The service throws ReinErrors; this one table turns their codes into
 * HTTP statuses, so an operation fails the same way over HTTP, the WebSocket (whose replies carry the
 * status too) and IPC (which carries the code).
 */
import { errorMessage, isReinError, type ReinErrorCode } from '../errors.js';
import type { ErrorBody } from '../api/protocol.js';

/** An answer the HTTP adapter itself gives (bad JSON, body too large, unknown path, bad token…). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The HTTP status of every code the core raises. */
export const HTTP_STATUS_OF_CODE: Readonly<Record<ReinErrorCode, number>> = {
  invalid_input: 400,
  invalid_request: 400,
  usage: 400,
  unknown_command: 400,
  api_key_not_stored: 400,
  not_found: 404,
  session_not_found: 404,
  agent_not_found: 404,
  not_running: 404,
  approval_not_found: 404,
  change_not_found: 404,
  // A change that raises permissions needs a person, and none can confirm it here (no daemon, no desktop app).
  confirmation_required: 403,
  agent_exists: 409,
  approval_already_decided: 409,
  // A file on disk is broken: the request cannot be done until a person fixes it.
  config_invalid: 409,
  session_corrupt: 409,
  // Another process is writing the session (a `rein run --session`): try again when its turn is over.
  session_busy: 409,
  config_io: 500,
  // 507 Insufficient Storage: the disk is full; the daemon itself stays up.
  disk_full: 507,
  io_error: 500,
  agent_write_failed: 500,
  settings_write_failed: 500,
  tool_failed: 500,
  internal: 500,
  llm_failed: 502,
  llm_cancelled: 499,
  no_api_key: 503,
  shutting_down: 503,
  unavailable: 503,
};

export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (isReinError(err)) {
    const field = typeof err.details?.field === 'string' ? err.details.field : undefined;
    return new HttpError(HTTP_STATUS_OF_CODE[err.code] ?? 500, err.code, err.message, field);
  }
  return new HttpError(500, 'internal', errorMessage(err));
}

export function errorBody(e: HttpError): ErrorBody {
  return { error: e.message, code: e.code, ...(e.field ? { field: e.field } : {}) };
}
