/**
 * The model API key every run uses, wherever it starts (the CLI, the daemon, the desktop app, a launchd
 * job that has only its plist's environment): ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) when this
 * process has it, else the key stored with `rein auth set-key` or the app's Settings.
 *
 * Where a stored key lives (docs/configuration.md, *The API key*):
 *   macOS   the Keychain (keychainStore.ts)
 *   Linux   the Secret Service when one is running (libsecretStore.ts), else
 *           REIN_HOME/secrets/anthropic-api-key, 0600 in a 0700 folder, plain text at rest (fileStore.ts)
 * A key is written to the first of those that can take it, and read from all of them in that order, so a
 * key filed while no Secret Service ran is still found after one starts.
 *
 * The stored key is never put into an environment: runs get it from here, so the programs a run starts
 * (the bash tool, hooks, MCP servers) cannot inherit it (process/childEnv.ts strips the variables too).
 *
 * Reading the Keychain costs a process (10–30 ms): the stored key is read lazily, when a model client is
 * about to be made and the environment has no key, and kept per REIN_HOME — a key found for
 * HIT_TTL_MS, no key for MISS_TTL_MS, so a long-lived process (the daemon) picks up a key stored after
 * it started within seconds, and a replaced one within minutes. This process's own writes take effect
 * at once.
 */
import { resolve } from 'node:path';
import { ApiKeyText } from '../api/desktopApi.js';
import { ReinError, errorMessage, isReinError } from '../errors.js';
import { fileKeyStore } from './fileStore.js';
import { keychainKeyStore } from './keychainStore.js';
import type { KeyStore, KeyStoreKind } from './keyStore.js';
import { libsecretKeyStore } from './libsecretStore.js';

export type KeySource = 'env' | KeyStoreKind;

/** How long a found key / no key is believed before the stores are read again. */
export const HIT_TTL_MS = 5 * 60_000;
export const MISS_TTL_MS = 5_000;

export interface KeyStoreOptions {
  /** Default: process.platform. */
  platform?: NodeJS.Platform;
  /** Programs in place of `/usr/bin/security` and `secret-tool` (tests). */
  securityPath?: string;
  secretTool?: string;
  /** The stores in reading order, instead of the platform's (tests). */
  stores?: KeyStore[];
  /** The clock of the cache (tests). */
  now?: () => number;
}

/** The platform's stores in reading (and writing) order; the file is always last. */
export function keyStores(env: NodeJS.ProcessEnv, home: string, o: KeyStoreOptions = {}): KeyStore[] {
  if (o.stores) return o.stores;
  const platform = o.platform ?? process.platform;
  const file = fileKeyStore(home);
  if (platform === 'darwin')
    return [keychainKeyStore({ env, home, ...(o.securityPath ? { securityPath: o.securityPath } : {}) }), file];
  if (platform === 'win32') return [file];
  return [libsecretKeyStore({ env, home, ...(o.secretTool ? { secretTool: o.secretTool } : {}) }), file];
}

/** A Secret Service that is not there is no problem: the next store is asked. */
const notThere = (e: unknown): boolean => isReinError(e, 'unavailable') && e.details?.noService === true;

export interface StoredKey {
  key?: string;
  store?: KeyStore;
  /** Stores that could not be read (the Keychain locked, a file unreadable), in words. */
  problems: string[];
}

/** Reads the stores in order, now (no cache). */
export async function findStoredKey(env: NodeJS.ProcessEnv, home: string, o: KeyStoreOptions = {}): Promise<StoredKey> {
  const problems: string[] = [];
  for (const store of keyStores(env, home, o)) {
    if (store.kind === 'keychain' && !(await store.usable()).usable) continue;
    try {
      const key = await store.read();
      if (key) return { key, store, problems };
    } catch (e) {
      if (!notThere(e)) problems.push(errorMessage(e));
    }
  }
  return { problems };
}

interface CacheEntry {
  at: number;
  value?: StoredKey;
  pending?: Promise<StoredKey>;
}
const cache = new Map<string, CacheEntry>();

/** The next read of this home's stored key (every home's, without one) goes to the stores. */
export function forgetStoredKey(home?: string): void {
  if (home === undefined) cache.clear();
  else cache.delete(resolve(home));
}

async function cachedStoredKey(env: NodeJS.ProcessEnv, home: string, o: KeyStoreOptions): Promise<StoredKey> {
  const now = o.now ?? Date.now;
  const id = resolve(home);
  const entry = cache.get(id);
  if (entry?.pending) return entry.pending;
  if (entry?.value && now() - entry.at < (entry.value.key ? HIT_TTL_MS : MISS_TTL_MS)) return entry.value;
  const fresh: CacheEntry = { at: now() };
  fresh.pending = findStoredKey(env, home, o).then(
    (value) => {
      if (cache.get(id) === fresh) {
        fresh.value = value;
        fresh.at = now();
        delete fresh.pending;
      }
      return value;
    },
    (e: unknown) => {
      if (cache.get(id) === fresh) cache.delete(id);
      throw e;
    },
  );
  cache.set(id, fresh);
  return fresh.pending;
}

export interface ResolvedKey {
  key?: string;
  source?: KeySource;
  /** Where the stored key was found ("the macOS Keychain (…)", a file path). */
  where?: string;
  /** Why no stored key could be read, when a store failed to answer. */
  problem?: string;
}

/** The key a model request of this process sends: the environment's, else the stored one (cached). */
export async function resolveApiKey(
  env: NodeJS.ProcessEnv,
  home: string,
  o: KeyStoreOptions & { storedKey?: boolean } = {},
): Promise<ResolvedKey> {
  const fromEnv = envApiKey(env);
  if (fromEnv) return { key: fromEnv, source: 'env' };
  if (o.storedKey === false) return {};
  const stored = await cachedStoredKey(env, home, o);
  if (stored.key && stored.store) return { key: stored.key, source: stored.store.kind, where: stored.store.where };
  return stored.problems.length > 0 ? { problem: stored.problems.join('; ') } : {};
}

/** ANTHROPIC_API_KEY, else ANTHROPIC_AUTH_TOKEN, trimmed; undefined when neither is set. */
export function envApiKey(env: NodeJS.ProcessEnv): string | undefined {
  return env.ANTHROPIC_API_KEY?.trim() || env.ANTHROPIC_AUTH_TOKEN?.trim() || undefined;
}

/**
 * A key as given on stdin or typed: one trailing line end is dropped, anything else that cannot be a key
 * is refused with what is wrong (field `key`).
 */
export function checkApiKey(text: string): string {
  const bad = (why: string) => new ReinError('invalid_input', `key: ${why}`, { field: 'key' });
  const s = text.replace(/\r?\n$/, '');
  if (s.trim() === '') throw bad('no key was given');
  if (/[\r\n]/.test(s)) throw bad('more than one line: give the key alone, on one line');
  if (/\s/.test(s)) throw bad('must be one token without spaces');
  if (/^(["']).*\1$/.test(s)) throw bad('give the key without quotes');
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(s)) throw bad('give the key itself, not an assignment (ANTHROPIC_API_KEY=…)');
  const parsed = ApiKeyText.safeParse(s);
  if (!parsed.success) throw bad(parsed.error.issues[0]?.message ?? 'is not an API key');
  return parsed.data;
}

export interface WriteTarget {
  store: KeyStore;
  /** Why an encrypted store before it could not be used (the file store is then the place). */
  fallbackReason?: string;
}

/** Where a key stored now would go: the first store that can take one. */
export async function keyWriteTarget(
  env: NodeJS.ProcessEnv,
  home: string,
  o: KeyStoreOptions = {},
): Promise<WriteTarget> {
  const reasons: string[] = [];
  const stores = keyStores(env, home, o);
  for (const store of stores) {
    if (store === stores[stores.length - 1])
      return { store, ...(reasons.length > 0 ? { fallbackReason: reasons.join('; ') } : {}) };
    const u = await store.usable();
    if (u.usable) return { store };
    reasons.push(u.reason);
  }
  throw new ReinError('internal', 'no key store is configured');
}

export interface StoredResult extends WriteTarget {
  /** Older copies removed from the stores after it (a file kept while no Secret Service ran). */
  removedFrom: KeyStoreKind[];
  /** Copies that could not be removed. */
  problems: string[];
}

/** Checks the key, writes it where keyWriteTarget says, confirms it and removes copies in later stores. */
export async function storeApiKey(
  env: NodeJS.ProcessEnv,
  home: string,
  text: string,
  o: KeyStoreOptions = {},
): Promise<StoredResult> {
  const key = checkApiKey(text);
  const target = await keyWriteTarget(env, home, o);
  try {
    await target.store.write(key);
    if ((await target.store.read()) !== key)
      throw new ReinError('unavailable', `${target.store.where} did not keep the key`);
  } finally {
    forgetStoredKey(home);
  }
  const stores = keyStores(env, home, o);
  const removedFrom: KeyStoreKind[] = [];
  const problems: string[] = [];
  for (const other of stores.slice(stores.findIndex((s) => s.kind === target.store.kind) + 1)) {
    try {
      if (await other.remove()) removedFrom.push(other.kind);
    } catch (e) {
      if (!notThere(e)) problems.push(errorMessage(e));
    }
  }
  return { ...target, removedFrom, problems };
}

/** Removes the stored key from every store that holds it; throws when a store could not be changed. */
export async function removeStoredApiKey(
  env: NodeJS.ProcessEnv,
  home: string,
  o: KeyStoreOptions = {},
): Promise<KeyStore[]> {
  const removed: KeyStore[] = [];
  const problems: string[] = [];
  for (const store of keyStores(env, home, o)) {
    if (store.kind === 'keychain' && !(await store.usable()).usable) continue;
    try {
      if (await store.remove()) removed.push(store);
    } catch (e) {
      if (!notThere(e)) problems.push(errorMessage(e));
    }
  }
  forgetStoredKey(home);
  if (problems.length > 0) {
    throw new ReinError(
      'unavailable',
      `${problems.join('; ')}${removed.length > 0 ? ` (removed from ${removed.map((s) => s.where).join(', ')})` : ''}`,
    );
  }
  return removed;
}

/** `rein auth status --json`: exactly these fields. */
export interface KeyStatus {
  stored: boolean;
  store: KeyStoreKind | null;
  env: boolean;
}

export async function apiKeyStatus(
  env: NodeJS.ProcessEnv,
  home: string,
  o: KeyStoreOptions = {},
): Promise<{ status: KeyStatus; where?: string; problems: string[] }> {
  const found = await findStoredKey(env, home, o);
  return {
    status: { stored: found.key !== undefined, store: found.store?.kind ?? null, env: envApiKey(env) !== undefined },
    ...(found.store ? { where: found.store.where } : {}),
    problems: found.problems,
  };
}

/** A store's name as a person reads it. */
export function storeName(kind: KeyStoreKind): string {
  return kind === 'keychain'
    ? 'the macOS Keychain'
    : kind === 'libsecret'
      ? 'the Secret Service (libsecret)'
      : 'a file';
}
