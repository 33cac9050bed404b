/**
 * Request bodies: read with a hard size cap (413 beyond it, without buffering the excess), parsed as
 * JSON (400 when it is not), then checked against a zod schema (400 naming the first bad field).
 */
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { describeIssues } from '../util/zodIssues.js';
import { HttpError } from './httpError.js';

export const MAX_BODY_BYTES = 1024 * 1024;

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume(); // drain, so the connection can carry the 413 answer
    throw new HttpError(413, 'body_too_large', `request body is ${declared} bytes; the limit is ${limit}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) {
      req.resume();
      throw new HttpError(413, 'body_too_large', `request body is over the ${limit}-byte limit`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
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

export function validate<S extends z.ZodType>(schema: S, value: unknown, what = 'body'): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = describeIssues(parsed.error.issues, value);
  const first = problems[0];
  const message = problems.map((p) => `${what}.${p.field === '(top level)' ? '' : p.field}: ${p.message}`.replace('.: ', ': ')).join('; ');
  throw new HttpError(400, 'invalid_request', message, first?.field);
}

export async function readJson<S extends z.ZodType>(req: IncomingMessage, schema: S, limit = MAX_BODY_BYTES): Promise<z.output<S>> {
  return validate(schema, parseJson(await readBody(req, limit)));
}
