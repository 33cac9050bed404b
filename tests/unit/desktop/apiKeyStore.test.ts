import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiKeyFile, clearApiKey, hasStoredApiKey, loadApiKey, saveApiKey, type StringCipher } from '../../../src-main/core/desktop/apiKeyStore.js';

const KEY = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789';

/** XOR with a fixed byte: reversible, and the plain text never appears in the output. */
function fakeCipher(available = true): StringCipher & { calls: number } {
  const c = {
    calls: 0,
    canEncrypt: async () => available,
    encrypt: async (s: string) => {
      c.calls++;
      return Buffer.from([...Buffer.from(s, 'utf8')].map((b) => b ^ 0x5a));
    },
    decrypt: async (b: Buffer) => Buffer.from([...b].map((x) => x ^ 0x5a)).toString('utf8'),
  };
  return c;
}

const home = () => mkdtemp(join(tmpdir(), 'rein-key-'));

describe('API key store', () => {
  it('round-trips a key through the cipher into a 0600 file that does not contain it', async () => {
    const h = await home();
    await saveApiKey(h, fakeCipher(), `  ${KEY}\n`);
    const raw = await readFile(apiKeyFile(h));
    expect(raw.toString('latin1')).not.toContain('sk-ant');
    if (process.platform !== 'win32') expect((await stat(apiKeyFile(h))).mode & 0o777).toBe(0o600);
    expect(await loadApiKey(h, fakeCipher())).toBe(KEY);
    expect(await hasStoredApiKey(h)).toBe(true);
  });

  it('refuses to store anything when the system offers no encryption, and says what to do instead', async () => {
    const h = await home();
    const cipher = fakeCipher(false);
    await expect(saveApiKey(h, cipher, KEY)).rejects.toThrow(/no keychain encryption.*ANTHROPIC_API_KEY/);
    expect(cipher.calls).toBe(0);
    expect(await hasStoredApiKey(h)).toBe(false);
  });

  it('refuses what cannot be a key, naming the field', async () => {
    await expect(saveApiKey(await home(), fakeCipher(), 'sk ant with spaces')).rejects.toThrow(/^key: must be one token/);
    await expect(saveApiKey(await home(), fakeCipher(), 'short')).rejects.toThrow(/^key: is too short/);
  });

  it('has no key without a file, and forgets it when cleared', async () => {
    const h = await home();
    expect(await loadApiKey(h, fakeCipher())).toBeUndefined();
    await saveApiKey(h, fakeCipher(), KEY);
    await clearApiKey(h);
    await clearApiKey(h); // twice is fine
    expect(await loadApiKey(h, fakeCipher())).toBeUndefined();
  });

  it('reports a file the keychain cannot open, naming it', async () => {
    const h = await home();
    await writeFile(apiKeyFile(h), 'garbage');
    const broken: StringCipher = { ...fakeCipher(), decrypt: async () => Promise.reject(new Error('bad MAC')) };
    await expect(loadApiKey(h, broken)).rejects.toThrow(/api-key\.enc cannot be decrypted.*bad MAC.*enter the key again/);
  });
});
