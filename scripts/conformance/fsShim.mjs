/** Node's fs plus the `globSync` Node 20 lacks (see node20.mjs): only the suite's tier-check calls it. */
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export function globSync() {
  throw new Error(
    'fs.globSync needs Node 22 (the conformance suite calls it only for tier-check, which Rein does not run)',
  );
}
