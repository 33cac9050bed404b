import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { resetElectronMock, safeStorage } from '../../support/electronMock.js';
import { apiKeyFile, loadLegacyApiKey } from '../../../src-main/core/desktop/apiKeyStore.js';
import { migrateLegacyKeyForHeadlessRun, safeStorageCipher } from '../../../src-main/electron/keychain.js';

const KEY = 'sk-ant-api03-0123456789abcdefghijklmnop';

beforeEach(() => resetElectronMock());

describe('the keychain cipher (safeStorage) of the old api-key.enc and of MCP sign-ins', () => {
  it('opens what safeStorage sealed', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rein-keychain-'));
    const cipher = safeStorageCipher('darwin');
    await writeFile(apiKeyFile(home), await cipher.encrypt(KEY));
    expect(safeStorage.encryptStringAsync).toHaveBeenCalledWith(KEY);
    expect((await readFile(apiKeyFile(home))).toString('utf8')).not.toContain(KEY);
    await expect(loadLegacyApiKey(home, cipher)).resolves.toBe(KEY);
  });

  it('counts Linux’s basic_text backend (a built-in password) as no encryption', async () => {
    safeStorage.backend = 'basic_text';
    await expect(safeStorageCipher('linux').canEncrypt()).resolves.toBe(false);
    safeStorage.backend = 'gnome_libsecret';
    await expect(safeStorageCipher('linux').canEncrypt()).resolves.toBe(true);
    safeStorage.backend = 'basic_text'; // only Linux has backends
    await expect(safeStorageCipher('darwin').canEncrypt()).resolves.toBe(true);
  });
});

describe('before a headless launchd run', () => {
  it('moves the app’s old api-key.enc into the store the run reads', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rein-headless-'));
    await writeFile(apiKeyFile(home), await safeStorageCipher().encrypt(KEY));
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await migrateLegacyKeyForHeadlessRun(home, { HOME: home, PATH: process.env.PATH });
    } finally {
      stderr.mockRestore();
    }
    await expect(readFile(apiKeyFile(home))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(join(home, 'secrets', 'anthropic-api-key'), 'utf8')).toBe(`${KEY}\n`);
  });

  it('does nothing (not even wait for the app) without the old file', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rein-headless-'));
    await migrateLegacyKeyForHeadlessRun(home, {});
    expect(safeStorage.decryptStringAsync).not.toHaveBeenCalled();
  });
});
