/**
 * Refusals and failures as HTTP answers: every error body is `{error, code}` (plus `field` when a
 * request failed validation). ReinErrors from the core map to a status by their code.
 */
import { errorMessage, isReinError } from '../errors.js';
import type { ErrorBody } from './protocol.js';

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

const STATUS_OF_CODE: Record<string, number> = {
  invalid_input: 400,
  usage: 400,
  not_found: 404,
  session_not_found: 404,
  config_invalid: 500,
  no_api_key: 503,
};

export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (isReinError(err)) {
    const field = typeof err.details?.field === 'string' ? err.details.field : undefined;
    return new HttpError(STATUS_OF_CODE[err.code] ?? 500, err.code, err.message, field);
  }
  return new HttpError(500, 'internal', errorMessage(err));
}

export function errorBody(e: HttpError): ErrorBody {
  return { error: e.message, code: e.code, ...(e.field ? { field: e.field } : {}) };
}
