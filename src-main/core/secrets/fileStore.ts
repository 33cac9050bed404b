/**
 * The key in a file: `REIN_HOME/secrets/anthropic-api-key`, mode 0600 in a 0700 folder, written
 * atomically. Where the system offers no secret store (Linux without a running Secret Service, a
 * server), this is the place, as `gh` and `aws` keep their tokens: only its owner (and root) can read
 * it, but it is plain text at rest — a backup of the home folder carries it. No tool of a run may read
 * it: the secrets folder is a hard block (reinSecrets.ts).
 */
import { chmod, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ReinError, errorMessage } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';
import { REIN_SECRETS_DIR } from './reinSecrets.js';
import type { KeyStore } from './keyStore.js';

export const API_KEY_FILE_NAME = 'anthropic-api-key';

export const apiKeyFilePath = (home: string): string => join(home, REIN_SECRETS_DIR, API_KEY_FILE_NAME);

export function fileKeyStore(home: string): KeyStore {
  const file = apiKeyFilePath(home);
  const dir = join(home, REIN_SECRETS_DIR);
  return {
    kind: 'file',
    where: file,
    encrypted: false,
    usable: async () => ({ usable: true }),
    async read() {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new ReinError('unavailable', `cannot read ${file}: ${errorMessage(e)}`);
      }
      const key = text.split(/\r?\n/)[0]?.trim() ?? '';
      return key === '' ? undefined : key;
    },
    async write(key) {
      try {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        // mkdir leaves an existing folder as it is: this one is its owner's alone whatever made it.
        await chmod(dir, 0o700);
        await atomicWriteFile(file, `${key}\n`, { mode: 0o600, followSymlinks: false });
      } catch (e) {
        throw new ReinError('unavailable', `cannot write ${file}: ${errorMessage(e)}`);
      }
    },
    async remove() {
      const had = (await this.read().catch(() => 'unreadable')) !== undefined;
      try {
        await rm(file, { force: true });
      } catch (e) {
        throw new ReinError('unavailable', `cannot remove ${file}: ${errorMessage(e)}`);
      }
      return had;
    },
  };
}
