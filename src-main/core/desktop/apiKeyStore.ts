/**
 * The desktop app's former key file, `<REIN_HOME>/api-key.enc` (sealed by Electron's safeStorage,
 * behind the StringCipher interface so this file stays plain Node), and its move into the one key store
 * every run reads (core/secrets/apiKey.ts: the Keychain, the Secret Service, or REIN_HOME/secrets).
 * A launchd job, the CLI and the daemon could never open api-key.enc; now they read the same store.
 *
 * The move happens when the app starts (and before a headless launchd run): a file safeStorage can open
 * is written to the store, read back, and only then removed. A file it cannot open stays where it is and
 * is reported; the key is then entered again in Settings.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ReinError, errorMessage } from '../errors.js';
import { findStoredKey, storeApiKey, type KeyStoreOptions } from '../secrets/apiKey.js';

export interface StringCipher {
  /** False when the system keychain cannot be used (or only an obfuscation with a fixed password is). */
  canEncrypt(): Promise<boolean>;
  encrypt(plain: string): Promise<Buffer>;
  decrypt(sealed: Buffer): Promise<string>;
}

export const apiKeyFile = (home: string): string => join(home, 'api-key.enc');

/** The key in the old file, or undefined when there is none. A file the keychain cannot open is an error. */
export async function loadLegacyApiKey(home: string, cipher: StringCipher): Promise<string | undefined> {
  let sealed: Buffer;
  try {
    sealed = await readFile(apiKeyFile(home));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ReinError('config_io', `cannot read ${apiKeyFile(home)}: ${errorMessage(e)}`);
  }
  if (!(await cipher.canEncrypt())) {
    throw new ReinError(
      'config_io',
      `${apiKeyFile(home)} cannot be opened: this system's keychain offers no encryption now; enter the key again in Settings`,
    );
  }
  try {
    return (await cipher.decrypt(sealed)).trim() || undefined;
  } catch (e) {
    throw new ReinError(
      'config_io',
      `${apiKeyFile(home)} cannot be decrypted by this user's keychain (${errorMessage(e)}); enter the key again in Settings`,
    );
  }
}

export type Migration =
  | { moved: false }
  | { moved: true; store: string }
  /** A key already in the store is newer than the old file: the file is only removed. */
  | { moved: false; discarded: true };

/**
 * Moves api-key.enc into the key store and removes it once the store has confirmed the write. Does
 * nothing without the file; throws (leaving the file) when it cannot be opened or the store refuses.
 */
export async function migrateLegacyApiKey(
  home: string,
  cipher: StringCipher,
  env: NodeJS.ProcessEnv,
  o: KeyStoreOptions = {},
): Promise<Migration> {
  const key = await loadLegacyApiKey(home, cipher);
  if (key === undefined) return { moved: false };
  const existing = await findStoredKey(env, home, o);
  if (existing.key) {
    await rm(apiKeyFile(home), { force: true });
    return { moved: false, discarded: true };
  }
  const r = await storeApiKey(env, home, key, o);
  // storeApiKey read the key back from the store: only now is the old copy redundant.
  await rm(apiKeyFile(home), { force: true });
  return { moved: true, store: r.store.where };
}

/** Removes the old file if it is still there (Settings → Remove the stored API key). */
export async function clearLegacyApiKey(home: string): Promise<boolean> {
  try {
    await rm(apiKeyFile(home));
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new ReinError('config_io', `cannot remove ${apiKeyFile(home)}: ${errorMessage(e)}`);
  }
}
