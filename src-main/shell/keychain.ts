/**
 * Electron's safeStorage as the StringCipher the key store needs. On Linux without a secret service,
 * safeStorage falls back to `basic_text`, an obfuscation with a password built into Chromium; that is
 * plain text in all but name, so it counts as no encryption and nothing is stored.
 */
import { safeStorage } from 'electron';
import type { StringCipher } from '../core/desktop/apiKeyStore.js';

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
