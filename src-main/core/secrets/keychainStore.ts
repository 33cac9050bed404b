/**
 * The key in the macOS Keychain (the login keychain), through `/usr/bin/security`: no native module,
 * and the same program reads it for the CLI, the app and a launchd job, so none of them is asked to
 * allow access (an item `security` makes trusts `security`).
 *
 *   write   security add-generic-password -U -s rein -a ACCOUNT -l LABEL -w     (key twice on stdin)
 *   read    security find-generic-password -s rein -a ACCOUNT -w                 (exit 44: none)
 *   remove  security delete-generic-password -s rein -a ACCOUNT                  (exit 44: none)
 *
 * `-w` as the last option with no value makes `security` prompt for the password ("password data for
 * new item:", then "retype password for new item:"), so the key never appears in the arguments that
 * `ps` shows. Started without a controlling terminal (runStoreTool), it reads both answers from stdin.
 * Its prompt reads into a 128-byte buffer and a mismatch is not an error exit, so the write is checked
 * by reading the item back; a key the prompt cannot take goes as the `-w` argument instead, visible
 * for the few milliseconds `security` runs.
 *
 * The path of `security` is an option so tests can put a fake in its place (tests/fixtures/secrets/).
 */
import { access, constants } from 'node:fs/promises';
import { ReinError } from '../errors.js';
import {
  KEY_LABEL,
  KEY_SERVICE,
  READ_TIMEOUT_MS,
  WRITE_TIMEOUT_MS,
  keyAccount,
  runStoreTool,
  type KeyStore,
} from './keyStore.js';

export const SECURITY_PATH = '/usr/bin/security';
/** errSecItemNotFound as `security` exits with it. */
const NOT_FOUND = 44;
/** Longest key the prompt takes whole (its buffer is 128 bytes, with the line end). */
const PROMPT_MAX = 120;

export interface KeychainStoreOptions {
  env: NodeJS.ProcessEnv;
  home: string;
  securityPath?: string;
}

export function keychainKeyStore(o: KeychainStoreOptions): KeyStore {
  const security = o.securityPath ?? SECURITY_PATH;
  const account = keyAccount(o.home);
  const item = ['-s', KEY_SERVICE, '-a', account];
  const where = `the macOS Keychain (service ${KEY_SERVICE}, account ${account})`;
  const run = (args: string[], stdin?: string, timeoutMs = READ_TIMEOUT_MS) =>
    runStoreTool(security, args, { env: o.env, timeoutMs, ...(stdin !== undefined ? { stdin } : {}) });

  const read = async (): Promise<string | undefined> => {
    const { result, summary } = await run(['find-generic-password', ...item, '-w']);
    if (result.kind === 'exited' && result.exitCode === 0) return result.stdout.replace(/\r?\n$/, '') || undefined;
    if (result.kind === 'exited' && result.exitCode === NOT_FOUND) return undefined;
    throw new ReinError('unavailable', `the macOS Keychain could not be read (${summary})`);
  };

  return {
    kind: 'keychain',
    where,
    encrypted: true,
    async usable() {
      try {
        await access(security, constants.X_OK);
        return { usable: true };
      } catch {
        return { usable: false, reason: `${security} is missing` };
      }
    },
    read,
    async write(key) {
      if (key.length <= PROMPT_MAX) {
        const { result, summary } = await run(
          ['add-generic-password', '-U', ...item, '-l', KEY_LABEL, '-w'],
          `${key}\n${key}\n`,
          WRITE_TIMEOUT_MS,
        );
        if (!(result.kind === 'exited' && result.exitCode === 0))
          throw new ReinError('unavailable', `the macOS Keychain did not take the key (${summary})`);
        if ((await read()) === key) return;
      }
      const { result, summary } = await run(
        ['add-generic-password', '-U', ...item, '-l', KEY_LABEL, '-w', key],
        undefined,
        WRITE_TIMEOUT_MS,
      );
      if (!(result.kind === 'exited' && result.exitCode === 0))
        throw new ReinError('unavailable', `the macOS Keychain did not take the key (${summary.split(key).join('…')})`);
      if ((await read()) !== key)
        throw new ReinError(
          'unavailable',
          'the macOS Keychain did not keep the key (reading it back gave something else)',
        );
    },
    async remove() {
      const { result, summary } = await run(['delete-generic-password', ...item]);
      if (result.kind === 'exited' && result.exitCode === 0) return true;
      if (result.kind === 'exited' && result.exitCode === NOT_FOUND) return false;
      throw new ReinError('unavailable', `the macOS Keychain could not be changed (${summary})`);
    },
  };
}
