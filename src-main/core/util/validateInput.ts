/**
 * The one check every boundary runs on what it is given: a zod schema, and on failure a ReinError
 * `invalid_request` whose message names every bad field (`body.name: …`) and whose `details.field`
 * names the first, so HTTP, WebSocket and IPC answers say the same thing.
 */
import type { z } from 'zod';
import { fieldError } from '../errors.js';
import { describeIssues } from './zodIssues.js';

export function validateInput<S extends z.ZodType>(schema: S, value: unknown, what = 'body'): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = describeIssues(parsed.error.issues, value);
  const first = problems[0];
  const message = problems
    .map((p) => `${what}.${p.field === '(top level)' ? '' : p.field}: ${p.message}`.replace('.: ', ': '))
    .join('; ');
  throw fieldError('invalid_request', message, first?.field ?? what);
}
