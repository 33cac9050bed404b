import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { resetElectronMock, safeStorage } from '../../support/electronMock.js';
import { apiKeyFile, loadApiKey, saveApiKey } from '../../../src-main/core/desktop/apiKeyStore.js';
import { safeStorageCipher } from '../../../src-main/shell/keychain.js';

const KEY = 'sk-ant-api03-0123456789abcdefghijklmnop';

beforeEach(() => resetElectronMock());

describe('API key in the keychain (safeStorage)', () => {
  it('stores the key sealed by safeStorage, never as plain text, and reads it back', async () => {
    const home = await mkdtemp(join(tmpdir(), 'rein-keychain-'));
    const cipher = safeStorageCipher('darwin');
    await saveApiKey(home, cipher, KEY);
    expect(safeStorage.encryptStringAsync).toHaveBeenCalledWith(KEY);
    expect((await readFile(apiKeyFile(home))).toString('utf8')).not.toContain(KEY);
    await expect(loadApiKey(home, cipher)).resolves.toBe(KEY);
  });

  it('refuses to store when safeStorage has no encryption', async () => {
    safeStorage.available = false;
    const home = await mkdtemp(join(tmpdir(), 'rein-keychain-'));
    await expect(saveApiKey(home, safeStorageCipher('darwin'), KEY)).rejects.toThrow(/no keychain encryption/);
    expect(safeStorage.encryptStringAsync).not.toHaveBeenCalled();
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
