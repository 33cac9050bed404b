/**
 * The JSON API spells field names in snake_case (docs/daemon-api.md, "Field names"). Earlier
 * releases used camelCase in the events, and clients written against them may send `requestId` or
 * `sessionId` back: for one release the adapters accept a camelCase name at the top level of a
 * request body or frame in place of its snake_case name, and say so. Pure TypeScript: the page may
 * bundle it.
 */

const CAMEL = /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/;

export const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export type SnakeCaseResult =
  | { ok: true; value: unknown; renamed: Array<{ from: string; to: string }> }
  | { ok: false; field: string; message: string };

/**
 * `value` with its camelCase top-level keys renamed to snake_case (nested objects — an agent's
 * config, a tool's input — are left exactly as sent). Giving both spellings of one field is refused.
 */
export function acceptCamelCaseKeys(value: unknown): SnakeCaseResult {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: true, value, renamed: [] };
  const input = value as Record<string, unknown>;
  const renamed: Array<{ from: string; to: string }> = [];
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(input)) {
    if (!CAMEL.test(key)) {
      // Defined, not assigned: a `__proto__` key in the JSON would otherwise replace the copy's prototype.
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      continue;
    }
    const to = snakeCase(key);
    if (Object.hasOwn(input, to))
      return { ok: false, field: to, message: `give either ${to} or ${key} (the older spelling), not both` };
    out[to] = v;
    renamed.push({ from: key, to });
  }
  return { ok: true, value: renamed.length > 0 ? out : value, renamed };
}
