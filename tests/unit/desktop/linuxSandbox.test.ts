import { describe, expect, it } from 'vitest';
import {
  checkLinuxSandbox,
  sandboxAdvice,
  USERNS_SYSCTL,
  type SandboxProbe,
} from '../../../src-main/core/desktop/linuxSandbox.js';

const ELECTRON = '/work/rein/node_modules/electron/dist/electron';
const probe = (sysctl: string | undefined, helper: { uid: number; mode: number } | undefined): SandboxProbe => ({
  readSysctl: (p) => (p === USERNS_SYSCTL ? sysctl : undefined),
  stat: (p) => (p === '/work/rein/node_modules/electron/dist/chrome-sandbox' ? helper : undefined),
});

describe("Electron's sandbox under Ubuntu 24.04's AppArmor rule", () => {
  it('is fine off Linux, without the rule, or with a root-owned setuid chrome-sandbox', () => {
    expect(checkLinuxSandbox(ELECTRON, 'darwin', probe('1', undefined))).toEqual({ ok: true });
    expect(checkLinuxSandbox(ELECTRON, 'linux', probe(undefined, undefined))).toEqual({ ok: true });
    expect(checkLinuxSandbox(ELECTRON, 'linux', probe('0\n', { uid: 1000, mode: 0o100755 }))).toEqual({ ok: true });
    expect(checkLinuxSandbox(ELECTRON, 'linux', probe('1\n', { uid: 0, mode: 0o104755 }))).toEqual({ ok: true });
  });

  it('is detected with the rule on and a helper that is not root-owned and setuid, and prints the fix', () => {
    const check = checkLinuxSandbox(ELECTRON, 'linux', probe('1\n', { uid: 1000, mode: 0o100755 }));
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.fix).toEqual([
      "sudo chown root:root '/work/rein/node_modules/electron/dist/chrome-sandbox'",
      "sudo chmod 4755 '/work/rein/node_modules/electron/dist/chrome-sandbox'",
    ]);
    const advice = sandboxAdvice(check)!;
    expect(advice).toContain('apparmor_restrict_unprivileged_userns = 1');
    expect(advice).toContain('sudo chmod 4755');
    // root-owned but not setuid is the same problem
    expect(checkLinuxSandbox(ELECTRON, 'linux', probe('1', { uid: 0, mode: 0o100755 })).ok).toBe(false);
    expect(sandboxAdvice({ ok: true })).toBeUndefined();
  });
});
