/**
 * Which transport failures mean "the network is not there (yet)": the model client marks them
 * (client.ts), and an unattended run waits for the network on them (networkWait.ts).
 */

/** Error codes that mean the network (or the route to the host) is not there yet. */
const NETWORK_DOWN_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_FAIL',
  'ECONNREFUSED',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'EADDRNOTAVAIL',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * The network-down code in an error's cause chain (Node's errno errors, an AggregateError of the
 * addresses tried, undici's and nodeFetch.ts's connect timeout), or undefined.
 */
export function networkDownCode(err: unknown, depth = 0): string | undefined {
  if (depth > 6 || err === null || typeof err !== 'object') return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_DOWN_CODES.has(code)) return code;
  const errors = (err as { errors?: unknown }).errors;
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = networkDownCode(inner, depth + 1);
      if (found) return found;
    }
  }
  return networkDownCode((err as { cause?: unknown }).cause, depth + 1);
}
