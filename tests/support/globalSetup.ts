// Builds the CLI once per test run so integration tests always exercise the current source, and the
// web UI (out/renderer, which `rein daemon` serves) when it is missing or older than its sources, so
// the browser end-to-end test drives the page as it is now.
//
// Every temporary folder the tests make (homes, sessions, sockets, browser profiles) goes into one
// folder of this run, removed when the run ends: the test processes and the programs they start
// inherit TMPDIR, and os.tmpdir() follows it. Without it each run left about a thousand folders behind.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureRendererBuilt } from './rendererBuild.js';

export default async function setup(): Promise<() => void> {
  const runTmp = mkdtempSync(join(tmpdir(), 'rein-tests-'));
  for (const name of ['TMPDIR', 'TMP', 'TEMP']) process.env[name] = runTmp;
  // The CLI's compiled-code cache (bin/codeCache.js) of the `rein` processes the tests start: this run's
  // own, not the user's. A test that sets REIN_CODE_CACHE itself gets its own.
  process.env.REIN_CODE_CACHE ??= join(runTmp, 'code-cache');
  const teardown = () => rmSync(runTmp, { recursive: true, force: true, maxRetries: 3 });
  if (process.env.REIN_SKIP_CLI_BUILD === '1') return teardown;
  const r = spawnSync('npx', ['vite', 'build', '--config', 'vite.cli.config.ts', '--logLevel', 'error'], {
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('building the CLI for tests failed (see output above)');
  const ui = await ensureRendererBuilt();
  if (ui.built) console.log(`built the web UI into out/renderer (${ui.reason})`);
  return teardown;
}
