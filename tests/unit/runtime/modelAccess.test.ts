import { describe, expect, it } from 'vitest';
import { numberEnv } from '../../../src-main/core/runtime/modelAccess.js';

describe('numberEnv (REIN_RETRY_BASE_MS, REIN_LLM_IDLE_MS)', () => {
  it('reads a non-negative finite number and ignores anything else', () => {
    expect(numberEnv('250')).toBe(250);
    expect(numberEnv('0')).toBe(0);
    for (const v of [undefined, '', '  ', '-1', 'abc', 'Infinity']) expect(numberEnv(v)).toBeUndefined();
  });
});
