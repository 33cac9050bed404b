/**
 * The three places a stored API key can live, each for real where this machine has it: the file store
 * (always), libsecret against a real GNOME Keyring on a private session bus (Linux with the packages
 * .ci/run installs; under CI=true a missing package fails instead of skipping), the macOS Keychain on a
 * Mac — and the Keychain and libsecret protocols against stand-ins of `security` and `secret-tool`
 * (tests/fixtures/secrets/) everywhere, so their logic is tested on Linux too.
 */
import { mkdir, mkdtemp, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyFilePath, fileKeyStore } from '../../../src-main/core/secrets/fileStore.js';
import { KEY_ACCOUNT, keyAccount, type KeyStore } from '../../../src-main/core/secrets/keyStore.js';
import { keychainKeyStore } from '../../../src-main/core/secrets/keychainStore.js';
import { libsecretKeyStore, sessionBus } from '../../../src-main/core/secrets/libsecretStore.js';
import { secretServiceMissing, startSecretService, type SecretService } from '../../support/secretService.js';

const FAKE_SECURITY = resolve(__dirname, '../../fixtures/secrets/fake-security.mjs');
const FAKE_SECRET_TOOL = resolve(__dirname, '../../fixtures/secrets/fake-secret-tool.mjs');
const KEY =
  'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-AbCdEfGhIjKlMnOpQrSt';

const temp = (p: string) => mkdtemp(join(tmpdir(), p));

/** What every store must do: nothing, then the key, a replacement, and nothing again. */
async function roundTrip(store: KeyStore): Promise<void> {
  expect(await store.read()).toBeUndefined();
  expect(await store.remove()).toBe(false);
  await store.write(KEY);
  expect(await store.read()).toBe(KEY);
  await store.write('sk-ant-replacement-0123456789');
  expect(await store.read()).toBe('sk-ant-replacement-0123456789');
  expect(await store.remove()).toBe(true);
  expect(await store.read()).toBeUndefined();
  expect(await store.remove()).toBe(false);
}

describe('the file store', () => {
  it('keeps the key in REIN_HOME/secrets/anthropic-api-key, 0600 in a 0700 folder, and round-trips it', async () => {
    const home = await temp('rein-file-store-');
    const store = fileKeyStore(home);
    expect(store).toMatchObject({ kind: 'file', encrypted: false, where: join(home, 'secrets', 'anthropic-api-key') });
    await roundTrip(store);
    await store.write(KEY);
    expect(await readFile(apiKeyFilePath(home), 'utf8')).toBe(`${KEY}\n`);
    expect((await stat(apiKeyFilePath(home))).mode & 0o777).toBe(0o600);
    expect((await stat(join(home, 'secrets'))).mode & 0o777).toBe(0o700);
  });

  it('makes an existing, wider secrets folder its owner’s alone', async () => {
    const home = await temp('rein-file-store-');
    await mkdir(join(home, 'secrets'), { mode: 0o755 });
    await fileKeyStore(home).write(KEY);
    expect((await stat(join(home, 'secrets'))).mode & 0o777).toBe(0o700);
  });

  it('replaces a symlink at its path instead of writing through it', async () => {
    const home = await temp('rein-file-store-');
    const elsewhere = join(await temp('rein-elsewhere-'), 'target');
    await writeFile(elsewhere, 'untouched');
    await mkdir(join(home, 'secrets'), { recursive: true });
    await symlink(elsewhere, apiKeyFilePath(home));
    await fileKeyStore(home).write(KEY);
    expect(await readFile(elsewhere, 'utf8')).toBe('untouched');
    expect(await fileKeyStore(home).read()).toBe(KEY);
  });

  it('reads the first line, trimmed, and an empty file as no key', async () => {
    const home = await temp('rein-file-store-');
    await mkdir(join(home, 'secrets'), { recursive: true });
    await writeFile(apiKeyFilePath(home), `  ${KEY}  \r\nsecond line\n`);
    expect(await fileKeyStore(home).read()).toBe(KEY);
    await writeFile(apiKeyFilePath(home), '\n');
    expect(await fileKeyStore(home).read()).toBeUndefined();
  });
});

describe('the account a key is filed under', () => {
  it('is the plain name for ~/.rein and names any other REIN_HOME', () => {
    expect(keyAccount(join(homedir(), '.rein'))).toBe(KEY_ACCOUNT);
    expect(keyAccount('/tmp/other-home')).toBe(`${KEY_ACCOUNT}:/tmp/other-home`);
  });
});

describe('the Keychain store, against a stand-in for /usr/bin/security', () => {
  const make = async () => {
    const fakeHome = await temp('rein-fake-keychain-');
    const store = keychainKeyStore({
      env: { HOME: fakeHome, PATH: process.env.PATH, ANTHROPIC_API_KEY: 'must-not-pass' },
      home: join(fakeHome, 'rein'),
      securityPath: FAKE_SECURITY,
    });
    const argv = async () =>
      (await readFile(join(fakeHome, '.fake-keychain-argv.log'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as string[]);
    return { fakeHome, store, argv };
  };

  it('round-trips the key, which never appears among the program’s arguments', async () => {
    const { store, argv } = await make();
    expect(store).toMatchObject({ kind: 'keychain', encrypted: true });
    expect(store.where).toMatch(/^the macOS Keychain \(service rein, account anthropic-api-key:/);
    await roundTrip(store);
    const calls = await argv();
    expect(calls.some((a) => a[0] === 'add-generic-password' && a.at(-1) === '-w' && a.includes('-U'))).toBe(true);
    expect(calls.flat().some((a) => a.includes('sk-ant'))).toBe(false);
  });

  it('passes a key longer than the prompt takes as the -w argument, and checks it was kept', async () => {
    const { store, argv } = await make();
    const long = `sk-ant-${'x'.repeat(200)}`;
    await store.write(long);
    expect(await store.read()).toBe(long);
    expect((await argv()).some((a) => a.includes(long))).toBe(true);
  });

  it('reports a keychain that cannot be read as unavailable, with what security said', async () => {
    const { fakeHome, store } = await make();
    await writeFile(join(fakeHome, '.fake-keychain-locked'), '');
    await expect(store.read()).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/could not be read.*exited 36.*User interaction is not allowed/),
    });
    await expect(store.write(KEY)).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('is not usable without the program', async () => {
    const store = keychainKeyStore({ env: {}, home: '/tmp/x', securityPath: '/nonexistent/security' });
    await expect(store.usable()).resolves.toEqual({ usable: false, reason: '/nonexistent/security is missing' });
  });
});

describe.runIf(process.platform === 'darwin')('the Keychain store, for real (macOS)', () => {
  it('round-trips a key in the login keychain under this REIN_HOME’s own account', async () => {
    const home = await temp('rein-keychain-real-');
    const store = keychainKeyStore({ env: process.env, home });
    try {
      await roundTrip(store);
    } finally {
      await store.remove().catch(() => undefined);
    }
  });
});

describe('the libsecret store, against a stand-in for secret-tool', () => {
  const make = async (bus = 'unix:path=/fake/bus') => {
    const fakeHome = await temp('rein-fake-secrets-');
    const env = { HOME: fakeHome, PATH: process.env.PATH, ...(bus ? { DBUS_SESSION_BUS_ADDRESS: bus } : {}) };
    return { fakeHome, store: libsecretKeyStore({ env, home: join(fakeHome, 'rein'), secretTool: FAKE_SECRET_TOOL }) };
  };

  it('round-trips the key (sent on stdin without a line end)', async () => {
    const { fakeHome, store } = await make();
    await roundTrip(store);
    await store.write(KEY);
    const saved = JSON.parse(await readFile(join(fakeHome, '.fake-secrets.json'), 'utf8')) as Record<string, string>;
    expect(Object.values(saved)).toEqual([KEY]);
    expect(Object.keys(saved)[0]!.split('\u0000').slice(0, 3)).toEqual(['service', 'rein', 'account']);
    expect(Object.keys(saved)[0]!.split('\u0000')[3]).toMatch(/^anthropic-api-key:/);
  });

  it('without a session bus starts nothing and says there is no Secret Service', async () => {
    const { store } = await make('');
    expect(sessionBus({})).toBeUndefined();
    await expect(store.usable()).resolves.toEqual({
      usable: false,
      reason: 'no Secret Service answers (no D-Bus session bus in this environment)',
    });
    await expect(store.read()).rejects.toMatchObject({ code: 'unavailable', details: { noService: true } });
  });

  it('with a bus but no service, fails fast with secret-tool’s message', async () => {
    const { fakeHome, store } = await make();
    await writeFile(join(fakeHome, '.fake-no-service'), '');
    const u = await store.usable();
    expect(u).toMatchObject({ usable: false, reason: expect.stringMatching(/not provided by any \.service files/) });
  });

  it('without secret-tool installed is not usable', async () => {
    const store = libsecretKeyStore({
      env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/x', PATH: '/nonexistent' },
      home: '/tmp/x',
      secretTool: 'secret-tool',
    });
    await expect(store.usable()).resolves.toMatchObject({
      usable: false,
      reason: expect.stringMatching(/secret-tool is not installed/),
    });
  });
});

const missing = process.platform === 'linux' ? secretServiceMissing() : 'not Linux';
// On CI the packages are installed by .ci/run: a missing one is a failure there, not a skip.
describe.runIf(process.platform === 'linux' && (!missing || process.env.CI === 'true'))(
  'the libsecret store, against a real Secret Service (GNOME Keyring)',
  () => {
    let service: SecretService;
    beforeAll(async () => {
      if (missing) throw new Error(`a real Secret Service is needed under CI=true (${missing})`);
      service = await startSecretService();
    });
    afterAll(async () => service?.close());

    it('round-trips the key through secret-tool', async () => {
      await roundTrip(libsecretKeyStore({ env: service.env, home: join(service.home, 'rein') }));
    });

    it('keeps the keys of two REIN_HOMEs apart', async () => {
      const a = libsecretKeyStore({ env: service.env, home: join(service.home, 'a') });
      const b = libsecretKeyStore({ env: service.env, home: join(service.home, 'b') });
      await a.write(KEY);
      expect(await b.read()).toBeUndefined();
      expect(await a.read()).toBe(KEY);
      await a.remove();
    });
  },
);
