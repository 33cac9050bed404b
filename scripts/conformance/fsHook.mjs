/** Module hook (see node20.mjs): the conformance suite's `fs` is fsShim.mjs; every other module's is Node's own. */
const SHIM = new URL('./fsShim.mjs', import.meta.url).href;

export async function resolve(specifier, context, next) {
  if (
    (specifier === 'fs' || specifier === 'node:fs') &&
    context.parentURL?.includes('/@modelcontextprotocol/conformance/')
  ) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}
