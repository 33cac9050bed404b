/**
 * The checks both clients make around every call: the input against the operation's schema before it
 * leaves the page (so a mistake is reported at once, naming the field), and the answer against the
 * output schema (so a server that drifted from the contract is named as the cause).
 */
import { reinOperations, type ReinOperationName, type ReinOperationOutput } from '../../../src-main/core/api/index.js';
import { ApiError } from './apiError.js';

type Issue = { path: PropertyKey[]; message: string };

export function describePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${String(seg)}` : String(seg);
  return out;
}

const describe = (issues: readonly Issue[]) =>
  issues.map((i) => `${describePath(i.path) || '(input)'}: ${i.message}`).join('; ');

export function checkInput(name: ReinOperationName, input: unknown): unknown {
  const parsed = reinOperations[name].input.safeParse(input);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  throw new ApiError(
    `${name}: ${describe(parsed.error.issues)}`,
    'invalid_input',
    undefined,
    first ? describePath(first.path) : undefined,
  );
}

export function checkOutput<K extends ReinOperationName>(name: K, value: unknown): ReinOperationOutput<K> {
  const parsed = reinOperations[name].output.safeParse(value);
  if (parsed.success) return parsed.data as ReinOperationOutput<K>;
  throw new ApiError(
    `${name}: Rein answered in a shape this page does not know (${describe(parsed.error.issues)})`,
    'bad_reply',
  );
}
