// Builds the CLI once per test run so integration tests always exercise the current source, and the
// web UI (out/renderer, which `rein daemon` serves) when it is missing or older than its sources, so
// the browser end-to-end test drives the page as it is now.
import { spawnSync } from 'node:child_process';
import { ensureRendererBuilt } from './rendererBuild.js';

export default async function setup(): Promise<void> {
  if (process.env.REIN_SKIP_CLI_BUILD === '1') return;
  const r = spawnSync('npx', ['vite', 'build', '--config', 'vite.cli.config.ts', '--logLevel', 'error'], {
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('building the CLI for tests failed (see output above)');
  const ui = await ensureRendererBuilt();
  if (ui.built) console.log(`built the web UI into out/renderer (${ui.reason})`);
}
