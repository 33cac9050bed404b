/**
 * USD per million tokens. Cache writes cost 1.25× input with the 5-minute TTL and 2× input with the
 * 1-hour TTL, cache reads 0.1× input, unless a row says otherwise (the provider's multipliers). The API
 * says how many of a request's written tokens went to each TTL (`usage.cache_creation`); a request
 * whose marks were all 1-hour and whose server does not say counts them all as 1-hour writes. Unknown models fall back to the most expensive family we know of a similar name,
 * or to the Sonnet row, so a cost cap errs on the safe side; `prices` in config.yaml can add models.
 * A model served on this machine or the local network (a base URL on loopback, a private or link-local
 * address, a `.local` name: isLocalModelServer) costs $0 unless `prices` names it: a local server is
 * not billed per token, and a proxy there that forwards to a paid API sets `prices` for its models.
 */
import { isIP } from 'node:net';
import type { UsageTotals } from '../api/events.js';
import { isLocalOrWildcard } from '../util/loopback.js';

export interface Price {
  input: number;
  output: number;
  /** 5-minute cache writes. */
  cache_write?: number;
  /** 1-hour cache writes. */
  cache_write_1h?: number;
  cache_read?: number;
}

// Matched by prefix, longest first.
const TABLE: Array<[prefix: string, price: Price]> = [
  ['claude-opus-4-5', { input: 5, output: 25 }],
  ['claude-opus-4-6', { input: 5, output: 25 }],
  ['claude-opus-4-1', { input: 15, output: 75 }],
  ['claude-opus-4', { input: 15, output: 75 }],
  ['claude-3-opus', { input: 15, output: 75 }],
  ['claude-sonnet', { input: 3, output: 15 }],
  ['claude-3-7-sonnet', { input: 3, output: 15 }],
  ['claude-3-5-sonnet', { input: 3, output: 15 }],
  ['claude-haiku-4', { input: 1, output: 5 }],
  ['claude-3-5-haiku', { input: 0.8, output: 4 }],
  ['claude-3-haiku', { input: 0.25, output: 1.25 }],
  ['claude-opus', { input: 5, output: 25 }],
  ['claude-haiku', { input: 1, output: 5 }],
];
const SORTED = [...TABLE].sort((a, b) => b[0].length - a[0].length);
const FALLBACK: Price = { input: 3, output: 15 };

/** What a model on a local server costs when `prices` does not say. */
export const LOCAL_PRICE: Price = Object.freeze({
  input: 0,
  output: 0,
  cache_write: 0,
  cache_write_1h: 0,
  cache_read: 0,
});

/**
 * `prices.<model>` when config has it; else $0 for a local server (`local`); else the table's row for
 * the model, or the Sonnet row.
 */
export function priceFor(model: string, overrides: Record<string, Price> = {}, o: { local?: boolean } = {}): Price {
  // Own keys only: a model called `constructor` must not find Object.prototype's.
  if (Object.hasOwn(overrides, model) && overrides[model]) return overrides[model];
  if (o.local) return LOCAL_PRICE;
  const m = model.toLowerCase();
  for (const [prefix, price] of SORTED) if (m.startsWith(prefix)) return price;
  return FALLBACK;
}

/**
 * Whether a base URL points at this machine or the local network: loopback (and `localhost`), the
 * private IPv4 ranges (10/8, 172.16/12, 192.168/16), link-local (169.254/16, fe80::/10), IPv6 unique
 * local (fc00::/7) and mDNS names (`*.local`). No base URL is the Anthropic API: not local.
 */
export function isLocalModelServer(baseURL: string | undefined): boolean {
  if (!baseURL) return false;
  let host: string;
  try {
    host = new URL(baseURL).hostname
      .toLowerCase()
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '');
  } catch {
    return false;
  }
  if (isLocalOrWildcard(host) || host.endsWith('.local')) return true;
  if (isIP(host) === 4) {
    const [a, b] = host.split('.').map(Number) as [number, number];
    return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  if (isIP(host) === 6) return /^f[cd][0-9a-f]{2}:/.test(host) || /^fe[89ab][0-9a-f]:/.test(host);
  return false;
}

export interface RequestUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  /** All cache writes, whatever their TTL. */
  cacheCreationTokens: number;
  /** The part of cacheCreationTokens written with the 1-hour TTL (absent: none, or not reported). */
  cacheCreation1hTokens?: number;
}

export const CACHE_WRITE_5M_FACTOR = 1.25;
export const CACHE_WRITE_1H_FACTOR = 2;
export const CACHE_READ_FACTOR = 0.1;

export function costOf(usage: RequestUsage, price: Price): number {
  const perTok = (usd: number) => usd / 1_000_000;
  const oneHour = Math.min(Math.max(0, usage.cacheCreation1hTokens ?? 0), usage.cacheCreationTokens);
  return (
    usage.inputTokens * perTok(price.input) +
    usage.outputTokens * perTok(price.output) +
    (usage.cacheCreationTokens - oneHour) * perTok(price.cache_write ?? price.input * CACHE_WRITE_5M_FACTOR) +
    oneHour * perTok(price.cache_write_1h ?? price.input * CACHE_WRITE_1H_FACTOR) +
    usage.cacheReadTokens * perTok(price.cache_read ?? price.input * CACHE_READ_FACTOR)
  );
}

export function addUsage(total: UsageTotals, req: RequestUsage, costUsd: number): UsageTotals {
  return {
    input_tokens: total.input_tokens + req.inputTokens,
    output_tokens: total.output_tokens + req.outputTokens,
    cache_read_tokens: total.cache_read_tokens + req.cacheReadTokens,
    cache_creation_tokens: total.cache_creation_tokens + req.cacheCreationTokens,
    cost_usd: total.cost_usd + costUsd,
    requests: total.requests + 1,
  };
}

/** Share of all input tokens that were served from the cache. */
export function cacheHitRatio(u: UsageTotals): number {
  const all = u.input_tokens + u.cache_read_tokens + u.cache_creation_tokens;
  return all === 0 ? 0 : u.cache_read_tokens / all;
}
