/**
 * Limits for every YAML file Rein reads (config.yaml, an agent's config.yaml, webhooks.yaml) and for
 * YAML text a client sends (an agent's config in `PUT /agents/{name}`). A few lines of aliases can
 * stand for billions of nodes (the "billion laughs"); the `yaml` package refuses more than
 * `maxAliasCount` alias resolutions by throwing, which here becomes a problem of the file like any
 * other, never a crash of the request that read it. Text is capped before it is parsed at all.
 */
import type { Document } from 'yaml';

/** Aliases (`*name`) resolved while turning one document into values. */
export const YAML_MAX_ALIAS_COUNT = 100;
/** Bytes of one YAML config file; a config of a few kilobytes is large. */
export const MAX_CONFIG_BYTES = 256 * 1024;

/** The document's value, or why it cannot be had (too many aliases, nesting too deep for the stack). */
export function yamlDocToJs(doc: Document): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: YAML_MAX_ALIAS_COUNT }) as unknown };
  } catch (e) {
    const message = e instanceof RangeError ? 'nested too deeply' : `${(e as Error).message ?? String(e)}`;
    return {
      ok: false,
      message: `YAML cannot be read: ${message.split('\n', 1)[0]} (at most ${YAML_MAX_ALIAS_COUNT} aliases)`,
    };
  }
}

/** Why text is too long to be a config file, or undefined when it is not. */
export function configTooLarge(text: string): string | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  return bytes > MAX_CONFIG_BYTES
    ? `the file is ${bytes} bytes; a config file may have at most ${MAX_CONFIG_BYTES}`
    : undefined;
}
