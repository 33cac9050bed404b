/**
 * Turns zod issues into short, human-readable problems that name the field the way a person would
 * write it in a file (`permissions.mode`, `hooks.PreToolUse[0].command`). Shared by every loader that
 * validates a file, so config and session errors read the same.
 */
import type { z } from 'zod';

export interface FieldProblem {
  /** Path into the validated value; unknown keys include the key itself as the last segment. */
  path: PropertyKey[];
  /** `path` written out, e.g. `mcp_servers["my.server"].args[1]`; `(top level)` for the root. */
  field: string;
  message: string;
}

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

export function formatFieldPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(top level)';
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else {
      const key = String(seg);
      out += PLAIN_KEY.test(key) ? (out ? `.${key}` : key) : `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}

/** One problem per issue (and per unknown key). `input` lets a missing value read as "missing". */
export function describeIssues(issues: readonly z.core.$ZodIssue[], input?: unknown): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        problems.push({ path, field: formatFieldPath(path), message: 'unknown key' });
      }
      continue;
    }
    if (issue.code === 'invalid_union') {
      // zod only says "Invalid input" here. If exactly one alternative had the right shape, its own
      // problems are the useful ones; if none did, say which shapes would have been accepted.
      const closer = issue.errors.filter((branch) => !isTopLevelTypeMismatch(branch));
      if (closer.length === 1) {
        const nested = closer[0]!.map((i) => ({ ...i, path: [...issue.path, ...i.path] }) as z.core.$ZodIssue);
        problems.push(...describeIssues(nested, input));
        continue;
      }
      if (closer.length === 0 && issue.errors.length > 0) {
        const expected = [...new Set(issue.errors.map((b) => (b[0] as { expected?: string }).expected))].join(' or ');
        const path = [...issue.path];
        problems.push({ path, field: formatFieldPath(path), message: typeMessage(expected, path, input) });
        continue;
      }
    }
    const path = [...issue.path];
    problems.push({ path, field: formatFieldPath(path), message: describeIssue(issue, input) });
  }
  return problems;
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case 'invalid_value': {
      const values = issue.values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
      return values.length === 1 ? `expected ${values[0]}` : `expected one of ${values.join('|')}`;
    }
    case 'invalid_type':
      return typeMessage(issue.expected, issue.path, input);
    default:
      return issue.message;
  }
}

function typeMessage(expected: string, path: readonly PropertyKey[], input: unknown): string {
  if (input === undefined) return `expected ${expected}`;
  const { found, value } = valueAt(input, path);
  if (!found || value === undefined) return `missing (expected ${expected})`;
  return `expected ${expected}, got ${kindOf(value)}`;
}

function isTopLevelTypeMismatch(branch: readonly z.core.$ZodIssue[]): boolean {
  return branch.length > 0 && branch.every((i) => i.code === 'invalid_type' && i.path.length === 0);
}

function valueAt(root: unknown, path: readonly PropertyKey[]): { found: boolean; value?: unknown } {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return { found: false };
    if (!Object.prototype.hasOwnProperty.call(cur, seg)) return { found: false };
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return { found: true, value: cur };
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return `${typeof v} ${String(v)}`;
}
