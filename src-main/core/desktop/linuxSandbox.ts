/**
 * Ubuntu 24.04 (and other systems with AppArmor's `apparmor_restrict_unprivileged_userns = 1`) forbids
 * unprivileged user namespaces, which Chromium's sandbox uses when its setuid helper, `chrome-sandbox`
 * beside the Electron binary, is not root-owned with the setuid bit (an unpacked or npm-installed
 * Electron never is). Electron then aborts before any of Rein's code runs, with only
 * "The SUID sandbox helper binary was found, but is not configured correctly" on stderr.
 *
 * So the check runs before Electron starts (scripts/start.js, `npm start`) and in `rein doctor`-style
 * places, and prints the fix: make chrome-sandbox root-owned and setuid (what the deb package does),
 * or an AppArmor profile for the binary. Pure over two reads (seams for tests); never changes anything.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const USERNS_SYSCTL = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns';

export interface SandboxProbe {
  /** The sysctl's text, or undefined when the file does not exist (no AppArmor restriction). */
  readSysctl(path: string): string | undefined;
  /** Owner and mode of a file, or undefined when it does not exist. */
  stat(path: string): { uid: number; mode: number } | undefined;
}

export const realProbe: SandboxProbe = {
  readSysctl: (path) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  },
  stat: (path) => {
    try {
      const s = statSync(path);
      return { uid: s.uid, mode: s.mode };
    } catch {
      return undefined;
    }
  },
};

export type SandboxCheck = { ok: true } | { ok: false; helper: string; message: string; fix: string[] };

const SETUID = 0o4000;

/**
 * Will Electron at `electronBinary` start under this system's AppArmor rule? `ok` unless the rule is on
 * and `chrome-sandbox` beside the binary is not root-owned and setuid.
 */
export function checkLinuxSandbox(
  electronBinary: string,
  platform: NodeJS.Platform = process.platform,
  probe: SandboxProbe = realProbe,
): SandboxCheck {
  if (platform !== 'linux') return { ok: true };
  if (probe.readSysctl(USERNS_SYSCTL)?.trim() !== '1') return { ok: true };
  const helper = join(dirname(electronBinary), 'chrome-sandbox');
  const s = probe.stat(helper);
  if (s && s.uid === 0 && (s.mode & SETUID) !== 0) return { ok: true };
  const what = s ? `${helper} is not owned by root with the setuid bit` : `${helper} is missing`;
  return {
    ok: false,
    helper,
    message:
      `This system restricts unprivileged user namespaces (AppArmor: ${USERNS_SYSCTL} = 1, as on Ubuntu 24.04) and ${what}, ` +
      'so Electron would abort at start ("The SUID sandbox helper binary was found, but is not configured correctly").',
    fix: s
      ? [`sudo chown root:root '${helper}'`, `sudo chmod 4755 '${helper}'`]
      : ['reinstall Electron (npm install), then run the two commands this check prints'],
  };
}

/** The check as lines for a terminal: the problem, then the commands that fix it. */
export function sandboxAdvice(check: SandboxCheck): string | undefined {
  if (check.ok) return undefined;
  return [
    `rein: ${check.message}`,
    'Fix it once (needs an administrator):',
    ...check.fix.map((c) => `  ${c}`),
    'The Rein .deb package does this itself; an AppImage needs the same for its extracted copy, or run `rein daemon` and use the web UI.',
  ].join('\n');
}
