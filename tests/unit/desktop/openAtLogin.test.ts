import { describe, expect, it } from 'vitest';
import { OpenAtLogin, type LoginItemSystem } from '../../../src-main/core/desktop/openAtLogin.js';

function system(enabled: boolean, fail?: string): LoginItemSystem & { applied: boolean[] } {
  const applied: boolean[] = [];
  return {
    applied,
    enabled: () => enabled,
    apply: async (on) => {
      if (fail) throw new Error(fail);
      applied.push(on);
      enabled = on;
    },
  };
}

describe('OpenAtLogin', () => {
  it('changes the system only when it differs from the choice', async () => {
    const sys = system(false);
    const warned: string[] = [];
    const login = new OpenAtLogin({
      platform: 'linux',
      packaged: true,
      system: sys,
      placeProblem: () => undefined,
      warn: (m) => warned.push(m),
    });
    await login.apply(false);
    expect(sys.applied).toEqual([]);
    await login.apply(true);
    expect(sys.applied).toEqual([true]);
    expect(login.status(true)).toEqual({ available: true, enabled: true, chosen: true });
    expect(warned).toEqual([]);
  });

  it('is never applied in a development build, and says why', async () => {
    const sys = system(false);
    const login = new OpenAtLogin({
      platform: 'darwin',
      packaged: false,
      system: sys,
      placeProblem: () => undefined,
      warn: () => undefined,
    });
    await login.apply(true);
    expect(sys.applied).toEqual([]);
    expect(login.status(false)).toMatchObject({
      available: false,
      enabled: false,
      chosen: false,
      problem: expect.stringContaining('development build'),
    });
  });

  it('adds no login item for a copy that goes away, in login words', async () => {
    const sys = system(false);
    const warned: string[] = [];
    const login = new OpenAtLogin({
      platform: 'darwin',
      packaged: true,
      system: sys,
      placeProblem: () => ({
        message:
          'a scheduled run could not start: Rein runs from a disk image; move it to Applications, then make the schedule again',
      }),
      warn: (m) => warned.push(m),
    });
    await login.apply(true);
    expect(sys.applied).toEqual([]);
    expect(login.status(true).problem).toBe(
      'it could not start at login: Rein runs from a disk image; move it to Applications, then turn this on again',
    );
    expect(warned).toHaveLength(1);
  });

  it('keeps a change that failed for Settings until the next one, and reads a failing system as off', async () => {
    const login = new OpenAtLogin({
      platform: 'linux',
      packaged: true,
      system: system(false, 'read-only folder'),
      placeProblem: () => undefined,
      warn: () => undefined,
    });
    await login.apply(true);
    expect(login.status(true).problem).toBe('"Open at login" could not be turned on: read-only folder');
    await login.apply(false);
    expect(login.status(true).problem).toBeUndefined();
    const unreadable = new OpenAtLogin({
      platform: 'linux',
      packaged: true,
      system: {
        enabled: () => {
          throw new Error('no');
        },
        apply: async () => undefined,
      },
      placeProblem: () => undefined,
      warn: () => undefined,
    });
    expect(unreadable.systemEnabled()).toBe(false);
  });
});
