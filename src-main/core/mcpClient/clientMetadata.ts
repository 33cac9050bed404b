/**
 * Rein's OAuth client ID as a URL (Client ID Metadata Documents, SEP-991): when an authorization server
 * advertises `client_id_metadata_document_supported: true`, Rein presents the URL of a JSON document
 * describing itself as its `client_id` instead of registering dynamically. Where the URL comes from, first
 * found wins:
 *
 * 1. `REIN_MCP_CLIENT_METADATA_URL` (empty: no URL-based client ID at all);
 * 2. `mcp.client_metadata_url` in config.yaml (`null` or empty: none);
 * 3. released builds only (built with REIN_RELEASE=1): RELEASE_CLIENT_METADATA_URL.
 *
 * The URL must be https with a path, and the document must really be served there: the authorization
 * server fetches it to learn Rein's name and redirect URIs. Without a URL, dynamic registration is used
 * as before.
 */
import { ReinError } from '../errors.js';

/**
 * The default of released builds. A placeholder until the release hosts it: the document at this address
 * must be Rein's client metadata (`client_id` equal to this URL, `client_name`, `redirect_uris`
 * `http://127.0.0.1/callback` — loopback, any port — and `token_endpoint_auth_method: none`).
 */
export const RELEASE_CLIENT_METADATA_URL = 'https://rein.app/oauth/client-metadata.json';

declare const __REIN_RELEASE__: boolean | undefined;
const isRelease = (): boolean => typeof __REIN_RELEASE__ === 'boolean' && __REIN_RELEASE__;

/** The SDK's own rule: https, and a path other than `/`. */
export function isClientMetadataUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'https:' && u.pathname !== '/';
  } catch {
    return false;
  }
}

/** The URL to offer as client ID, or undefined for none. Throws a ReinError for a malformed one, naming where it came from. */
export function clientMetadataUrl(
  env: NodeJS.ProcessEnv,
  configured?: string | null,
  release: boolean = isRelease(),
): string | undefined {
  const fromEnv = env.REIN_MCP_CLIENT_METADATA_URL;
  const [value, where] =
    fromEnv !== undefined
      ? [fromEnv.trim(), 'REIN_MCP_CLIENT_METADATA_URL']
      : configured !== undefined
        ? [configured?.trim() ?? '', 'mcp.client_metadata_url']
        : [release ? RELEASE_CLIENT_METADATA_URL : '', 'the release default'];
  if (value === '') return undefined;
  if (!isClientMetadataUrl(value))
    throw new ReinError(
      'invalid_input',
      `${where}: "${value}" is not an https URL with a path (a client ID metadata document's address)`,
      { field: where },
    );
  return value;
}
