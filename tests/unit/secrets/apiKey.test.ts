/**
 * Which key a run uses and where a stored key goes (core/secrets/apiKey.ts), with real stores: the
 * file store, and the platform stores through the stand-ins of `security` and `secret-tool`.
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  HIT_TTL_MS,
  MISS_TTL_MS,
  apiKeyStatus,
  checkApiKey,
  keyWriteTarget,
  removeStoredApiKey,
  resolveApiKey,
  storeApiKey,
  type KeyStoreOptions,
} from '../../../src-main/core/secrets/apiKey.js';
import { apiKeyFilePath, fileKeyStore } from '../../../src-main/core/secrets/fileStore.js';
import type { KeyStore } from '../../../src-main/core/secrets/keyStore.js';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { resolveModelAccess } from '../../../src-main/core/runtime/runtime.js';

const FAKE_SECURITY = resolve(__dirname, '../../fixtures/secrets/fake-security.mjs');
const FAKE_SECRET_TOOL = resolve(__dirname, '../../fixtures/secrets/fake-secret-tool.mjs');
const KEY = 'sk-ant-api03-stored-0123456789abcdef';

/** A Linux with a Secret Service (the stand-in), a HOME for it and a REIN_HOME. */
async function linux(opts: { service?: boolean } = {}) {
  const root = await mkdtemp(join(tmpdir(), 'rein-apikey-'));
  const env: NodeJS.ProcessEnv = {
    HOME: root,
    PATH: process.env.PATH,
    ...(opts.service === false ? {} : { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/fake/bus' }),
  };
  const o: KeyStoreOptions = { platform: 'linux', secretTool: FAKE_SECRET_TOOL };
  const secrets = async () =>
    JSON.parse(await readFile(join(root, '.fake-secrets.json'), 'utf8').catch(() => '{}')) as Record<string, string>;
  return { root, home: join(root, 'rein'), env, o, secrets };
}

/** A store that counts its reads. */
function countingStore(inner: KeyStore): KeyStore & { reads: number } {
  const s = { ...inner, reads: 0, read: async () => (s.reads++, inner.read()) };
  return s;
}

describe('checkApiKey', () => {
  it('drops one trailing line end and takes a key', () => {
    expect(checkApiKey(`${KEY}\n`)).toBe(KEY);
    expect(checkApiKey(`${KEY}\r\n`)).toBe(KEY);
  });

  it.each([
    ['', /no key was given/],
    ['\n', /no key was given/],
    [`${KEY}\n${KEY}\n`, /more than one line/],
    [`${KEY}\n\n`, /more than one line/],
    [` ${KEY}`, /one token without spaces/],
    ['sk-ant api03', /one token without spaces/],
    [`"${KEY}"`, /without quotes/],
    [`ANTHROPIC_API_KEY=${KEY}`, /not an assignment/],
    ['short', /too short/],
    [`sk-ant-${'x'.repeat(600)}`, /too long/],
    ['sk-ant-\u0001control', /printable/],
  ])('refuses %j', (text, why) => {
    expect(() => checkApiKey(text)).toThrow(why);
    try {
      checkApiKey(text);
    } catch (e) {
      expect(e).toMatchObject({ code: 'invalid_input', details: { field: 'key' } });
    }
  });
});

describe('resolveApiKey', () => {
  it('takes ANTHROPIC_API_KEY, then ANTHROPIC_AUTH_TOKEN, over a stored key, without reading any store', async () => {
    const w = await linux();
    const file = countingStore(fileKeyStore(w.home));
    await file.write(KEY);
    expect(await resolveApiKey({ ...w.env, ANTHROPIC_API_KEY: ' env-key ' }, w.home, { stores: [file] })).toEqual({
      key: 'env-key',
      source: 'env',
    });
    expect(await resolveApiKey({ ...w.env, ANTHROPIC_AUTH_TOKEN: 'token' }, w.home, { stores: [file] })).toEqual({
      key: 'token',
      source: 'env',
    });
    expect(file.reads).toBe(0);
    expect(await resolveApiKey(w.env, w.home, { stores: [file] })).toMatchObject({
      key: KEY,
      source: 'file',
      where: apiKeyFilePath(w.home),
    });
  });

  it('reads the Secret Service first, then the file', async () => {
    const w = await linux();
    await fileKeyStore(w.home).write('sk-ant-in-the-file-0123');
    expect(await resolveApiKey(w.env, w.home, w.o)).toMatchObject({ key: 'sk-ant-in-the-file-0123', source: 'file' });
    await storeApiKey(w.env, w.home, KEY, w.o);
    expect(await resolveApiKey(w.env, w.home, w.o)).toMatchObject({ key: KEY, source: 'libsecret' });
  });

  it('reads the Keychain on macOS, and names a Keychain that cannot answer when nothing else has a key', async () => {
    const root = await mkdtemp(join(tmpdir(), 'rein-apikey-mac-'));
    const env = { HOME: root, PATH: process.env.PATH };
    const home = join(root, 'rein');
    const o: KeyStoreOptions = { platform: 'darwin', securityPath: FAKE_SECURITY };
    expect(await storeApiKey(env, home, KEY, o)).toMatchObject({ store: { kind: 'keychain' } });
    expect(await resolveApiKey(env, home, o)).toMatchObject({ key: KEY, source: 'keychain' });
    await writeFile(join(root, '.fake-keychain-locked'), '');
    const other = join(root, 'other-rein');
    expect(await resolveApiKey(env, other, o)).toEqual({
      problem: expect.stringMatching(/macOS Keychain could not be read.*User interaction is not allowed/),
    });
  });

  it('keeps what it read: a found key for minutes, no key for seconds (a key stored later is found)', async () => {
    const w = await linux();
    const file = countingStore(fileKeyStore(w.home));
    let clock = 1_000_000;
    const o: KeyStoreOptions = { stores: [file], now: () => clock };
    expect(await resolveApiKey(w.env, w.home, o)).toEqual({});
    await fileKeyStore(w.home).write(KEY); // another process (`rein auth set-key`)
    expect(await resolveApiKey(w.env, w.home, o)).toEqual({});
    expect(file.reads).toBe(1);
    clock += MISS_TTL_MS;
    expect(await resolveApiKey(w.env, w.home, o)).toMatchObject({ key: KEY });
    clock += HIT_TTL_MS - 1;
    await resolveApiKey(w.env, w.home, o);
    expect(file.reads).toBe(2);
    clock += 1;
    await resolveApiKey(w.env, w.home, o);
    expect(file.reads).toBe(3);
  });

  it('asks the stores once for runs that start together', async () => {
    const w = await linux();
    const file = countingStore(fileKeyStore(w.home));
    await file.write(KEY);
    const answers = await Promise.all([1, 2, 3, 4].map(() => resolveApiKey(w.env, w.home, { stores: [file] })));
    expect(answers.map((a) => a.key)).toEqual([KEY, KEY, KEY, KEY]);
    expect(file.reads).toBe(1);
  });

  it('sees this process’s own store and remove at once', async () => {
    const w = await linux({ service: false });
    expect(await resolveApiKey(w.env, w.home, w.o)).toEqual({});
    await storeApiKey(w.env, w.home, KEY, w.o);
    expect(await resolveApiKey(w.env, w.home, w.o)).toMatchObject({ key: KEY, source: 'file' });
    await removeStoredApiKey(w.env, w.home, w.o);
    expect(await resolveApiKey(w.env, w.home, w.o)).toEqual({});
  });
});

describe('storeApiKey and removeStoredApiKey', () => {
  it('with a Secret Service: stores there and removes an older plain copy from the file', async () => {
    const w = await linux();
    await fileKeyStore(w.home).write('sk-ant-older-plain-copy');
    const r = await storeApiKey(w.env, w.home, `${KEY}\n`, w.o);
    expect(r).toMatchObject({ store: { kind: 'libsecret', encrypted: true }, removedFrom: ['file'], problems: [] });
    expect(r.fallbackReason).toBeUndefined();
    expect(Object.values(await w.secrets())).toEqual([KEY]);
    expect(await fileKeyStore(w.home).read()).toBeUndefined();
  });

  it('without one: the 0600 file, saying why', async () => {
    const w = await linux({ service: false });
    const r = await storeApiKey(w.env, w.home, KEY, w.o);
    expect(r).toMatchObject({
      store: { kind: 'file', encrypted: false },
      fallbackReason: expect.stringMatching(/no Secret Service answers.*no D-Bus session bus/),
    });
    expect(await readFile(apiKeyFilePath(w.home), 'utf8')).toBe(`${KEY}\n`);
    expect(await keyWriteTarget(w.env, w.home, w.o)).toMatchObject({ store: { kind: 'file' } });
  });

  it('refuses what cannot be a key before touching any store', async () => {
    const w = await linux();
    await expect(storeApiKey(w.env, w.home, 'two\nlines', w.o)).rejects.toMatchObject({ code: 'invalid_input' });
    expect(await w.secrets()).toEqual({});
  });

  it('removes the key from every store that holds one, and says when none did', async () => {
    const w = await linux();
    await storeApiKey(w.env, w.home, KEY, w.o);
    await mkdir(join(w.home, 'secrets'), { recursive: true });
    await writeFile(apiKeyFilePath(w.home), 'sk-ant-a-second-copy\n');
    expect((await removeStoredApiKey(w.env, w.home, w.o)).map((s) => s.kind)).toEqual(['libsecret', 'file']);
    expect(await removeStoredApiKey(w.env, w.home, w.o)).toEqual([]);
    expect((await apiKeyStatus(w.env, w.home, w.o)).status).toEqual({ stored: false, store: null, env: false });
  });

  it('status says whether and where a key is stored and whether the environment has one', async () => {
    const w = await linux();
    await storeApiKey(w.env, w.home, KEY, w.o);
    expect((await apiKeyStatus({ ...w.env, ANTHROPIC_API_KEY: 'x' }, w.home, w.o)).status).toEqual({
      stored: true,
      store: 'libsecret',
      env: true,
    });
  });
});

describe('resolveModelAccess', () => {
  const config = (base_url?: string) => GlobalConfig.parse(base_url ? { base_url } : {});

  it('uses the stored key where the environment has none, for the Anthropic API and a loopback server alike', async () => {
    const w = await linux({ service: false });
    await expect(resolveModelAccess(w.env, config(), w.home)).rejects.toMatchObject({
      code: 'no_api_key',
      message: expect.stringMatching(/rein auth set-key/),
    });
    expect(await resolveModelAccess(w.env, config('http://127.0.0.1:9'), w.home)).toEqual({
      apiKey: 'local',
      baseURL: 'http://127.0.0.1:9',
      keySource: 'none',
    });
    await storeApiKey(w.env, w.home, KEY);
    expect(await resolveModelAccess(w.env, config(), w.home)).toEqual({ apiKey: KEY, keySource: 'file' });
    expect(await resolveModelAccess(w.env, config('http://127.0.0.1:9'), w.home)).toEqual({
      apiKey: KEY,
      baseURL: 'http://127.0.0.1:9',
      keySource: 'file',
    });
    expect(await resolveModelAccess({ ...w.env, ANTHROPIC_API_KEY: 'env-key' }, config(), w.home)).toEqual({
      apiKey: 'env-key',
      keySource: 'env',
    });
  });

  it('leaves the stored key out when asked (a connection test to another server)', async () => {
    const w = await linux({ service: false });
    await storeApiKey(w.env, w.home, KEY);
    expect(await resolveModelAccess(w.env, config('http://localhost:9'), w.home, { storedKey: false })).toMatchObject({
      apiKey: 'local',
    });
  });
});
