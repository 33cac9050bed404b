/**
 * The cloud gateway's settings as a delegation uses them: its URL (`cloud.base_url`, or the older
 * `cloud.endpoint`), its API key and the time limits. The key is looked up when a delegation starts,
 * not when the runtime is built, so a key saved or exported later is used by the next call:
 *
 *   1. `cloud.api_key` in config.yaml,
 *   2. the environment: REIN_CLOUD_API_KEY, then SHANNON_API_KEY,
 *   3. a key store (CloudKeyStore): the desktop app may hand its keychain-backed one; otherwise the
 *      file `<REIN_HOME>/secrets/cloud-api-key` (mode 0600; inside Rein's secrets folder, which no tool
 *      may read — core/secrets/reinSecrets.ts).
 *
 * A gateway on this machine (loopback) may go without a key; any other needs one.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GlobalConfig } from '../config/schema.js';
import { REIN_SECRETS_DIR } from '../secrets/reinSecrets.js';
import { isLoopbackHost } from '../util/loopback.js';

export type CloudConfig = GlobalConfig['cloud'];

/** Where the cloud API key is kept when it is not in the config or the environment. */
export interface CloudKeyStore {
  /** The stored key, or undefined when none is stored. May throw when the store cannot be read. */
  cloudApiKey(): Promise<string | undefined>;
  /** Where the store keeps it, for messages ("the system keychain", a file's path). */
  readonly where?: string;
}

export const CLOUD_KEY_FILE = 'cloud-api-key';
export const cloudKeyFile = (home: string): string => join(home, REIN_SECRETS_DIR, CLOUD_KEY_FILE);

/** The key in `<REIN_HOME>/secrets/cloud-api-key` (first line, trimmed); none when the file is missing or empty. */
export function fileCloudKeyStore(home: string): CloudKeyStore {
  return {
    where: cloudKeyFile(home),
    async cloudApiKey() {
      let text: string;
      try {
        text = await readFile(cloudKeyFile(home), 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw e;
      }
      const key = text.split(/\r?\n/, 1)[0]?.trim();
      return key ? key : undefined;
    },
  };
}

export const CLOUD_KEY_ENV = ['REIN_CLOUD_API_KEY', 'SHANNON_API_KEY'] as const;

export interface ResolvedKey {
  key: string | undefined;
  /** Where it came from, for messages (never the key itself). */
  from: 'config' | 'REIN_CLOUD_API_KEY' | 'SHANNON_API_KEY' | 'key store' | 'none';
}

/** The places the key is looked up, in order, for messages. */
export const keySources = (store: string): string =>
  `cloud.api_key in config.yaml, then the environment variables ${CLOUD_KEY_ENV.join(' and ')}, then ${store}`;

export async function resolveCloudKey(
  cloud: CloudConfig,
  env: NodeJS.ProcessEnv,
  store: CloudKeyStore | undefined,
): Promise<ResolvedKey> {
  if (cloud.api_key?.trim()) return { key: cloud.api_key.trim(), from: 'config' };
  for (const name of CLOUD_KEY_ENV) {
    const v = env[name]?.trim();
    if (v) return { key: v, from: name };
  }
  const stored = store ? (await store.cloudApiKey())?.trim() : undefined;
  return stored ? { key: stored, from: 'key store' } : { key: undefined, from: 'none' };
}

/** `cloud.base_url`, else `cloud.endpoint`; an error message when neither is a usable http(s) URL. */
export function cloudBaseUrl(cloud: CloudConfig): { ok: true; url: URL } | { ok: false; message: string } {
  const raw = cloud.base_url ?? cloud.endpoint;
  const field = cloud.base_url !== undefined ? 'cloud.base_url' : 'cloud.endpoint';
  if (raw === undefined || raw.trim() === '') {
    return {
      ok: false,
      message:
        'cloud.enabled is true but cloud.base_url is not set: cloud_delegate needs the gateway URL (docs/cloud.md)',
    };
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, message: `${field} is not a valid URL: ${raw}` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, message: `${field} must be an http or https URL, not ${url.protocol}` };
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return {
      ok: false,
      message: `${field} must be an https URL (the API key would cross the network in clear text over http); plain http is only for a gateway on this machine`,
    };
  }
  if (url.username || url.password)
    return {
      ok: false,
      message: `${field} must not carry a user name or password; put the key in cloud.api_key or REIN_CLOUD_API_KEY`,
    };
  url.search = '';
  url.hash = '';
  return { ok: true, url };
}

/** A gateway on this machine may be used without a key. */
export const keyOptional = (url: URL): boolean => isLoopbackHost(url.hostname);
