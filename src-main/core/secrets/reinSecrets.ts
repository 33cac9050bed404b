/**
 * Where Rein keeps its own credentials, and the checks built on that one list: the permission engine
 * refuses tool calls that touch them (core/permissions), the grep tool leaves them out of its results,
 * and the environment given to tool subprocesses leaves out Rein's credentials (core/process/childEnv.ts).
 */
import path from 'node:path';
import { realpathLoose } from '../util/realpath.js';

/**
 * Rein's own secrets, relative to REIN_HOME: the daemon's token (`daemon.token`, and `daemon.json`, which
 * carries it), the desktop app's former encrypted API key (`api-key.enc`, core/desktop/apiKeyStore.ts), webhook
 * secrets written into `webhooks.yaml`, and the `secrets/` folder, where every credential Rein stores
 * from now on goes (MCP OAuth tokens in `secrets/mcp-oauth/`, `rein mcp serve`'s token in `secrets/mcp-serve.token`, the confirm secret of `rein changes` in `secrets/confirm.token`,
 * the model API key in `secrets/anthropic-api-key` where the system has no secret store: core/secrets/fileStore.ts). A tool that reads one could act as
 * Rein (approve its own questions, change an agent's permissions), so touching them is a hard block in
 * every mode (docs/permissions.md, *Threat model*). Keep this list and the docs in step.
 */
export const REIN_SECRET_FILES: readonly string[] = ['daemon.json', 'daemon.token', 'api-key.enc', 'webhooks.yaml'];
/** The folder under REIN_HOME whose whole content is secret. */
export const REIN_SECRETS_DIR = 'secrets';

const realHomes = new Map<string, string>();
/** REIN_HOME as given and with symlinks resolved (lower-cased: macOS volumes compare case-insensitively). */
export function reinHomeForms(reinHome: string): string[] {
  const lexical = path.resolve(reinHome).replace(/\/+$/, '');
  let real = realHomes.get(lexical);
  if (real === undefined) {
    real = realpathLoose(lexical);
    if (realHomes.size > 100) realHomes.clear();
    realHomes.set(lexical, real);
  }
  return [...new Set([lexical.toLowerCase(), real.toLowerCase()])];
}

/** Every secret path (absolute, lower-cased) for the forms of REIN_HOME; the secrets folder ends with `/`. */
export function reinSecretPaths(reinHome: string): string[] {
  return reinHomeForms(reinHome).flatMap((h) => [
    ...REIN_SECRET_FILES.map((f) => `${h}/${f}`),
    `${h}/${REIN_SECRETS_DIR}`,
  ]);
}

/**
 * Why this absolute path is one of Rein's own secrets (compared case-insensitively, against REIN_HOME as
 * given and as resolved), or undefined. Callers pass the path as written and as resolved (symlinks).
 */
export function reinSecretReason(abs: string, reinHome: string): string | undefined {
  const p = path.posix.normalize(abs).replace(/\/+$/, '').toLowerCase();
  for (const h of reinHomeForms(reinHome)) {
    if (!p.startsWith(`${h}/`)) continue;
    const rel = p.slice(h.length + 1);
    if (REIN_SECRET_FILES.includes(rel))
      return `${rel} holds Rein's own credentials (${rel === 'webhooks.yaml' ? 'webhook secrets' : rel === 'api-key.enc' ? 'the stored API key' : "the daemon's access token"})`;
    if (rel === REIN_SECRETS_DIR || rel.startsWith(`${REIN_SECRETS_DIR}/`))
      return `it is in Rein's secrets folder (${REIN_SECRETS_DIR}/)`;
  }
  return undefined;
}

/** The folder holds Rein's secrets somewhere below it (it is REIN_HOME or one of its parents). */
export function containsReinSecrets(abs: string, reinHome: string): boolean {
  const p = path.posix.normalize(abs).replace(/\/+$/, '').toLowerCase() || '/';
  return reinHomeForms(reinHome).some((h) => h === p || h.startsWith(p === '/' ? '/' : `${p}/`));
}
