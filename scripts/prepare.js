// Runs after `npm install` / `npm ci`: builds the `rein` CLI so `npx rein` works right away.
// Skipped quietly when dev dependencies are absent (a production install of a packaged app).
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

if (!existsSync('node_modules/vite')) process.exit(0);
const r = spawnSync('npm', ['run', '--silent', 'build:cli'], { stdio: 'inherit' });
process.exit(r.status ?? 1);
