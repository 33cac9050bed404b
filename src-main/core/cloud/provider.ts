/**
 * The cloud as a tool provider (source `cloud`): `cloud_delegate` when `cloud.enabled` is set. A
 * configuration that cannot work (no or a bad `cloud.base_url`) makes `tools()` fail with the reason,
 * which the ToolSet reports as a warning at the start of every run; the built-ins are unaffected.
 *
 * The provider and its tool hold no state (a delegation's state lives in the run's session slots), so
 * one provider per configuration is kept: a long-lived process hands the same object to every runtime it
 * builds, and the RuntimeCache keeps its registry (providers are compared by identity).
 */
import { toDisposable, type Disposable } from '../base/lifecycle.js';
import type { ToolProvider } from '../tools/provider.js';
import type { Tool } from '../tools/tool.js';
import { createCloudDelegateTool, type CloudDelegateDeps } from './delegate.js';
import { cloudBaseUrl, fileCloudKeyStore, type CloudConfig, type CloudKeyStore } from './settings.js';

export const CLOUD_PROVIDER_ID = 'cloud';

export class CloudToolProvider implements ToolProvider {
  readonly id = CLOUD_PROVIDER_ID;
  readonly source = 'cloud' as const;
  readonly #tools: readonly Tool[];
  readonly #problem: string | undefined;

  constructor(deps: CloudDelegateDeps) {
    const base = cloudBaseUrl(deps.cloud);
    this.#problem = base.ok ? undefined : base.message;
    this.#tools = base.ok ? Object.freeze([createCloudDelegateTool(deps)]) : [];
  }

  tools(): Promise<readonly Tool[]> {
    return this.#problem ? Promise.reject(new Error(this.#problem)) : Promise.resolve(this.#tools);
  }

  readonly onDidChange = (): Disposable => toDisposable(() => undefined);

  dispose(): void {}
}

export interface CloudProviderOptions {
  cloud: CloudConfig;
  env: NodeJS.ProcessEnv;
  /** REIN_HOME: the default key store is `<home>/secrets/cloud-api-key`. */
  home: string;
  /** A key store of the embedder's (the desktop app's keychain); replaces the file. */
  keys?: CloudKeyStore;
}

interface Kept {
  env: NodeJS.ProcessEnv;
  home: string;
  keys: CloudKeyStore | undefined;
  provider: CloudToolProvider;
}
/** Providers by the config section they were made from (a changed config is a new object). */
const kept = new WeakMap<CloudConfig, Kept[]>();

/** The provider for this configuration: the same object as long as the config, environment, home and key store are. */
export function cloudToolProvider(o: CloudProviderOptions): CloudToolProvider {
  const list = kept.get(o.cloud) ?? [];
  const found = list.find((k) => k.env === o.env && k.home === o.home && k.keys === o.keys);
  if (found) return found.provider;
  const provider = new CloudToolProvider({ cloud: o.cloud, env: o.env, keys: o.keys ?? fileCloudKeyStore(o.home) });
  // A handful per config at most (one per embedder); an unbounded list would mean a caller making envs per run.
  if (list.length >= 8) list.shift();
  list.push({ env: o.env, home: o.home, keys: o.keys, provider });
  kept.set(o.cloud, list);
  return provider;
}
