import { describe, expect, it } from 'vitest';
import { completeForm, formDefaults, formFields, parseFieldInput } from '../../../src-main/core/api/approvalForm.js';
import { acceptDefaults, acceptValues } from '../../../src-main/core/mcpClient/elicitation.js';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 2 },
    age: { type: 'integer', minimum: 0, maximum: 150, default: 30 },
    ok: { type: 'boolean', default: false },
    color: { type: 'string', enum: ['red', 'green'], enumNames: ['Red', 'Green'], default: 'red' },
    size: {
      type: 'string',
      oneOf: [
        { const: 's', title: 'Small' },
        { const: 'l', title: 'Large' },
      ],
    },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 1, default: ['a'] },
    email: { type: 'string', format: 'email' },
  },
  required: ['name'],
};

describe('approval forms (elicitation)', () => {
  it('reads every kind of field with its label, default and limits', () => {
    const f = formFields(schema);
    expect(f.map((x) => [x.name, x.kind, x.required])).toEqual([
      ['name', 'string', true],
      ['age', 'integer', false],
      ['ok', 'boolean', false],
      ['color', 'choice', false],
      ['size', 'choice', false],
      ['tags', 'choices', false],
      ['email', 'string', false],
    ]);
    expect(f[3]!.choices).toEqual([
      { value: 'red', label: 'Red' },
      { value: 'green', label: 'Green' },
    ]);
    expect(f[4]!.choices).toEqual([
      { value: 's', label: 'Small' },
      { value: 'l', label: 'Large' },
    ]);
    expect(formDefaults(f)).toEqual({ age: 30, ok: false, color: 'red', tags: ['a'] });
  });

  it('completes given values with the defaults and checks them', () => {
    const f = formFields(schema);
    expect(completeForm(f, { name: 'Al' })).toEqual({
      values: { name: 'Al', age: 30, ok: false, color: 'red', tags: ['a'] },
      problems: [],
    });
    expect(completeForm(f, {}).problems).toEqual(['name: required']);
    expect(completeForm(f, { name: 'A', age: 200, color: 'blue', email: 'nope' }).problems).toEqual([
      'name: at least 2 characters',
      'age: at most 150',
      'color: one of red, green',
      'email: expected an email address',
    ]);
  });

  it('parses what a person types', () => {
    const f = formFields(schema);
    expect(parseFieldInput(f[1]!, '42')).toEqual({ ok: true, value: 42 });
    expect(parseFieldInput(f[1]!, '4.5')).toEqual({ ok: false, error: 'expected a whole number' });
    expect(parseFieldInput(f[2]!, 'y')).toEqual({ ok: true, value: true });
    expect(parseFieldInput(f[3]!, '2')).toEqual({ ok: true, value: 'green' });
    expect(parseFieldInput(f[5]!, 'b, 3')).toEqual({ ok: true, value: ['b', 'c'] });
  });

  it('--yes accepts the defaults only when they fill the form', () => {
    expect(acceptDefaults({ schema })).toBeUndefined();
    expect(
      acceptDefaults({
        schema: { type: 'object', properties: { n: { type: 'number', default: 1 }, s: { type: 'string' } } },
      }),
    ).toEqual({ action: 'accept', content: { n: 1 } });
    expect(acceptValues({ schema }, { name: 'Bo' }).answer).toMatchObject({ action: 'accept' });
    expect(acceptValues({ schema }, {}).answer).toEqual({ action: 'decline' });
  });
});
