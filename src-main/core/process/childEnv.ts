/**
 * The environment Rein gives the programs it starts for a run (the bash tool, hooks, and any child
 * started without an explicit environment): Rein's own, minus its credentials and anything whose name
 * or value looks like a secret. A tool call that prints its environment (`printenv`, `env`, a script)
 * must not hand the model the API key or a token; names the person wants passed anyway go in
 * `tools.env_passthrough` (docs/tools.md, *The environment of commands*).
 *
 * Rules, in order:
 *   1. Rein's own credentials never pass, whatever the allow-list says: ANTHROPIC_API_KEY,
 *      ANTHROPIC_AUTH_TOKEN, and REIN_* names that look secret (REIN_DAEMON_TOKEN, REIN_SLACK_HOOK_SECRET…).
 *   2. A name on the allow-list (exact, or a `*` glob such as `AWS_*`) passes.
 *   3. A name that looks secret is left out: one of its `_`-separated words is TOKEN, SECRET(S),
 *      PASSWORD, PASSWD, PASSPHRASE, APIKEY, CREDENTIAL(S) or PAT as the last word, or it ends in
 *      `_KEY` (`OPENAI_API_KEY`, `AWS_SECRET_ACCESS_KEY`, `STRIPE_KEY`), or contains PASSWORD.
 *   4. A value that looks secret is left out: an Anthropic key (`sk-ant-…`), a URL with a password
 *      (`postgres://u:p@host`), a PEM private key.
 * Everything else passes (PATH, HOME, LANG, SSH_AUTH_SOCK, proxies without passwords …).
 *
 * One thing is added: a PATH that is only launchd's default (`/usr/bin:/bin:/usr/sbin:/sbin`, what the
 * app opened from the Finder or a daemon started by launchd has) is replaced by a terminal's — the login
 * shell's once this process has read it (loginPath.ts, `primeLoginPath`), else the existing well-known
 * folders in front of it (terminalPath.ts) — so a run's `gh`, `brew` or Homebrew `python3` are found as
 * they are in a terminal. Any other PATH passes unchanged; an environment without PATH gets none.
 */
import { isMinimalPath, terminalPath } from './terminalPath.js';

/** Rein's own credentials: never given to a child, even when the allow-list names them. */
const REIN_CREDENTIALS: ReadonlySet<string> = new Set([
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'REIN_DAEMON_TOKEN',
  'REIN_TOKEN',
  'REIN_CLOUD_API_KEY',
  'SHANNON_API_KEY',
]);

const SECRET_WORDS: ReadonlySet<string> = new Set([
  'TOKEN',
  'TOKENS',
  'SECRET',
  'SECRETS',
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'APIKEY',
  'CREDENTIAL',
  'CREDENTIALS',
  'PRIVATEKEY',
]);

/** Does the variable's name say it holds a secret? */
export function looksSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (upper.includes('PASSWORD')) return true;
  const words = upper.split(/[^A-Z0-9]+/).filter(Boolean);
  if (words.some((w) => SECRET_WORDS.has(w))) return true;
  const last = words[words.length - 1];
  if (words.length > 1 && (last === 'KEY' || last === 'PAT')) return true;
  return false;
}

const SECRET_VALUE = [
  /sk-ant-[A-Za-z0-9_-]{8,}/,
  /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
];

export function looksSecretValue(value: string): boolean {
  return SECRET_VALUE.some((re) => re.test(value));
}

/** Rein's own credential: refused even when the allow-list names it. */
export function isReinCredential(name: string): boolean {
  const upper = name.toUpperCase();
  return REIN_CREDENTIALS.has(upper) || (upper.startsWith('REIN_') && looksSecretName(upper));
}

const globCache = new Map<string, RegExp>();
function nameMatches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern.toUpperCase() === name.toUpperCase();
  let re = globCache.get(pattern);
  if (!re) {
    re = new RegExp(
      `^${pattern
        .split('*')
        .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
      'i',
    );
    if (globCache.size > 200) globCache.clear();
    globCache.set(pattern, re);
  }
  return re.test(name);
}

export interface ChildEnvOptions {
  /** `tools.env_passthrough`: names (or `*` globs) that pass although they look secret. */
  passthrough?: readonly string[];
}

/** The environment a child gets: `base` without Rein's credentials and without what looks secret. */
export function childEnvironment(base: NodeJS.ProcessEnv = process.env, opts: ChildEnvOptions = {}): NodeJS.ProcessEnv {
  const passthrough = opts.passthrough ?? [];
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (isReinCredential(name)) continue;
    if (!passthrough.some((p) => nameMatches(p, name)) && (looksSecretName(name) || looksSecretValue(value))) continue;
    out[name] = value;
  }
  if (out.PATH !== undefined && isMinimalPath(out.PATH)) out.PATH = terminalPath(base);
  return out;
}

/** The names `childEnvironment` leaves out of `base` (for docs, tests and `rein` diagnostics). */
export function withheldNames(base: NodeJS.ProcessEnv = process.env, opts: ChildEnvOptions = {}): string[] {
  const kept = childEnvironment(base, opts);
  return Object.keys(base)
    .filter((k) => base[k] !== undefined && !(k in kept))
    .sort();
}
