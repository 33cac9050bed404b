import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { describeIssues, formatFieldPath } from '../../../src-main/core/util/zodIssues.js';

function problems(schema: z.ZodType, input: unknown) {
  const r = schema.safeParse(input);
  if (r.success) throw new Error('expected a failure');
  return describeIssues(r.error.issues, input).map((p) => `${p.field}: ${p.message}`);
}

describe('describeIssues', () => {
  it('writes paths the way a person writes them in a file', () => {
    expect(formatFieldPath([])).toBe('(top level)');
    expect(formatFieldPath(['hooks', 'PreToolUse', 0, 'command'])).toBe('hooks.PreToolUse[0].command');
    expect(formatFieldPath(['mcp_servers', 'my.server', 'args', 1])).toBe('mcp_servers["my.server"].args[1]');
  });

  it('lists enum values, names each unknown key and tells missing from wrong type', () => {
    const schema = z.strictObject({ mode: z.enum(['a', 'b']), n: z.number(), s: z.string() });
    expect(problems(schema, { mode: 'c', n: 'x', extra: 1, other: 2 })).toEqual([
      'mode: expected one of a|b',
      'n: expected number, got string "x"',
      's: missing (expected string)',
      'extra: unknown key',
      'other: unknown key',
    ]);
  });

  it('explains a union by the shapes it accepts, or by the one alternative that came closest', () => {
    const schema = z.object({ c: z.union([z.string(), z.array(z.object({ type: z.string() }))]) });
    expect(problems(schema, { c: 5 })).toEqual(['c: expected string or array, got number 5']);
    expect(problems(schema, { c: [{ type: 'text' }, {}] })).toEqual(['c[1].type: missing (expected string)']);
  });
});
