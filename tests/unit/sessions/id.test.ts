import { describe, expect, it } from 'vitest';
import { isSessionId, newSessionId } from '../../../src-main/core/sessions/id.js';

describe('session ids', () => {
  it('are the local date plus 12 lowercase hex characters', () => {
    const id = newSessionId(new Date(2026, 2, 8, 23, 59)); // local 2026-03-08
    expect(id).toMatch(/^2026-03-08-[0-9a-f]{12}$/);
    expect(isSessionId(id)).toBe(true);
  });

  it('differ between two calls', () => {
    const ids = new Set(Array.from({ length: 50 }, () => newSessionId()));
    expect(ids.size).toBe(50);
  });

  it('reject anything that could escape the sessions folder or is not the exact format', () => {
    for (const bad of [
      '',
      '../2026-03-08-a1b2c3d4e5f6',
      '2026-03-08-a1b2c3d4e5f6/../x',
      '2026-03-08-A1B2C3D4E5F6',
      '2026-03-08-a1b2c3d4e5f',
      '2026-03-08-a1b2c3d4e5f6.json',
      '2026-03-08-123456',
      42,
      undefined,
    ]) {
      expect(isSessionId(bad), String(bad)).toBe(false);
    }
  });
});
