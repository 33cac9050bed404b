/**
 * The one list of loopback host names, and the checks built on it: whether a host (a bind address, a
 * base URL's host, a Host header's name) is this machine, and the names a daemon bound to loopback
 * answers to. Wildcard binds (`0.0.0.0`, `::`) are not loopback: they reach every interface.
 */

/** The names a loopback daemon is reached by, as they appear in a Host header. */
export const LOOPBACK_HOST_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

/** Bind addresses that listen on every interface. */
export const WILDCARD_HOSTS: ReadonlySet<string> = new Set(['0.0.0.0', '::', '[::]']);

function bare(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

/** localhost (and *.localhost), 127.0.0.0/8, ::1 and IPv4-mapped 127.x; brackets and a trailing dot allowed. */
export function isLoopbackHost(host: string): boolean {
  const h = bare(host);
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (/^127\.[0-9]+\.[0-9]+\.[0-9]+$/.test(h)) return true;
  return h === '::1' || /^::ffff:(127\.|7f[0-9a-f]{2}:)/.test(h);
}

/** A bind address that is loopback or a wildcard: nothing beyond the default names needs adding. */
export function isLocalOrWildcard(host: string): boolean {
  return isLoopbackHost(host) || WILDCARD_HOSTS.has(host.trim().toLowerCase());
}
