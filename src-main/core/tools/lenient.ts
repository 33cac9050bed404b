/**
 * Models often send `"5000"` for a number or `"true"` for a boolean. Rather than loosening every schema
 * (which would also loosen the JSON Schema the model sees), parse strictly, and where zod reports a
 * string in a number/boolean slot, convert that one value and parse again.
 */
import type { z } from 'zod';

export type LenientParse<T> = { ok: true; value: T } | { ok: false; error: string };

const MAX_PASSES = 8;

export function parseLenient<T>(schema: z.ZodType<T>, raw: unknown): LenientParse<T> {
  let input: unknown = raw === undefined || raw === null ? {} : structuredClone(raw);
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const r = schema.safeParse(input);
    if (r.success) return { ok: true, value: r.data };
    let changed = false;
    for (const issue of r.error.issues) {
      if (issue.code !== 'invalid_type') continue;
      const expected = (issue as { expected?: string }).expected;
      const current = getAt(input, issue.path);
      const coerced = coerce(current, expected);
      if (coerced !== NO_CHANGE) {
        input = setAt(input, issue.path, coerced);
        changed = true;
      }
    }
    if (!changed) return { ok: false, error: formatIssues(r.error.issues) };
  }
  const r = schema.safeParse(input);
  return r.success ? { ok: true, value: r.data } : { ok: false, error: formatIssues(r.error.issues) };
}

const NO_CHANGE = Symbol('no-change');

function coerce(value: unknown, expected: string | undefined): unknown {
  if (typeof value !== 'string') return NO_CHANGE;
  const s = value.trim();
  if (expected === 'number' || expected === 'int' || expected === 'integer') {
    if (s !== '' && /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(s)) return Number(s);
    return NO_CHANGE;
  }
  if (expected === 'boolean') {
    if (/^(true|yes|1)$/i.test(s)) return true;
    if (/^(false|no|0)$/i.test(s)) return false;
    return NO_CHANGE;
  }
  if (expected === 'object' || expected === 'array') {
    // Some models send nested JSON as a string.
    if ((s.startsWith('{') && expected === 'object') || (s.startsWith('[') && expected === 'array')) {
      try {
        return JSON.parse(s);
      } catch {
        return NO_CHANGE;
      }
    }
  }
  return NO_CHANGE;
}

function getAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

function setAt(root: unknown, path: readonly PropertyKey[], value: unknown): unknown {
  if (path.length === 0) return value;
  let cur = root as Record<PropertyKey, unknown>;
  for (const key of path.slice(0, -1)) cur = cur[key] as Record<PropertyKey, unknown>;
  cur[path[path.length - 1]!] = value;
  return root;
}

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((i) => `${i.path.length ? i.path.join('.') : '(input)'}: ${i.message}`).join('; ');
}
