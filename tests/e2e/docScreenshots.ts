/**
 * Refreshes the screenshots docs/desktop.md shows (docs/images/desktop-*.png): every view at 1280 × 800
 * and at 480 × 720 (the menu-bar window), of a real `rein daemon` with the fake model, after a few
 * conversations made through the page itself. Run it after changing the page:
 *
 *   npm run build:cli && npx tsx tests/e2e/docScreenshots.ts [output folder]
 *
 * It builds out/renderer when it is stale (as the tests do) and needs Debian's chromium (REIN_CHROMIUM
 * names another). Nothing of the machine's own Rein is touched: the daemon gets a temporary REIN_HOME.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { text, toolCall, tools } from '../support/fakeAnthropic.js';
import {
  CHROMIUM,
  ensureRendererBuilt,
  haveChromium,
  openUi,
  ROOT,
  startUiSession,
  type UiSession,
} from './support/uiHarness.js';
import { nav, say, SEEDED, seedConversations } from './support/uiScenes.js';

const SIZES = [
  { name: '1280', width: 1280, height: 800 },
  { name: '480', width: 480, height: 720 },
] as const;

async function main(): Promise<void> {
  if (!haveChromium()) throw new Error(`${CHROMIUM} does not exist: apt-get install chromium (or set REIN_CHROMIUM)`);
  const out = resolve(process.argv[2] ?? join(ROOT, 'docs/images'));
  await mkdir(out, { recursive: true });
  const built = await ensureRendererBuilt();
  if (built.built) console.log(`built the web UI into out/renderer (${built.reason})`);

  const ui = await startUiSession(undefined, { viewport: SIZES[0] });
  try {
    const page = ui.page;
    await openUi(ui);
    await seedConversations(ui);
    await prepare(ui);
    // A question waiting for a person, for the Approvals view (its reason quotes the pattern as code),
    // asked in the writer agent's chat, so the default agent's conversations can still be switched.
    const picker = page.getByRole('combobox', { name: 'Agent' });
    await picker.selectOption('writer');
    ui.fake.enqueue(tools([toolCall('grep', { pattern: 'sk-ant-api03' })]), text('I left your keys alone.'));
    await say(page, 'Where did I put my API key?');
    await page.locator('.message-list .approval-card').waitFor();
    await picker.selectOption('default');

    const written: string[] = [];
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      const shot = async (view: string) => {
        const file = join(out, `desktop-${view}-${size.name}.png`);
        await page.mouse.move(0, size.height - 1); // no hover highlight in the picture
        await page.screenshot({ path: file });
        written.push(file);
      };
      await showConversation(page, SEEDED[1]);
      await shot('chat');
      if (size.name === '480') {
        await page.getByRole('button', { name: 'Conversations' }).click();
        await page.getByRole('complementary', { name: 'Conversations' }).waitFor();
        await shot('chat-conversations');
        await page.getByRole('button', { name: 'Close' }).click();
        await page.getByRole('button', { name: 'Expand sidebar' }).click();
        await shot('sidebar');
        await page.keyboard.press('Escape');
      }
      await nav(page, 'Approvals').click();
      await page.locator('.approvals-view .approval-card').waitFor();
      await shot('approvals');
      await nav(page, 'Agents').click();
      await page.getByRole('button', { name: /^writer/ }).click();
      await page.getByRole('heading', { name: 'writer' }).waitFor();
      await shot('agents');
      await nav(page, 'Sessions').click();
      await page.locator('.sessions-view .pick', { hasText: SEEDED[1] }).click();
      await page.locator('.session-reader .tool-card').first().waitFor();
      await shot('sessions');
      await nav(page, 'Schedules').click();
      await page.locator('.schedules-view .schedule-item').first().waitFor();
      await shot('schedules');
      await nav(page, 'Settings').click();
      await page.getByRole('heading', { name: 'Settings' }).waitFor();
      await shot('settings');
    }
    await nav(page, 'Approvals').click();
    await page.locator('.approvals-view .approval-card').getByRole('button', { name: 'Deny' }).click();
    console.log(written.map((f) => `wrote ${f}`).join('\n'));
  } finally {
    await ui.close();
  }
}

/** An agent with a persona, and a schedule, made the way a script would (the daemon's API). */
async function prepare(ui: UiSession): Promise<void> {
  const call = async (path: string, body: unknown) => {
    const r = await fetch(`${ui.daemon.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ui.daemon.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`POST ${path}: ${r.status} ${await r.text()}`);
  };
  await call('/agents', {
    name: 'writer',
    prompt: 'You write short, clear notes.\n\nKeep every summary under ten lines.',
  });
  await call('/schedules', {
    cron: '0 9 * * 1-5',
    prompt: 'Summarise the notes in the working folder',
    agent: 'default',
  });
}

async function showConversation(page: Page, title: string): Promise<void> {
  await nav(page, 'Chat').click();
  const list = page.getByRole('complementary', { name: 'Conversations' });
  if (!(await list.isVisible())) await page.getByRole('button', { name: 'Conversations' }).click();
  await list.locator('.conversation', { hasText: title }).click();
  await page.locator('.chat-view .msg-user', { hasText: title }).waitFor();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
