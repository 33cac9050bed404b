/**
 * Merges the project overlay (`<cwd>/.rein/config.yaml`) over the global file. Works on the raw
 * parsed YAML, before defaults are applied, so a key the overlay does not mention never resets a value
 * the global file set.
 *
 * - scalars: the overlay wins;
 * - lists: the overlay's items are appended, skipping ones already present (order kept), so a project
 *   can add allowed commands but never silently drop the user's denied ones;
 * - mappings: merged key by key, recursively;
 * - `mcp_servers` and `prices` are tables of self-contained entries: an overlay entry replaces the
 *   global entry of the same name whole (half of one server's settings mixed with half of another's
 *   would describe a server nobody configured).
 */
import { isDeepStrictEqual } from 'node:util';

export type RawConfig = Record<string, unknown>;

/** Top-level keys whose entries are replaced whole rather than merged field by field. */
const WHOLE_ENTRY_TABLES: ReadonlySet<string> = new Set(['mcp_servers', 'prices']);

export function mergeConfigLayers(base: RawConfig, overlay: RawConfig): RawConfig {
  return mergeMaps(base, overlay, []);
}

function mergeValue(base: unknown, overlay: unknown, path: string[]): unknown {
  if (overlay === undefined) return base;
  if (Array.isArray(base) && Array.isArray(overlay)) return appendUnique(base, overlay);
  if (isPlainObject(base) && isPlainObject(overlay)) return mergeMaps(base, overlay, path);
  return overlay;
}

function mergeMaps(base: RawConfig, overlay: RawConfig, path: string[]): RawConfig {
  const replaceEntries = path.length === 1 && WHOLE_ENTRY_TABLES.has(path[0]!);
  const out: RawConfig = {};
  for (const [key, value] of Object.entries(base)) setOwn(out, key, value);
  for (const [key, value] of Object.entries(overlay)) {
    const merged =
      replaceEntries || !Object.prototype.hasOwnProperty.call(base, key)
        ? value
        : mergeValue(base[key], value, [...path, key]);
    setOwn(out, key, merged);
  }
  return out;
}

function appendUnique(base: readonly unknown[], overlay: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const item of [...base, ...overlay]) {
    if (!out.some((seen) => isDeepStrictEqual(seen, item))) out.push(item);
  }
  return out;
}

function isPlainObject(v: unknown): v is RawConfig {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Plain assignment of a `__proto__` key (legal in a YAML record such as `mcp_servers`) would replace the prototype. */
function setOwn(target: RawConfig, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
