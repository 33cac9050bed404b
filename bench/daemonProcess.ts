/**
 * The daemon for `npm run bench -- daemon`, in its own process so its RSS and CPU are its own. Prints
 * `<url> <token>` on the first stdout line; SIGTERM stops it.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GlobalConfig } from '../src-main/core/config/schema.js';
import { startDaemon } from '../src-main/core/daemon/daemon.js';

const root = await mkdtemp(join(tmpdir(), 'rein-bench-daemon-'));
const daemon = await startDaemon({
  home: join(root, 'home'),
  cwd: root,
  port: 0,
  config: GlobalConfig.parse({ daemon: { max_concurrent_runs: Number(process.env.REIN_BENCH_CONCURRENCY ?? 5) } }),
  warn: (m) => process.stderr.write(`daemon: ${m}\n`),
});
process.stdout.write(`${daemon.url} ${daemon.token()}\n`);
process.on('SIGTERM', () => void daemon.close().then(() => process.exit(0)));
