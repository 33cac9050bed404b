#!/usr/bin/env node
// Thin launcher: the CLI itself is built to out/cli/rein.js by `npm install` (prepare) and `npm test`.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const built = fileURLToPath(new URL('../out/cli/rein.js', import.meta.url));
if (!existsSync(built)) {
  process.stderr.write('rein: the CLI is not built yet; run `npm install` (or `npm run build:cli`) in the Rein folder.\n');
  process.exit(1);
}
const { main } = await import(pathToFileURL(built).href);
process.exitCode = await main(process.argv.slice(2));
