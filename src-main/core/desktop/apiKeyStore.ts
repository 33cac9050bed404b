/**
 * The model API key at rest: encrypted by the operating system's keychain (Electron's `safeStorage`,
 * behind the small StringCipher interface so this file stays plain Node) and kept in
 * `<REIN_HOME>/api-key.enc` with mode 0600. The key is never written in plain text: when the system
 * offers no real encryption, saving is refused with a message saying what to do instead.
 */
import { access, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiKeyText } from '../api/desktopApi.js';
import { ReinError, errorMessage } from '../errors.js';
import { atomicWriteFile } from '../util/atomicWrite.js';

export interface StringCipher {
  /** False when the system keychain cannot be used (or only an obfuscation with a fixed password is). */
  canEncrypt(): Promise<boolean>;
  encrypt(plain: string): Promise<Buffer>;
  decrypt(sealed: Buffer): Promise<string>;
}

export const apiKeyFile = (home: string): string => join(home, 'api-key.enc');

export const NO_ENCRYPTION_MESSAGE =
  'this system offers no keychain encryption, so Rein will not store the API key (it would be plain text on disk); ' +
  'set ANTHROPIC_API_KEY in the environment Rein starts from instead';

export async function saveApiKey(home: string, cipher: StringCipher, key: string): Promise<void> {
  const parsed = ApiKeyText.safeParse(key);
  if (!parsed.success) throw new ReinError('invalid_input', `key: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  if (!(await cipher.canEncrypt())) throw new ReinError('invalid_input', NO_ENCRYPTION_MESSAGE);
  const sealed = await cipher.encrypt(parsed.data);
  await mkdir(home, { recursive: true, mode: 0o700 });
  await atomicWriteFile(apiKeyFile(home), sealed, { mode: 0o600 });
}

/** The stored key, or undefined when none is stored. A file the keychain cannot open is an error. */
export async function loadApiKey(home: string, cipher: StringCipher): Promise<string | undefined> {
  let sealed: Buffer;
  try {
    sealed = await readFile(apiKeyFile(home));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ReinError('config_io', `cannot read ${apiKeyFile(home)}: ${errorMessage(e)}`);
  }
  if (!(await cipher.canEncrypt())) throw new ReinError('config_io', `${apiKeyFile(home)} cannot be opened: ${NO_ENCRYPTION_MESSAGE}`);
  try {
    return await cipher.decrypt(sealed);
  } catch (e) {
    throw new ReinError(
      'config_io',
      `${apiKeyFile(home)} cannot be decrypted by this user's keychain (${errorMessage(e)}); enter the key again in Settings`,
    );
  }
}

export async function clearApiKey(home: string): Promise<void> {
  await rm(apiKeyFile(home), { force: true });
}

export async function hasStoredApiKey(home: string): Promise<boolean> {
  try {
    await access(apiKeyFile(home));
    return true;
  } catch {
    return false;
  }
}
