#!/usr/bin/env node
// Thin launcher: the CLI itself is built to out/cli/rein.js by `npm install` (prepare) and `npm test`.
// It is CommonJS (out/cli/package.json says so) so that its compiled code can be cached between runs
// on Node 20 as well (./codeCache.js).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startCodeCache } from './codeCache.js';

const built = fileURLToPath(new URL('../out/cli/rein.js', import.meta.url));
if (!existsSync(built)) {
  process.stderr.write(
    'rein: the CLI is not built yet; run `npm install` (or `npm run build:cli`) in the Rein folder.\n',
  );
  process.exit(1);
}
startCodeCache(fileURLToPath(new URL('../out/cli/', import.meta.url)));
const { main } = createRequire(import.meta.url)(built);
process.exitCode = await main(process.argv.slice(2));
