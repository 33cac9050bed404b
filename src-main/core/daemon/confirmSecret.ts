/**
 * The second secret that proves a request to confirm a permission-raising change comes from a person's
 * shell on the daemon's machine (`rein changes accept|reject`), not from a token holder: 32 random bytes
 * as hex in `$REIN_HOME/secrets/confirm.token` (0600, in a 0700 folder), made anew every time the daemon
 * starts. Only a local process of the same user can read it. The web page never receives it (nothing
 * serves it), a relay or a phone holding the daemon token does not have it, and no tool may read
 * `secrets/` (a `rein-secrets` hard block, core/secrets/reinSecrets.ts). A run that tries `rein changes
 * accept` itself is a protected call that asks a person in every mode (core/permissions/protectedWrites.ts).
 * See docs/permissions.md, *Threat model*.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ReinError, errorMessage } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { REIN_SECRETS_DIR } from '../secrets/reinSecrets.js';

/** The header `rein changes` sends it in. */
export const CONFIRM_HEADER = 'x-rein-confirm';

export const confirmSecretFile = (home: string): string => join(home, REIN_SECRETS_DIR, 'confirm.token');

const SECRET_RE = /^[0-9a-f]{64}$/;

/** A new secret, written where `rein changes` reads it (the previous daemon's is useless anyway). */
export async function writeConfirmSecret(home: string): Promise<string> {
  const secret = randomBytes(32).toString('hex');
  await mkdir(join(home, REIN_SECRETS_DIR), { recursive: true, mode: 0o700 });
  await atomicWriteFile(confirmSecretFile(home), `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** The running daemon's secret, for `rein changes`; a missing or damaged file says what to do. */
export async function readConfirmSecret(home: string): Promise<string> {
  const file = confirmSecretFile(home);
  let text: string;
  try {
    text = (await readFile(file, 'utf8')).trim();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ReinError(
      'config_io',
      code === 'ENOENT'
        ? `${file} is missing: the daemon makes it when it starts (restart \`rein daemon\`, or the desktop app, if it is older than this command)`
        : `${file}: cannot read: ${errorMessage(e)}`,
      { file },
    );
  }
  if (!SECRET_RE.test(text))
    throw new ReinError('config_invalid', `${file} is damaged: restart the daemon to make a new one`, { file });
  return text;
}
