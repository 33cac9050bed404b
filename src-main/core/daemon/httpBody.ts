/**
 * Request bodies: read with a hard size cap (413 beyond it, without buffering the excess), parsed as
 * JSON (400 when it is not), then checked against a zod schema (400 naming the first bad field). A
 * camelCase top-level field is taken for its snake_case name for one release (docs/daemon-api.md).
 */
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { validateInput } from '../util/validateInput.js';
import { acceptCamelCaseKeys } from '../api/fieldNames.js';
import { HttpError } from './httpError.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume(); // drain, so the connection can carry the 413 answer
    throw new HttpError(413, 'body_too_large', `request body is ${declared} bytes; the limit is ${limit}`);
  }
  // Plain listeners rather than an async iterator: no promise per chunk.
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
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

export function parseJson(raw: Buffer | string): unknown {
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  if (text.trim() === '') throw new HttpError(400, 'invalid_json', 'request body is empty; expected JSON');
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new HttpError(400, 'invalid_json', `request body is not valid JSON: ${(e as Error).message}`);
  }
}

/** Checks a body or query against its schema; see validateInput. */
export const validate = validateInput;

export async function readJson<S extends z.ZodType>(req: IncomingMessage, schema: S, limit = MAX_BODY_BYTES): Promise<z.output<S>> {
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
