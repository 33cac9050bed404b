/**
 * Folder trust: which settings of a project overlay (`<folder>/.rein/config.yaml`) apply before the
 * person has said they trust that folder. The overlay usually arrives with a repository someone else
 * wrote, so it must not be able to run a program, widen what the agent may do or send the API key
 * somewhere just because Rein was started in that folder (docs/permissions.md, *Threat model*).
 *
 * An overlay's settings fall in two groups, decided here against the global config it is laid over:
 *
 * - **raising**: anything that runs a program (`hooks.*`, `mcp_servers.*`), widens powers (a more
 *   permissive `permissions.mode`, entries added to `allowed_commands`, `allowed_dirs`,
 *   `always_allow_tools`, `network_allowlist`, `gui_unattended`, `tools.env_passthrough`, a wider
 *   `tools.allowed`, `unattended_approvals: ask`, `gui.enabled`), redirects traffic (`base_url`,
 *   `cloud.*`), changes what the daemon does (`daemon.*`, `schedule.*`), or lets a run spend more (a
 *   higher `max_iterations` or `budget.max_usd_per_run`, `0` = no cap, a lower `prices` entry). A key this
 *   module has no rule for is raising too, so a setting added to the schema later starts out safe.
 * - **safe**: model choice and sampling (`model`, `small_model`, `max_tokens`, `context_window`,
 *   `temperature`), tool limits, and everything that only narrows: a stricter mode, more
 *   `denied_commands`, `sensitive_patterns` or `tools.denied` (lists append on merge, so an overlay can
 *   only add to them), an MCP server turned off, a lower cap. A value equal to the global one changes
 *   nothing and is safe whatever its key.
 *
 * The safe part always applies; the raising part only once the folder is trusted for exactly these
 * bytes (sha256 of the file), so an overlay that changes asks again. Pure: no file is read here
 * (config/load.ts reads, config/trustedFolders.ts remembers).
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { PermissionMode } from '../api/patterns.js';
import { sameBaseUrl } from '../util/baseUrl.js';
import type { RawConfig } from './merge.js';
import { McpServerConfig, type GlobalConfig } from './schema.js';

/** One raising setting of an overlay: its dotted key as written (`hooks.SessionStart`, `mcp_servers.x`) and value. */
export interface RaisingSetting {
  key: string;
  value: unknown;
}

export interface OverlaySplit {
  /** The overlay without its raising settings: what applies in a folder nobody trusted. */
  safe: RawConfig;
  raising: RaisingSetting[];
}

/**
 * Least to most permissive: the same order as permissions/raises.ts's MODE_RANK (config may not import
 * permissions; tests/unit/config/folderTrust.test.ts pins that the two agree).
 */
export const OVERLAY_MODE_RANK: Readonly<Record<PermissionMode, number>> = {
  plan: 0,
  dontAsk: 1,
  default: 2,
  acceptEdits: 3,
  bypassPermissions: 4,
};

/** The lowest iteration cap an origin has by default (remote and unattended runs: 25). */
const LOWEST_DEFAULT_ITERATIONS = 25;

/** The sha256 of an overlay's bytes, hex: what a trust decision is bound to. */
export function overlayHash(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Splits `overlay` (one validated layer, raw) into what applies untrusted and what waits for trust. */
export function splitOverlay(global: GlobalConfig, overlay: RawConfig): OverlaySplit {
  const safe: RawConfig = {};
  const raising: RaisingSetting[] = [];
  const keep = (target: RawConfig, key: string, value: unknown) =>
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  const g = global as unknown as Record<string, unknown>;

  for (const [key, value] of Object.entries(overlay)) {
    if (value === undefined) continue;
    const section = Object.hasOwn(SECTIONS, key) ? SECTIONS[key] : undefined;
    if (isPlainObject(value) && section) {
      const part: RawConfig = {};
      for (const [sub, subValue] of Object.entries(value)) {
        if (subValue === undefined) continue;
        const dotted = `${key}.${sub}`;
        if (section(sub, subValue, global)) raising.push({ key: dotted, value: subValue });
        else keep(part, sub, subValue);
      }
      if (Object.keys(part).length > 0) keep(safe, key, part);
      continue;
    }
    const rule = Object.hasOwn(TOP, key) ? TOP[key] : undefined;
    const raises = rule ? rule(value, global) : !(Object.hasOwn(g, key) && isDeepStrictEqual(value, g[key]));
    if (raises) raising.push({ key, value });
    else keep(safe, key, value);
  }
  return { safe, raising };
}

type TopRule = (value: unknown, global: GlobalConfig) => boolean;
/** (sub-key, value, global) → raises? */
type SectionRule = (sub: string, value: unknown, global: GlobalConfig) => boolean;

const never: TopRule = () => false;

const TOP: Record<string, TopRule> = {
  model: never,
  small_model: never,
  max_tokens: never,
  context_window: never,
  temperature: never,
  max_iterations: (v, g) => typeof v !== 'number' || v > (g.max_iterations ?? LOWEST_DEFAULT_ITERATIONS),
  unattended_approvals: (v, g) => v === 'ask' && g.unattended_approvals !== 'ask',
  // The API key and every conversation would go there.
  base_url: (v, g) => !(typeof v === 'string' && g.base_url !== undefined && sameBaseUrl(g.base_url, v)),
};

const adds = (v: unknown, existing: readonly unknown[]): boolean =>
  !Array.isArray(v) || v.some((item) => !existing.some((e) => isDeepStrictEqual(e, item)));

const SECTIONS: Record<string, SectionRule> = {
  permissions: (sub, v, g) => {
    const p = g.permissions;
    switch (sub) {
      case 'mode':
        return !(
          typeof v === 'string' &&
          v in OVERLAY_MODE_RANK &&
          OVERLAY_MODE_RANK[v as PermissionMode] <= OVERLAY_MODE_RANK[p.mode]
        );
      case 'allowed_commands':
      case 'allowed_dirs':
      case 'network_allowlist':
      case 'always_allow_tools':
      case 'gui_unattended':
        return adds(v, p[sub]);
      // Lists append: more denials and more sensitive patterns only narrow.
      case 'denied_commands':
      case 'sensitive_patterns':
      case 'approval_timeout_seconds':
        return false;
      default:
        return true;
    }
  },
  tools: (sub, v, g) => {
    const t = g.tools;
    switch (sub) {
      // An empty list allows every tool: entries added to it narrow; added to a list that names some, they widen.
      case 'allowed':
        return t.allowed.length > 0 && adds(v, t.allowed);
      case 'env_passthrough':
        return adds(v, t.env_passthrough);
      case 'denied':
      case 'result_budget':
      case 'bash_timeout':
      case 'max_parallel':
        return false;
      default:
        return true;
    }
  },
  budget: (sub, v, g) => {
    if (sub !== 'max_usd_per_run' || typeof v !== 'number') return true;
    const cap = g.budget.max_usd_per_run;
    // 0 means no cap at all.
    return v === 0 ? cap !== 0 : cap !== 0 && v > cap;
  },
  // Whole entries replace the global one of the same name (merge.ts): a new or changed server runs a
  // program or reaches a URL; one turned off (or the very same) does neither.
  mcp_servers: (name, v, g) => {
    const parsed = McpServerConfig.safeParse(v);
    if (!parsed.success) return true;
    if (parsed.data.disabled) return false;
    return !(
      Object.hasOwn(g.mcp_servers, name) &&
      isDeepStrictEqual(stripUndefined(parsed.data), stripUndefined(g.mcp_servers[name]))
    );
  },
  // A hook is a command run outside the permission rules; one the global file already has adds nothing.
  hooks: (event, v, g) => adds(v, (g.hooks as Record<string, readonly unknown[]>)[event] ?? []),
  // A lower price would let the spending cap count less; a model the global file prices the same or higher is fine.
  prices: (model, v, g) => {
    const before = Object.hasOwn(g.prices, model) ? g.prices[model] : undefined;
    if (!before || !isPlainObject(v)) return true;
    const after = v as Record<string, unknown>;
    for (const field of ['input', 'output', 'cache_write', 'cache_read'] as const) {
      const b = before[field];
      const a = after[field];
      if (b === undefined) {
        if (a !== undefined) return true;
      } else if (typeof a !== 'number' || a < b) return true;
    }
    return false;
  },
  gui: (sub, v) => !(sub === 'enabled' && v === false),
  cloud: (sub, v, g) =>
    !(sub === 'enabled' && v === false) && !isDeepStrictEqual(v, (g.cloud as Record<string, unknown>)[sub]),
  daemon: (sub, v, g) => !isDeepStrictEqual(v, (g.daemon as Record<string, unknown>)[sub]),
  schedule: (sub, v, g) => !isDeepStrictEqual(v, (g.schedule as Record<string, unknown>)[sub]),
};

/**
 * Text from a file someone else wrote, safe to print on a terminal: control and format characters
 * (escape sequences, bidi overrides, line separators) are shown as `\u{…}` instead of acting.
 */
export function printable(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/** A setting's value as JSON a person reads, printable, at most `max` characters of it. */
export function describeValue(value: unknown, max = 300): string {
  const json = JSON.stringify(value) ?? String(value);
  return printable(json.length > max ? `${json.slice(0, max)}… (${json.length - max} more characters)` : json);
}

/** One setting as a person reads it: `hooks.SessionStart: [{"command":"id > x"}]`. */
export function describeSetting(s: RaisingSetting, max = 300): string {
  return `${printable(s.key)}: ${describeValue(s.value, max)}`;
}

/** The keys, printable, the first `max` of them: `hooks.SessionStart, mcp_servers.x, base_url`. */
export function listKeys(keys: readonly string[], max = 8): string {
  const shown = keys.slice(0, max).map(printable).join(', ');
  return keys.length > max ? `${shown} and ${keys.length - max} more` : shown;
}

/** The one warning line of a run that ignores an untrusted overlay's raising settings. */
export function untrustedWarning(overlay: { file: string; folder: string; raising: readonly string[] }): string {
  return (
    `ignoring ${printable(overlay.file)}'s ${listKeys(overlay.raising)}: this folder is not trusted ` +
    `(run \`rein trust ${shellWord(overlay.folder)}\` to see what it sets and trust it)`
  );
}

/** A folder as one shell word, printable. */
export function shellWord(path: string): string {
  const p = printable(path);
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

function isPlainObject(v: unknown): v is RawConfig {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stripUndefined(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v ?? null)) as unknown;
}
