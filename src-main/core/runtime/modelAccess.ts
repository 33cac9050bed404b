/**
 * The model a run talks to: which key and address (resolveModelAccess), and the model client made from
 * them, shared per key and pace function in long-lived processes (RuntimeCache).
 */
import { ReinError } from '../errors.js';
import type { GlobalConfig } from '../config/schema.js';
import { paths } from '../config/paths.js';
import { AnthropicLlm, type LlmClient } from '../llm/client.js';
import { isLocalOrWildcard } from '../util/loopback.js';
import { resolveApiKey, type KeySource } from '../secrets/apiKey.js';
import type { RuntimeCache } from './runtimeCache.js';

export interface ModelAccess {
  apiKey: string;
  baseURL?: string;
  /** Where the key came from: the environment, a key store (secrets/apiKey.ts), or none (a local server). */
  keySource: KeySource | 'none';
}

/**
 * The key is ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), else the stored one (`rein auth set-key`, the
 * app's Settings: secrets/apiKey.ts), sent to the configured base URL wherever it is; without either, a
 * loopback base URL (a local compatible server) needs none. The stored key is read only here, when a
 * model client is about to be made, and never put into `env`.
 */
export async function resolveModelAccess(
  env: NodeJS.ProcessEnv,
  config: GlobalConfig,
  home: string,
  o: { storedKey?: boolean } = {},
): Promise<ModelAccess> {
  const baseURL = config.base_url ?? (env.ANTHROPIC_BASE_URL?.trim() || undefined);
  const found = await resolveApiKey(env, home, { storedKey: o.storedKey ?? true });
  if (found.key && found.source) return { apiKey: found.key, ...(baseURL ? { baseURL } : {}), keySource: found.source };
  if (baseURL) {
    try {
      if (isLocalOrWildcard(new URL(baseURL).hostname)) return { apiKey: 'local', baseURL, keySource: 'none' };
    } catch {
      throw new ReinError('config_invalid', `ANTHROPIC_BASE_URL is not a valid URL: ${baseURL}`);
    }
  }
  throw new ReinError(
    'no_api_key',
    `No API key: run \`rein auth set-key\` (or set ANTHROPIC_API_KEY, or point ANTHROPIC_BASE_URL / base_url in ${paths.globalConfig(home)} at a local Anthropic-compatible server).` +
      (found.problem ? ` The stored key could not be read: ${found.problem}.` : ''),
  );
}

export async function modelClient(
  env: NodeJS.ProcessEnv,
  config: GlobalConfig,
  home: string,
  cache: RuntimeCache | undefined,
  pace: (() => Promise<void> | undefined) | undefined,
): Promise<LlmClient> {
  const options = await modelClientOptions(env, config, home);
  if (!cache) return new AnthropicLlm(options);
  // A paced client shares one transport per pace function: its streamed bytes wait for the daemon's Turnstile.
  const make = () => new AnthropicLlm({ ...options, ...(pace ? { fetch: cache.pacedFetch(pace) } : {}) });
  // Keyed by what the options are made of, so a cached client costs no parsing; a changed key or URL makes a new one.
  const key = [
    options.baseURL,
    options.apiKey,
    env.REIN_RETRY_BASE_MS,
    env.REIN_LLM_IDLE_MS,
    home,
    pace ? 'paced' : '',
  ].join('\0');
  return cache.llm(key, make);
}

async function modelClientOptions(env: NodeJS.ProcessEnv, config: GlobalConfig, home: string) {
  const { keySource: _source, ...access } = await resolveModelAccess(env, config, home);
  return {
    ...access,
    ...(numberEnv(env.REIN_RETRY_BASE_MS) !== undefined ? { baseDelayMs: numberEnv(env.REIN_RETRY_BASE_MS)! } : {}),
    ...(numberEnv(env.REIN_LLM_IDLE_MS) !== undefined ? { idleTimeoutMs: numberEnv(env.REIN_LLM_IDLE_MS)! } : {}),
  };
}

export function numberEnv(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
