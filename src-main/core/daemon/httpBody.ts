/**
 * Request bodies: read with a hard size cap (413 beyond it, without buffering the excess) and a
 * deadline (408 when the whole body has not arrived in time), parsed as JSON (400 when it is not, or
 * when it nests deeper than MAX_JSON_DEPTH), then checked against a zod schema (400 naming the first
 * bad field). A camelCase top-level field is taken for its snake_case name for one release
 * (docs/daemon-api.md).
 */
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { validateInput } from '../util/validateInput.js';
import { acceptCamelCaseKeys } from '../api/fieldNames.js';
import { HttpError } from './httpError.js';

export const MAX_BODY_BYTES = 1024 * 1024;
/** How long a request's body may take to arrive, counted from the request's arrival. */
export const BODY_TIMEOUT_MS = 30_000;
/** Nesting of arrays and objects a JSON body may have; no request of the API needs a tenth of it. */
export const MAX_JSON_DEPTH = 64;

/** When each request's body must be complete (set by the HTTP adapter when the request arrives). */
const bodyDeadlines = new WeakMap<IncomingMessage, { at: number; ms: number }>();

/** The body of `req` must have arrived `timeoutMs` from now; readBody answers 408 `body_timeout` after that. */
export function setBodyDeadline(req: IncomingMessage, timeoutMs: number): void {
  bodyDeadlines.set(req, { at: Date.now() + timeoutMs, ms: timeoutMs });
}

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume(); // drain, so the connection can carry the 413 answer
    throw new HttpError(413, 'body_too_large', `request body is ${declared} bytes; the limit is ${limit}`);
  }
  const deadline = bodyDeadlines.get(req) ?? { at: Date.now() + BODY_TIMEOUT_MS, ms: BODY_TIMEOUT_MS };
  // Plain listeners rather than an async iterator: no promise per chunk.
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    // A client that opens a request and then trickles (or stops sending) its body must not hold the
    // request, its socket and its buffered chunks for ever. The answer closes the connection.
    const timer = req.complete
      ? undefined
      : setTimeout(
          () => {
            cleanup();
            reject(
              new HttpError(408, 'body_timeout', `the request body did not arrive within ${deadline.ms / 1000} s`),
            );
          },
          Math.max(0, deadline.at - Date.now()),
        );
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        reject(new HttpError(413, 'body_too_large', `request body is over the ${limit}-byte limit`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(new HttpError(400, 'body_incomplete', `the request body could not be read: ${err.message}`));
    };
    const onClose = () => {
      cleanup();
      reject(new HttpError(400, 'body_incomplete', 'the connection closed before the request body was complete'));
    };
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

export function parseJson(raw: Buffer | string, what = 'request body'): unknown {
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  if (text.trim() === '') throw new HttpError(400, 'invalid_json', `${what} is empty; expected JSON`);
  // Checked before parsing: a value nested thousands deep parses, but every recursive walk over it
  // afterwards (validation, YAML, copies) would run out of stack.
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
    throw new HttpError(400, 'invalid_json', `${what} nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new HttpError(400, 'invalid_json', `${what} is not valid JSON: ${(e as Error).message}`);
  }
}

/** Whether JSON text opens more than `max` arrays/objects inside each other (brackets in strings do not count). */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/** Checks a body or query against its schema; see validateInput. */
export const validate = validateInput;

export async function readJson<S extends z.ZodType>(
  req: IncomingMessage,
  schema: S,
  limit = MAX_BODY_BYTES,
): Promise<z.output<S>> {
  return validate(schema, await readBodyJson(req, limit));
}

/** The body as JSON, its camelCase top-level fields renamed to snake_case (refused when both are given). */
export async function readBodyJson(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  return snakeCaseBody(parseJson(await readBody(req, limit)));
}

export function snakeCaseBody(raw: unknown): unknown {
  const renamed = acceptCamelCaseKeys(raw);
  if (!renamed.ok) throw new HttpError(400, 'invalid_request', renamed.message, renamed.field);
  return renamed.value;
}
