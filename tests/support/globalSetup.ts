// Builds the CLI once per test run so integration tests always exercise the current source.
import { spawnSync } from 'node:child_process';

export default function setup(): void {
  if (process.env.REIN_SKIP_CLI_BUILD === '1') return;
  const r = spawnSync('npx', ['vite', 'build', '--config', 'vite.cli.config.ts', '--logLevel', 'error'], {
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('building the CLI for tests failed (see output above)');
}
