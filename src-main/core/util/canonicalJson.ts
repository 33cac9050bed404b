/**
 * The one sorted-key JSON: the same value gives the same bytes whatever order its keys were written
 * in. Tool schemas are serialised this way so the request prefix stays byte-stable (prompt cache); the
 * executor and the loop detector compare calls by it. Undefined values and functions are left out (as
 * JSON.stringify does), a cycle becomes "[circular]" instead of throwing.
 */

/** A copy of `value` with every object's keys in sorted order. */
export function sortKeys(value: unknown): unknown {
  const seen = new WeakSet<object>();
  const walk = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return typeof v === 'bigint' ? v.toString() : v;
    if (seen.has(v)) return '[circular]';
    seen.add(v);
    if (Array.isArray(v)) {
      const out = v.map((x) => (x === undefined ? null : walk(x)));
      seen.delete(v);
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined && typeof x !== 'function') out[k] = walk(x);
    }
    seen.delete(v);
    return out;
  };
  return walk(value);
}

/** `JSON.stringify` with sorted keys; `null` for a value JSON cannot hold. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}
