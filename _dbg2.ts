import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startDaemon } from './src-main/core/daemon/daemon.ts';
import { buildRenderer, CHROMIUM, CHROMIUM_ARGS } from './tests/e2e/support/uiHarness.ts';
const dir = await buildRenderer(await mkdtemp(join(tmpdir(), 'rb-')));
const home = await mkdtemp(join(tmpdir(), 'rh-'));
const d = await startDaemon({ home, port: 0, staticDir: dir, env: { ANTHROPIC_API_KEY: 'x' }, warn: () => {} });
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
const ctx = await browser.newContext();
for (let i = 0; i < 6; i++) {
  const page = await ctx.newPage();
  page.on('console', (m) => m.type() === 'error' && console.log('  console:', m.text()));
  await page.goto(`${d.url}/#token=${d.token()}`);
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  const r = await page.evaluate(async () => { for (let i = 0; i < 100 && !performance.getEntriesByName('rein:chat-ready').length; i++) await new Promise(o => setTimeout(o, 10)); return [performance.getEntriesByName('rein:chat-ready')[0]?.startTime, performance.getEntriesByName('first-contentful-paint')[0]?.startTime, performance.getEntriesByType('navigation')[0].responseEnd]; });
  console.log(r);
  await page.close();
}
await browser.close(); await d.close();
