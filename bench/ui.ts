/**
 * `npm run bench -- ui`: the page's weight and speed. Brings out/renderer up to date (the build of the
 * renderer with the project's electron-vite config, which `rein daemon` serves) and prints the
 * JavaScript it ships (raw and gzipped; budget 400 KB gzipped), then opens the page in headless
 * Chromium from a real `rein daemon` (fake model) and prints when the chat view first shows with its
 * message box: the first load, and the median of warm loads (target 1 s). Nothing is asserted.
 *
 *   REIN_BENCH_UI_LOADS   warm loads to time after the first (default 5)
 */
import { spawnSync } from 'node:child_process';
import {
  bundleSize,
  CHROMIUM,
  ensureRendererBuilt,
  haveChromium,
  openUi,
  ROOT,
  startUiSession,
} from '../tests/e2e/support/uiHarness.js';
import { median } from './support.js';

const BUDGET_GZIP_KB = 400;
const TARGET_PAINT_MS = 1_000;

export async function run(): Promise<void> {
  const { dir: rendererDir } = await ensureRendererBuilt();
  const size = await bundleSize(rendererDir);
  console.log('ui: renderer JavaScript');
  for (const f of size.files)
    console.log(`  ${f.name.padEnd(28)} ${kb(f.bytes).padStart(9)} raw ${kb(f.gzip).padStart(9)} gzipped`);
  const verdict = size.gzip / 1024 <= BUDGET_GZIP_KB ? 'within' : 'OVER';
  console.log(
    `  total ${kb(size.bytes)} raw, ${kb(size.gzip)} gzipped (budget ${BUDGET_GZIP_KB} KB gzipped: ${verdict})`,
  );

  if (!haveChromium()) {
    console.log(`ui: first meaningful paint not measured: ${CHROMIUM} not found (apt-get install chromium)`);
    return;
  }
  // The daemon child runs the built CLI: build it from the current source.
  const cli = spawnSync('npx', ['vite', 'build', '--config', 'vite.cli.config.ts', '--logLevel', 'error'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (cli.status !== 0) throw new Error('building the CLI failed');

  const loads = Number(process.env.REIN_BENCH_UI_LOADS ?? 5);
  const ui = await startUiSession();
  try {
    const first = await openUi(ui);
    const warm: number[] = [];
    const warmFcp: number[] = [];
    for (let i = 0; i < loads; i++) {
      const page = await ui.newPage();
      const m = await openUi(ui, page);
      warm.push(m.chatReadyMs);
      if (m.firstContentfulPaintMs !== undefined) warmFcp.push(m.firstContentfulPaintMs);
      await page.close();
    }
    const med = median(warm);
    console.log('ui: chat view ready (first meaningful paint), page served by the daemon');
    console.log(
      `  first load ${ms(first.chatReadyMs)} (first contentful paint ${first.firstContentfulPaintMs !== undefined ? ms(first.firstContentfulPaintMs) : '?'})`,
    );
    console.log(
      `  warm loads: median ${ms(med)}, min ${ms(Math.min(...warm))}, max ${ms(Math.max(...warm))} over ${warm.length}; first contentful paint median ${warmFcp.length ? ms(median(warmFcp)) : '?'}`,
    );
    console.log(`  target ≤ ${TARGET_PAINT_MS} ms: ${med <= TARGET_PAINT_MS ? 'met' : 'missed'} (warm median)`);
  } finally {
    await ui.close();
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (n: number) => `${Math.round(n)} ms`;
