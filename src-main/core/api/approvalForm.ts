/**
 * A form in an approval request: what an MCP server asks a person to fill in during a tool call
 * (elicitation). The request carries the fields as the server sent them — a flat JSON Schema object
 * whose properties are strings (maybe with a format or length limits), numbers, integers, booleans,
 * single-choice enums or multiple-choice lists — and every face reads them through `formFields`, so the
 * terminal prompt, the page's card and the CLI's `--yes` agree on labels, defaults and checks.
 * Pure TypeScript and zod: the page bundles it.
 */
import { z } from 'zod';

export const FormValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
export type FormValue = z.infer<typeof FormValue>;
export const FormValues = z.record(z.string(), FormValue);
export type FormValues = z.infer<typeof FormValues>;

export const ApprovalForm = z.object({
  /** What the server says it needs, as it said it. */
  message: z.string(),
  /** The requested fields: a JSON Schema object (`properties`, `required`). */
  schema: z.record(z.string(), z.unknown()),
});
export type ApprovalForm = z.infer<typeof ApprovalForm>;

export interface FormChoice {
  value: string;
  label: string;
}

export interface FormField {
  name: string;
  /** Title, else the name. */
  label: string;
  description?: string;
  kind: 'string' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices';
  required: boolean;
  default?: FormValue;
  /** For choice / choices. */
  choices?: FormChoice[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function choicesOf(p: Json): FormChoice[] | undefined {
  if (Array.isArray(p.enum)) {
    const names = Array.isArray(p.enumNames) ? p.enumNames : [];
    return p.enum
      .filter((v): v is string => typeof v === 'string')
      .map((v, i) => ({ value: v, label: str(names[i]) ?? v }));
  }
  const alts = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : undefined;
  if (alts) {
    const out = alts
      .map(obj)
      .filter((a) => typeof a.const === 'string')
      .map((a) => ({ value: a.const as string, label: str(a.title) ?? (a.const as string) }));
    return out.length > 0 ? out : undefined;
  }
  return undefined;
}

/** The fields of a form schema, in the order the server listed them. */
export function formFields(schema: unknown): FormField[] {
  const s = obj(schema);
  const required = new Set(
    Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : [],
  );
  return Object.entries(obj(s.properties)).map(([name, raw]) => {
    const p = obj(raw);
    const type = str(p.type);
    const base = {
      name,
      label: str(p.title) ?? name,
      ...(str(p.description) ? { description: str(p.description)! } : {}),
      required: required.has(name),
    };
    if (type === 'array') {
      const choices = choicesOf(obj(p.items)) ?? [];
      const def = Array.isArray(p.default) ? p.default.filter((v): v is string => typeof v === 'string') : undefined;
      return {
        ...base,
        kind: 'choices' as const,
        choices,
        ...(def ? { default: def } : {}),
        ...(num(p.minItems) !== undefined ? { minItems: num(p.minItems)! } : {}),
        ...(num(p.maxItems) !== undefined ? { maxItems: num(p.maxItems)! } : {}),
      };
    }
    const choices = choicesOf(p);
    if (choices)
      return {
        ...base,
        kind: 'choice' as const,
        choices,
        ...(typeof p.default === 'string' ? { default: p.default } : {}),
      };
    if (type === 'boolean')
      return { ...base, kind: 'boolean' as const, ...(typeof p.default === 'boolean' ? { default: p.default } : {}) };
    if (type === 'number' || type === 'integer') {
      return {
        ...base,
        kind: type,
        ...(num(p.default) !== undefined ? { default: num(p.default)! } : {}),
        ...(num(p.minimum) !== undefined ? { minimum: num(p.minimum)! } : {}),
        ...(num(p.maximum) !== undefined ? { maximum: num(p.maximum)! } : {}),
      };
    }
    return {
      ...base,
      kind: 'string' as const,
      ...(typeof p.default === 'string' ? { default: p.default } : {}),
      ...(str(p.format) ? { format: str(p.format)! } : {}),
      ...(num(p.minLength) !== undefined ? { minLength: num(p.minLength)! } : {}),
      ...(num(p.maxLength) !== undefined ? { maxLength: num(p.maxLength)! } : {}),
    };
  });
}

/** The defaults the schema gives, by field. */
export function formDefaults(fields: readonly FormField[]): FormValues {
  const out: FormValues = {};
  for (const f of fields) if (f.default !== undefined) out[f.name] = f.default;
  return out;
}

/** Why a value does not fit its field, or undefined when it does. */
export function checkFieldValue(f: FormField, v: FormValue): string | undefined {
  switch (f.kind) {
    case 'boolean':
      return typeof v === 'boolean' ? undefined : 'expected true or false';
    case 'number':
    case 'integer':
      if (typeof v !== 'number' || !Number.isFinite(v)) return 'expected a number';
      if (f.kind === 'integer' && !Number.isInteger(v)) return 'expected a whole number';
      if (f.minimum !== undefined && v < f.minimum) return `at least ${f.minimum}`;
      if (f.maximum !== undefined && v > f.maximum) return `at most ${f.maximum}`;
      return undefined;
    case 'choice':
      return typeof v === 'string' && (f.choices ?? []).some((c) => c.value === v)
        ? undefined
        : `one of ${(f.choices ?? []).map((c) => c.value).join(', ')}`;
    case 'choices': {
      if (!Array.isArray(v)) return 'expected a list';
      const bad = v.filter((x) => !(f.choices ?? []).some((c) => c.value === x));
      if (bad.length > 0) return `not a choice: ${bad.join(', ')}`;
      if (f.minItems !== undefined && v.length < f.minItems) return `choose at least ${f.minItems}`;
      if (f.maxItems !== undefined && v.length > f.maxItems) return `choose at most ${f.maxItems}`;
      return undefined;
    }
    case 'string': {
      if (typeof v !== 'string') return 'expected text';
      if (f.minLength !== undefined && v.length < f.minLength) return `at least ${f.minLength} characters`;
      if (f.maxLength !== undefined && v.length > f.maxLength) return `at most ${f.maxLength} characters`;
      if (f.format === 'email' && !/^[^\s@]+@[^\s@]+$/.test(v)) return 'expected an email address';
      if ((f.format === 'uri' || f.format === 'url') && !/^[a-z][a-z0-9+.-]*:/i.test(v)) return 'expected a URI';
      if (f.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(v)) return 'expected a date (YYYY-MM-DD)';
      if (f.format === 'date-time' && Number.isNaN(Date.parse(v))) return 'expected a date and time';
      return undefined;
    }
  }
}

/**
 * The values to send: the defaults with the given values laid over them, checked. Values for fields
 * the form does not have are dropped. `problems` names each field that is missing or wrong.
 */
export function completeForm(
  fields: readonly FormField[],
  given: FormValues = {},
): { values: FormValues; problems: string[] } {
  const values: FormValues = {};
  const problems: string[] = [];
  for (const f of fields) {
    const v = Object.hasOwn(given, f.name) ? given[f.name] : f.default;
    if (v === undefined) {
      if (f.required) problems.push(`${f.name}: required`);
      continue;
    }
    const why = checkFieldValue(f, v);
    if (why) problems.push(`${f.name}: ${why}`);
    else values[f.name] = v;
  }
  return { values, problems };
}

/** Text a person typed for a field, as the field's value; an error message when it does not parse. */
export function parseFieldInput(
  f: FormField,
  text: string,
): { ok: true; value: FormValue } | { ok: false; error: string } {
  const t = text.trim();
  let value: FormValue;
  switch (f.kind) {
    case 'boolean':
      if (/^(y|yes|true|1)$/i.test(t)) value = true;
      else if (/^(n|no|false|0)$/i.test(t)) value = false;
      else return { ok: false, error: 'answer yes or no' };
      break;
    case 'number':
    case 'integer':
      if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return { ok: false, error: 'expected a number' };
      value = Number(t);
      break;
    case 'choice': {
      const byIndex = /^\d+$/.test(t) ? f.choices?.[Number(t) - 1] : undefined;
      value = byIndex?.value ?? t;
      break;
    }
    case 'choices':
      value =
        t === ''
          ? []
          : t
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean)
              .map((x) => (/^\d+$/.test(x) ? (f.choices?.[Number(x) - 1]?.value ?? x) : x));
      break;
    default:
      value = text;
  }
  const why = checkFieldValue(f, value);
  return why ? { ok: false, error: why } : { ok: true, value };
}
