/**
 * The desktop app's former key file (api-key.enc, sealed by the keychain) and its move into the one
 * store every run reads (core/secrets/apiKey.ts), here the file store (no Secret Service in the
 * environment given) and a stand-in Secret Service.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  apiKeyFile,
  clearLegacyApiKey,
  loadLegacyApiKey,
  migrateLegacyApiKey,
  type StringCipher,
} from '../../../src-main/core/desktop/apiKeyStore.js';
import { fileKeyStore } from '../../../src-main/core/secrets/fileStore.js';
import type { KeyStore } from '../../../src-main/core/secrets/keyStore.js';

const KEY = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789';
const FAKE_SECRET_TOOL = resolve(__dirname, '../../fixtures/secrets/fake-secret-tool.mjs');

/** XOR with a fixed byte: reversible, and the plain text never appears in the output. */
function fakeCipher(available = true): StringCipher {
  return {
    canEncrypt: async () => available,
    encrypt: async (s: string) => Buffer.from([...Buffer.from(s, 'utf8')].map((b) => b ^ 0x5a)),
    decrypt: async (b: Buffer) => Buffer.from([...b].map((x) => x ^ 0x5a)).toString('utf8'),
  };
}

async function legacyHome(key = KEY) {
  const root = await mkdtemp(join(tmpdir(), 'rein-legacy-key-'));
  const home = join(root, 'rein');
  await mkdir(home, { recursive: true });
  await writeFile(apiKeyFile(home), await fakeCipher().encrypt(key));
  return { root, home, env: { HOME: root, PATH: process.env.PATH } as NodeJS.ProcessEnv };
}

describe('the old api-key.enc', () => {
  it('is read through the cipher', async () => {
    const { home } = await legacyHome();
    expect(await loadLegacyApiKey(home, fakeCipher())).toBe(KEY);
    expect(await loadLegacyApiKey(await mkdtemp(join(tmpdir(), 'rein-none-')), fakeCipher())).toBeUndefined();
  });

  it('that the keychain cannot open is an error naming the file and what to do', async () => {
    const { home } = await legacyHome();
    const broken: StringCipher = { ...fakeCipher(), decrypt: async () => Promise.reject(new Error('bad MAC')) };
    await expect(loadLegacyApiKey(home, broken)).rejects.toThrow(
      /api-key\.enc cannot be decrypted.*bad MAC.*enter the key again/,
    );
    await expect(loadLegacyApiKey(home, fakeCipher(false))).rejects.toThrow(/api-key\.enc cannot be opened/);
  });
});

describe('migrateLegacyApiKey', () => {
  it('moves the key into the store and removes api-key.enc only once the store has it', async () => {
    const { home, env } = await legacyHome();
    expect(await migrateLegacyApiKey(home, fakeCipher(), env)).toEqual({
      moved: true,
      store: join(home, 'secrets', 'anthropic-api-key'),
    });
    expect(await readFile(join(home, 'secrets', 'anthropic-api-key'), 'utf8')).toBe(`${KEY}\n`);
    await expect(readFile(apiKeyFile(home))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await migrateLegacyApiKey(home, fakeCipher(), env)).toEqual({ moved: false });
  });

  it('into the Secret Service when one answers', async () => {
    const { root, home, env } = await legacyHome();
    const r = await migrateLegacyApiKey(
      home,
      fakeCipher(),
      { ...env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/fake' },
      { platform: 'linux', secretTool: FAKE_SECRET_TOOL },
    );
    expect(r).toMatchObject({ moved: true, store: expect.stringMatching(/^the Secret Service/) });
    expect(Object.values(JSON.parse(await readFile(join(root, '.fake-secrets.json'), 'utf8')))).toEqual([KEY]);
  });

  it('keeps api-key.enc when the store refuses the key', async () => {
    const { home, env } = await legacyHome();
    const refusing: KeyStore = { ...fileKeyStore(home), write: async () => Promise.reject(new Error('disk full')) };
    await expect(migrateLegacyApiKey(home, fakeCipher(), env, { stores: [refusing] })).rejects.toThrow(/disk full/);
    expect(await loadLegacyApiKey(home, fakeCipher())).toBe(KEY);
  });

  it('keeps api-key.enc when the store does not give the key back', async () => {
    const { home, env } = await legacyHome();
    const forgetful: KeyStore = { ...fileKeyStore(home), write: async () => undefined };
    await expect(migrateLegacyApiKey(home, fakeCipher(), env, { stores: [forgetful] })).rejects.toThrow(
      /did not keep the key/,
    );
    expect(await loadLegacyApiKey(home, fakeCipher())).toBe(KEY);
  });

  it('leaves a file it cannot open where it is', async () => {
    const { home, env } = await legacyHome();
    const broken: StringCipher = { ...fakeCipher(), decrypt: async () => Promise.reject(new Error('bad MAC')) };
    await expect(migrateLegacyApiKey(home, broken, env)).rejects.toThrow(/cannot be decrypted/);
    expect(await loadLegacyApiKey(home, fakeCipher())).toBe(KEY);
  });

  it('only removes api-key.enc when the store already has a (newer) key', async () => {
    const { home, env } = await legacyHome('sk-ant-old-app-key-0123');
    await fileKeyStore(home).write(KEY);
    expect(await migrateLegacyApiKey(home, fakeCipher(), env)).toEqual({ moved: false, discarded: true });
    expect(await fileKeyStore(home).read()).toBe(KEY);
    expect(await clearLegacyApiKey(home)).toBe(false);
  });
});
