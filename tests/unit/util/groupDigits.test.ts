import { describe, expect, it } from 'vitest';
import { groupDigits } from '../../../src-main/core/util/groupDigits.js';

describe('groupDigits', () => {
  it('writes numbers as toLocaleString("en-US") does', () => {
    for (const n of [
      0,
      7,
      999,
      1000,
      1234,
      12345,
      100000,
      999999,
      1000000,
      40000,
      200000,
      123456789,
      -1,
      -1234,
      -1000000,
      1.5,
      1234.5678,
      0.1234,
      Number.MAX_SAFE_INTEGER,
    ]) {
      expect(groupDigits(n), String(n)).toBe(n.toLocaleString('en-US'));
    }
  });
  it('leaves NaN and infinities as String() writes them', () => {
    expect(groupDigits(Number.NaN)).toBe('NaN');
    expect(groupDigits(Infinity)).toBe('Infinity');
  });
});
