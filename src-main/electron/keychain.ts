/**
 * Electron's safeStorage as the StringCipher the key store needs. On Linux without a secret service,
 * safeStorage falls back to `basic_text`, an obfuscation with a password built into Chromium; that is
 * plain text in all but name, so it counts as no encryption and nothing is stored.
 */
import { existsSync } from 'node:fs';
import { app, safeStorage } from 'electron';
import { apiKeyFile, migrateLegacyApiKey, type StringCipher } from '../core/desktop/apiKeyStore.js';
import { errorMessage } from '../core/errors.js';

export function safeStorageCipher(platform: NodeJS.Platform = process.platform): StringCipher {
  return {
    async canEncrypt() {
      if (!(await safeStorage.isAsyncEncryptionAvailable())) return false;
      return platform !== 'linux' || safeStorage.getSelectedStorageBackend() !== 'basic_text';
    },
    encrypt: (plain) => safeStorage.encryptStringAsync(plain),
    decrypt: async (sealed) => (await safeStorage.decryptStringAsync(sealed)).result,
  };
}

/**
 * Before a headless launchd run (`Rein --headless schedule run ID --from-launchd`), which is a CLI
 * command and never starts the app: a key the app kept in api-key.enc before it used the shared store
 * moves there now (core/desktop/apiKeyStore.ts), so the run finds it. Costs one `stat` when there is
 * no such file; a failure is said on stderr (the launchd log) and the run goes on.
 */
export async function migrateLegacyKeyForHeadlessRun(
  home: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  if (!existsSync(apiKeyFile(home))) return;
  try {
    await app.whenReady(); // safeStorage needs a ready app
    const moved = await migrateLegacyApiKey(home, safeStorageCipher(), env);
    if (moved.moved) process.stderr.write(`rein: moved the API key from ${apiKeyFile(home)} to ${moved.store}\n`);
  } catch (e) {
    process.stderr.write(`rein: ${errorMessage(e)}\n`);
  }
}
