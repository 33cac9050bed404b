import { describe, expect, it } from 'vitest';
import { skillCatalog } from '../../../src-main/core/skills/catalog.js';

const a = { name: 'alpha', description: 'Does A.' };
const b = { name: 'beta', description: 'Does B\n  across   lines.' };

describe('skillCatalog', () => {
  it('lists each skill as "- name: description" under one line about use_skill', () => {
    const text = skillCatalog([b, a]);
    const lines = text.split('\n');
    expect(lines[0]).toBe('# Skills');
    expect(lines[1]).toMatch(/use_skill/);
    expect(lines.slice(2)).toEqual(['- alpha: Does A.', '- beta: Does B across lines.']);
  });

  it('gives the same bytes for the same skills whatever their order or other fields', () => {
    const one = skillCatalog([a, b]);
    const two = skillCatalog([{ ...b, dir: '/x' } as typeof b, { ...a, body: 'changed' } as typeof a]);
    expect(two).toBe(one);
    expect(Buffer.from(skillCatalog([a, b]))).toEqual(Buffer.from(one));
  });

  it('changes when a description changes, and is empty without skills', () => {
    expect(skillCatalog([a, { ...b, description: 'Other.' }])).not.toBe(skillCatalog([a, b]));
    expect(skillCatalog([])).toBe('');
  });
});
