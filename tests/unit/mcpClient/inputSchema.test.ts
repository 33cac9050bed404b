import { describe, expect, it } from 'vitest';
import { mcpInputSchema } from '../../../src-main/core/mcpClient/inputSchema.js';
import { parseLenient } from '../../../src-main/core/tools/lenient.js';
import { toInputSchema } from '../../../src-main/core/tools/registry.js';

const schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    a: { type: 'number', description: 'first' },
    flag: { type: 'boolean' },
    list: { type: 'array', items: { type: 'string' } },
    name: { type: ['string', 'null'] },
  },
  required: ['a'],
  additionalProperties: false,
};

describe('MCP input schemas', () => {
  it('the model sees the server’s JSON Schema itself (keys sorted, $schema dropped)', () => {
    expect(toInputSchema(mcpInputSchema(schema))).toEqual({
      additionalProperties: false,
      properties: {
        a: { description: 'first', type: 'number' },
        flag: { type: 'boolean' },
        list: { items: { type: 'string' }, type: 'array' },
        name: { type: ['string', 'null'] },
      },
      required: ['a'],
      type: 'object',
    });
    expect(JSON.stringify(toInputSchema(mcpInputSchema(schema)))).toBe(
      JSON.stringify(toInputSchema(mcpInputSchema(structuredClone(schema)))),
    );
  });

  it('a schema without properties is an empty object', () => {
    expect(toInputSchema(mcpInputSchema({ type: 'object' }))).toEqual({ properties: {}, type: 'object' });
    expect(toInputSchema(mcpInputSchema(undefined))).toEqual({ properties: {}, type: 'object' });
  });

  it('checks required properties and top-level types, coercing the model’s strings like a built-in', () => {
    const s = mcpInputSchema(schema);
    expect(parseLenient(s, { a: '5', flag: 'true', list: '["x"]', name: null, extra: 1 })).toEqual({
      ok: true,
      value: { a: 5, flag: true, list: ['x'], name: null, extra: 1 },
    });
    const bad = parseLenient(s, { flag: 'maybe' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/a: required/);
    expect(!bad.ok && bad.error).toMatch(/flag: expected boolean/);
  });
});
