/**
 * The input of an MCP tool as a zod schema the registry can hold. The model must see the server's own
 * JSON Schema, not a translation of it, so the schema carries it as metadata (zod copies metadata into
 * the JSON Schema it emits, and the registry sorts its keys). Parsing checks only what is cheap and
 * certain — an object, the required properties present, the type of each top-level property — and
 * reports a wrong type as zod's `invalid_type`, so the executor's lenient parse turns the model's `"5"`
 * into 5 where the server asked for a number. Everything deeper is the server's to check: it answers
 * invalid arguments with an error the model reads.
 */
import { z } from 'zod';

type Json = Record<string, unknown>;

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

/** The keys zod would treat as its own (`id` registers a definition) or that only add noise. */
const DROPPED = new Set(['$schema', '$id', 'id']);

const typeOf = (v: unknown): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'number'
        ? Number.isInteger(v)
          ? 'integer'
          : 'number'
        : typeof v;

const matches = (value: unknown, type: string): boolean => {
  const actual = typeOf(value);
  return actual === type || (type === 'number' && actual === 'integer');
};

/** zod's words for the JSON Schema types (what the lenient parse looks for). */
const ZOD_EXPECTED: Record<string, string> = {
  integer: 'int',
  number: 'number',
  boolean: 'boolean',
  object: 'object',
  array: 'array',
  string: 'string',
  null: 'null',
};

export function mcpInputSchema(jsonSchema: unknown): z.ZodType<Record<string, unknown>> {
  const schema: Json =
    jsonSchema && typeof jsonSchema === 'object' && !Array.isArray(jsonSchema) ? (jsonSchema as Json) : {};
  const meta: Json = { type: 'object' };
  for (const [k, v] of Object.entries(schema)) if (!DROPPED.has(k)) meta[k] = v;
  if (typeof meta.properties !== 'object' || meta.properties === null) meta.properties = {};
  const properties = meta.properties as Record<string, unknown>;
  const required = Array.isArray(schema.required)
    ? schema.required.filter((r): r is string => typeof r === 'string')
    : [];
  const types = new Map<string, string[]>();
  for (const [key, prop] of Object.entries(properties)) {
    const t = prop && typeof prop === 'object' ? (prop as Json).type : undefined;
    const list = (Array.isArray(t) ? t : [t]).filter((x): x is string => typeof x === 'string' && JSON_TYPES.has(x));
    if (list.length > 0) types.set(key, list);
  }

  return z
    .unknown()
    .superRefine((value, ctx) => {
      if (typeOf(value) !== 'object') {
        ctx.addIssue({ code: 'custom', message: `expected an object of arguments, got ${typeOf(value)}` });
        return;
      }
      const obj = value as Json;
      for (const key of required) {
        if (!(key in obj) || obj[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'required' });
      }
      for (const [key, list] of types) {
        if (!(key in obj) || obj[key] === undefined) continue;
        if (list.some((t) => matches(obj[key], t))) continue;
        ctx.addIssue({
          code: 'invalid_type',
          expected: ZOD_EXPECTED[list[0]!] as 'string',
          path: [key],
          message: `expected ${list.join(' or ')}, got ${typeOf(obj[key])}`,
        });
      }
    })
    .meta(meta) as unknown as z.ZodType<Record<string, unknown>>;
}
