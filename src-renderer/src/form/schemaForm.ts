/**
 * A form generated from a JSON Schema (itself generated from a zod schema with z.toJSONSchema): the
 * agent's config.yaml fields become text, number, yes/no, choice and list inputs, nested groups,
 * lists of objects (watch) and named entries (mcp_servers). The same schema, turned back into zod with
 * z.fromJSONSchema, gives inline errors before anything is sent; the server's own check (which also
 * knows durations and paths) has the last word and its errors land on the same fields, because both
 * name fields the way core/util/zodIssues.ts writes them (`tools.allowed[0]`, `mcp_servers["x.y"].url`).
 */
import { z } from 'zod';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  pattern?: string;
  default?: unknown;
  description?: string;
}

export type Path = (string | number)[];

interface Common {
  /** The field's name in error messages and `errors` maps (see fieldKey). */
  key: string;
  /** Relative to the enclosing list item or map entry, or to the root. */
  path: Path;
  label: string;
  help?: string;
  required: boolean;
}

export type FieldNode =
  | (Common & { kind: 'text' })
  | (Common & { kind: 'number'; integer: boolean; min?: number; max?: number })
  | (Common & { kind: 'boolean' })
  | (Common & { kind: 'enum'; options: string[] })
  /** A list of strings, one per line. */
  | (Common & { kind: 'list' })
  /** A number or a text (e.g. a debounce of 2000 or "2s"). */
  | (Common & { kind: 'textOrNumber' })
  | (Common & { kind: 'group'; children: FieldNode[] })
  /** An array of objects: each item gets the `item` fields, with paths relative to the item. */
  | (Common & { kind: 'objectList'; item: FieldNode[] })
  /** A record of strings (environment variables), edited as `NAME=value` lines. */
  | (Common & { kind: 'pairs' })
  /** A record of objects keyed by a name the user picks: each entry gets the `entry` fields. */
  | (Common & { kind: 'objectMap'; entry: FieldNode[] });

export type HelpTexts = Record<string, { label?: string; help?: string }>;

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/** A path written out as core/util/zodIssues.ts writes it: `a.b[0]["odd.key"]`. */
export function fieldKey(path: readonly PropertyKey[]): string {
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

/** `max_usd_per_run` → `Max usd per run`. */
export function humanize(name: string): string {
  const words = name.replace(/^_+/, '').replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The fields of an object schema. `help` is keyed by the schema path with `*` for any list item or map
 * entry (`watch.*.path`, `mcp_servers.*.command`).
 */
export function buildFields(schema: JsonSchema, help: HelpTexts = {}, base: Path = [], helpBase = ''): FieldNode[] {
  const nodes: FieldNode[] = [];
  const required = new Set(schema.required ?? []);
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const node = buildField(
      name,
      prop,
      required.has(name),
      help,
      [...base, name],
      helpBase ? `${helpBase}.${name}` : name,
    );
    if (node) nodes.push(node);
  }
  return nodes;
}

function buildField(
  name: string,
  s: JsonSchema,
  required: boolean,
  help: HelpTexts,
  path: Path,
  helpKey: string,
): FieldNode | undefined {
  const text = help[helpKey];
  const common: Common = {
    key: fieldKey(path),
    path,
    label: text?.label ?? humanize(name),
    ...((text?.help ?? s.description) ? { help: text?.help ?? s.description } : {}),
    required,
  };
  const type = typeOf(s);
  if (Array.isArray(s.enum) && s.enum.every((v) => typeof v === 'string'))
    return { ...common, kind: 'enum', options: s.enum as string[] };
  if (s.anyOf) {
    const kinds = new Set(s.anyOf.map(typeOf));
    if ([...kinds].every((k) => k === 'string' || k === 'integer' || k === 'number'))
      return { ...common, kind: 'textOrNumber' };
    return undefined;
  }
  switch (type) {
    case 'string':
      return { ...common, kind: 'text' };
    case 'integer':
    case 'number': {
      const min =
        s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + (type === 'integer' ? 1 : 0) : undefined);
      const max = s.maximum !== undefined && s.maximum < Number.MAX_SAFE_INTEGER ? s.maximum : undefined;
      return {
        ...common,
        kind: 'number',
        integer: type === 'integer',
        ...(min !== undefined ? { min } : {}),
        ...(max !== undefined ? { max } : {}),
      };
    }
    case 'boolean':
      return { ...common, kind: 'boolean' };
    case 'array':
      if (s.items && typeOf(s.items) === 'string') return { ...common, kind: 'list' };
      if (s.items && typeOf(s.items) === 'object')
        return { ...common, kind: 'objectList', item: buildFields(s.items, help, [], `${helpKey}.*`) };
      return undefined;
    case 'object':
      if (s.properties) return { ...common, kind: 'group', children: buildFields(s, help, path, helpKey) };
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        const valueType = typeOf(s.additionalProperties);
        if (valueType === 'object')
          return { ...common, kind: 'objectMap', entry: buildFields(s.additionalProperties, help, [], `${helpKey}.*`) };
        if (valueType === 'string') return { ...common, kind: 'pairs' };
      }
      return undefined;
    default:
      // `{}` (anything): a key that exists only to be refused, such as `_inherit` in an agent file.
      return undefined;
  }
}

function typeOf(s: JsonSchema): string | undefined {
  if (Array.isArray(s.type)) return s.type.find((t) => t !== 'null');
  if (s.type) return s.type;
  if (s.properties) return 'object';
  return undefined;
}

// ---- values ---------------------------------------------------------------------------------------

export type Doc = Record<string, unknown>;

export function getAt(value: unknown, path: Path): unknown {
  let cur = value;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

/** A copy of `value` with `path` set to `v` (undefined removes the key; missing parents are made). */
export function setAt(value: unknown, path: Path, v: unknown): unknown {
  if (path.length === 0) return v;
  const [head, ...rest] = path as [string | number, ...Path];
  const container: Record<string | number, unknown> | unknown[] = Array.isArray(value)
    ? [...value]
    : value !== null && typeof value === 'object'
      ? { ...(value as Doc) }
      : typeof head === 'number'
        ? []
        : {};
  const next = setAt((container as Record<string | number, unknown>)[head], rest, v);
  if (next === undefined && !Array.isArray(container)) delete (container as Doc)[head as string];
  else (container as Record<string | number, unknown>)[head] = next;
  return container;
}

/** Renames a key of an object, keeping its place in the key order. */
export function renameKey(obj: Doc, from: string, to: string): Doc {
  const out: Doc = {};
  for (const [k, v] of Object.entries(obj)) out[k === from ? to : k] = v;
  return out;
}

/**
 * What to save: empty texts and lists, unset choices and groups left with nothing in them are
 * removed, so an untouched field keeps inheriting the global value. List items and named entries stay
 * even when empty, so the check can say what they lack.
 */
export function cleanValue(value: unknown, schema: JsonSchema, keepEmpty = false): unknown {
  if (value === undefined || value === null || value === '') return undefined;
  if (Array.isArray(value)) {
    const itemSchema = schema.items ?? {};
    const items = value
      .map((v) => (v !== null && typeof v === 'object' ? cleanValue(v, itemSchema, true) : cleanValue(v, itemSchema)))
      .filter((v) => v !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === 'object') {
    const out: Doc = {};
    const entries =
      typeof schema.additionalProperties === 'object' && !schema.properties ? schema.additionalProperties : undefined;
    for (const [k, v] of Object.entries(value as Doc)) {
      const c = entries ? cleanValue(v, entries, true) : cleanValue(v, schema.properties?.[k] ?? {});
      if (c !== undefined) out[k] = c;
    }
    return Object.keys(out).length > 0 || keepEmpty ? out : undefined;
  }
  return value;
}

/** `{A: '1', B: 'x=y'}` ⇄ `A=1\nB=x=y`; lines without `=` are kept with an empty value so the check can name them. */
export function pairsToText(value: unknown): string {
  if (value === null || typeof value !== 'object') return '';
  return Object.entries(value as Doc)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join('\n');
}

export function textToPairs(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const eq = line.indexOf('=');
    if (eq < 0) out[line.trim()] = '';
    else out[line.slice(0, eq).trim()] = line.slice(eq + 1);
  }
  return Object.keys(out).length ? out : undefined;
}

// ---- checking -------------------------------------------------------------------------------------

export type FieldErrors = Record<string, string>;

/** A checker built from the JSON Schema: field key → first problem. */
export function validatorFor(schema: JsonSchema): (value: unknown) => FieldErrors {
  const zodSchema = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  return (value) => {
    const parsed = zodSchema.safeParse(value ?? {});
    if (parsed.success) return {};
    const errors: FieldErrors = {};
    for (const issue of parsed.error.issues) {
      const paths = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
      for (const p of paths) {
        const key = fieldKey(p);
        errors[key] ??= issue.code === 'unrecognized_keys' ? 'unknown key' : plainMessage(issue.message);
      }
    }
    return errors;
  };
}

/** zod's "Invalid input: expected number, received string" → "expected number, received string". */
function plainMessage(message: string): string {
  return message.replace(/^Invalid input: /, '').replace(/^Too (big|small): /, '');
}

/** Errors for a field and everything under it (a group shows its children's unknown keys too). */
export function errorsUnder(errors: FieldErrors, key: string): string[] {
  return Object.entries(errors)
    .filter(([k]) => k === key || k.startsWith(`${key}.`) || k.startsWith(`${key}[`))
    .map(([k, m]) => (k === key ? m : `${k.slice(key.length).replace(/^\./, '')}: ${m}`));
}
