/**
 * An OAuth challenge from an MCP server: a 401 (sign in) or a 403 with `error="insufficient_scope"`
 * (sign in again with more scope, RFC 6750 §3.1), with what its `WWW-Authenticate` header says — the
 * scope it wants and where its protected-resource metadata is (RFC 9728). The connection notes the last
 * one it saw, so a sign-in asks for exactly what the refused request needed, and a step-up asks for the
 * union of what was granted and what is now required.
 */

export interface AuthChallenge {
  status: 401 | 403;
  /** `error=` of the challenge (`invalid_token`, `insufficient_scope`). */
  error?: string;
  /** The scope the server asks for, space-separated. */
  scope?: string;
  resourceMetadataUrl?: string;
}

/** One `Bearer` parameter of a WWW-Authenticate header (quoted or not). */
function param(header: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|[\\s,])${name}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^\\s,]+))`, 'i').exec(header);
  const v = m ? (m[1] ?? m[2]) : undefined;
  return v === undefined ? undefined : v.replace(/\\(.)/g, '$1');
}

/**
 * The challenge of a 401/403 answer, or undefined. `bodyError` is the `error` of a JSON body, for a
 * server that names `insufficient_scope` there instead of in the header.
 */
export function challengeOf(res: Pick<Response, 'status' | 'headers'>, bodyError?: string): AuthChallenge | undefined {
  if (res.status !== 401 && res.status !== 403) return undefined;
  const header = res.headers.get('www-authenticate');
  if (!header || !/^\s*bearer\b/i.test(header)) return undefined;
  const error = param(header, 'error') ?? bodyError;
  const scope = param(header, 'scope');
  const rm = param(header, 'resource_metadata');
  let resourceMetadataUrl: string | undefined;
  try {
    resourceMetadataUrl = rm ? new URL(rm).href : undefined;
  } catch {
    resourceMetadataUrl = undefined;
  }
  return {
    status: res.status,
    ...(error ? { error } : {}),
    ...(scope ? { scope } : {}),
    ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
  };
}

/** The scopes of both, each once, in the order first seen. */
export function unionScopes(...scopes: (string | undefined)[]): string | undefined {
  const out: string[] = [];
  for (const s of scopes) for (const one of (s ?? '').split(/\s+/)) if (one && !out.includes(one)) out.push(one);
  return out.length > 0 ? out.join(' ') : undefined;
}

/** A 403 that a sign-in with more scope can fix: `insufficient_scope`, or no error but a scope it names. */
export const isStepUp = (c: AuthChallenge | undefined): boolean =>
  c?.status === 403 && (c.error === 'insufficient_scope' || (c.error === undefined && c.scope !== undefined));
