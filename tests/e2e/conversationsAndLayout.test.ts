// The page's shape and its past conversations, in headless Chromium against a real `rein daemon` and the
// fake model: the conversation list beside the chat (newest first, searched, continued), a reload that
// comes back to the conversation, saved tool calls shown as the live chat shows them, failures in words,
// code spans in an approval's reason, and, at 480 px (the menu-bar window), an icons-only sidebar with
// every view inside the window. Screenshots go to tests/e2e/screenshots/ (not committed).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text, toolCall, tools } from '../support/fakeAnthropic.js';
import { CHROMIUM, haveChromium, openUi, ROOT, startUiSession, type UiSession } from './support/uiHarness.js';
import { answered, composer, nav, newChat, outsideWindow, say, SEEDED, seedConversations } from './support/uiScenes.js';

const SHOTS = join(ROOT, 'tests/e2e/screenshots');
const inCi = process.env.CI === 'true';
const available = haveChromium();

describe.runIf(!available && inCi)('conversations and layout in Chromium', () => {
  it('needs Chromium under CI', () => {
    throw new Error(
      `Chromium is required for the UI end-to-end test under CI=true, and ${CHROMIUM} does not exist (apt-get install chromium)`,
    );
  });
});

describe.skipIf(!available)('conversations and layout in Chromium', () => {
  let ui: UiSession;
  let page: Page;

  beforeAll(async () => {
    ui = await startUiSession(undefined, { viewport: { width: 1280, height: 800 } });
    page = ui.page;
    await openUi(ui);
    await seedConversations(ui);
  }, 120_000);

  afterAll(async () => {
    await ui?.close();
  });

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
  const list = () => page.getByRole('complementary', { name: 'Conversations' });
  const rows = () => list().locator('.conversation .hit-title');
  const row = (title: string) => list().locator('.conversation', { hasText: title });
  const search = () => page.getByRole('searchbox', { name: 'Search conversations' });
  const sessionFile = (id: string) => join(ui.daemon.home, 'sessions', `${id}.json`);

  it('lists the agent’s conversations beside the chat, newest first, the one shown marked', async () => {
    await expect.poll(() => rows().allTextContents()).toEqual([...SEEDED].reverse());
    expect(await row(SEEDED[2]).getAttribute('aria-current')).toBe('true');
    expect(await list().isVisible()).toBe(true);
    await shot('conversations');
  });

  it('narrows the list to the conversations a search finds, and back', async () => {
    await search().fill('alpha');
    await expect.poll(() => rows().allTextContents()).toEqual([SEEDED[2], SEEDED[0]]);
    expect((await list().locator('mark').allTextContents()).map((t) => t.toLowerCase())).toContain('alpha');
    await search().fill('approved');
    await expect.poll(() => rows().allTextContents()).toEqual([SEEDED[1]]);
    await search().press('Escape');
    await expect.poll(() => rows().allTextContents()).toEqual([...SEEDED].reverse());
  });

  it('continues a conversation picked in the list: its messages show, and the model gets them with the next one', async () => {
    await row(SEEDED[0]).click();
    await page.locator('.chat-view .msg-user', { hasText: SEEDED[0] }).waitFor();
    await page.locator('.chat-view .msg-assistant', { hasText: 'alpha and beta' }).waitFor();
    expect(await page.locator('.chat-view .tool-card .tool-summary').allTextContents()).toEqual(['list .']);
    const id = await page.locator('.chat-session').getAttribute('title');
    ui.fake.enqueue(text('alpha.md is the longer one.'));
    await say(page, 'Which one is longer?');
    await answered(page, 'alpha.md is the longer one.');
    const sent = JSON.stringify(ui.fake.requests.at(-1)!.body.messages);
    expect(sent).toContain(SEEDED[0]);
    expect(sent).toContain('There are two notes here: alpha and beta, both short.');
    expect(sent).not.toContain(SEEDED[1]);
    // Still the same conversation, now the newest.
    expect(await page.locator('.chat-session').getAttribute('title')).toBe(id);
    await expect.poll(() => rows().first().textContent()).toBe(SEEDED[0]);
  });

  it('shows a saved bash call as the live chat does ($ and the command), in the chat and in the Sessions view', async () => {
    await row(SEEDED[1]).click();
    const card = page.locator('.chat-view .tool-card[data-tool="bash"]');
    await expect.poll(() => card.locator('.tool-summary').textContent()).toBe('$ touch approved.txt');
    expect(await card.locator('.tool-summary').textContent()).not.toContain('{');

    await nav(page, 'Sessions').click();
    await page.locator('.sessions-view .pick', { hasText: SEEDED[1] }).click();
    const saved = page.locator('.session-reader .tool-card[data-tool="bash"] .tool-summary');
    await expect.poll(() => saved.textContent()).toBe('$ touch approved.txt');
    await shot('sessions-saved-call');
    await nav(page, 'Chat').click();
  });

  it('comes back to the conversation after a reload, and to a new chat after "New chat" and a reload', async () => {
    await expect.poll(() => page.locator('.chat-view .msg-user').first().textContent()).toBe(SEEDED[1]);
    const id = await page.locator('.chat-session').getAttribute('title');
    // A reload loses the token (it is kept in memory only): the page asks for it, then continues.
    await page.reload();
    await page.getByLabel('Token').fill(ui.daemon.token);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.locator('.chat-view .msg-user', { hasText: SEEDED[1] }).waitFor();
    expect(await page.locator('.chat-session').getAttribute('title')).toBe(id);
    expect(await page.locator('.chat-view .tool-card .tool-summary').allTextContents()).toEqual([
      '$ touch approved.txt',
    ]);
    ui.fake.enqueue(text('It is still there.'));
    await say(page, 'Is approved.txt still there?');
    await answered(page, 'It is still there.');
    expect(JSON.stringify(ui.fake.requests.at(-1)!.body.messages)).toContain(SEEDED[1]);

    await newChat(page);
    await page.goto(ui.daemon.webUiUrl);
    await composer(page).waitFor();
    await page.locator('.chat-empty').waitFor();
    expect(await page.locator('.chat-session').textContent()).toBe('new conversation');
  });

  it('says in words why a conversation cannot be opened, not its error code', async () => {
    await expect.poll(() => rows().count()).toBe(3);
    const id = await row(SEEDED[2]).getAttribute('data-session-id');
    await rm(sessionFile(id!));
    await row(SEEDED[2]).click();
    const alert = list().getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('That conversation is not there any more');
    expect(await alert.textContent()).not.toContain('session_not_found');
    expect(await alert.getAttribute('data-code')).toBe('session_not_found');
  });

  it('shows the code spans of an approval’s reason as code, after making its characters visible', async () => {
    // A search for key material asks, and the reason quotes the pattern in backticks; the U+202E in it is written out.
    ui.fake.enqueue(tools([toolCall('grep', { pattern: 'sk-ant-api03\u202e' })]), text('I left your keys alone.'));
    await say(page, 'Find my API keys.');
    const card = page.locator('.message-list .approval-card');
    const reason = card.locator('.approval-reason');
    await reason.locator('code').waitFor();
    expect(await reason.locator('code').textContent()).toBe('sk-ant-api03\\u202e');
    expect(await reason.textContent()).not.toContain('`');
    expect(await reason.textContent()).toMatch(/^grep searches .* for Anthropic API keys \(sk-ant-api03\\u202e\)$/);
    await shot('approval-reason-code');
    await card.getByRole('button', { name: 'Deny' }).click();
    await answered(page, 'I left your keys alone.');
  });

  describe('at 480 × 720, the menu-bar window', () => {
    beforeAll(async () => {
      await page.setViewportSize({ width: 480, height: 720 });
      const created = await fetch(`${ui.daemon.url}/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ui.daemon.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'writer', prompt: 'You write short, clear notes.' }),
      });
      expect(created.status).toBe(201);
    });

    const sidebar = () => page.getByRole('navigation', { name: 'Main' });
    const toggle = () => sidebar().getByRole('button', { name: /sidebar$/ });

    it('shows the sidebar as icons with their names, and its toggle expands it over the content and Esc folds it back', async () => {
      await expect.poll(() => sidebar().getAttribute('class')).toContain('collapsed');
      for (const name of ['Chat', 'Approvals', 'Agents', 'Sessions', 'Schedules', 'Settings']) {
        const item = sidebar().getByRole('button', { name, exact: true });
        expect(await item.isVisible()).toBe(true);
        expect(await item.getAttribute('title')).toMatch(new RegExp(`^${name} \\(Alt\\+\\d\\)$`));
        expect((await item.boundingBox())!.width).toBeLessThan(60);
      }
      expect(await toggle().getAttribute('aria-expanded')).toBe('false');
      const mainBefore = await page.locator('main').boundingBox();

      await toggle().focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => toggle().getAttribute('aria-expanded')).toBe('true');
      expect(await toggle().getAttribute('aria-label')).toBe('Collapse sidebar');
      expect(
        (await sidebar().getByRole('button', { name: 'Agents', exact: true }).boundingBox())!.width,
      ).toBeGreaterThan(120);
      // Over the content: the view keeps its place and width.
      expect(await page.locator('main').boundingBox()).toEqual(mainBefore);
      await shot('narrow-sidebar-open');
      await page.keyboard.press('Escape');
      await expect.poll(() => toggle().getAttribute('aria-expanded')).toBe('false');
      expect(await toggle().evaluate((el) => el === document.activeElement)).toBe(true);
    });

    it('keeps the chat in the window, with the conversation list behind a button', async () => {
      await nav(page, 'Chat').click();
      expect(await list().isVisible()).toBe(false);
      expect(await outsideWindow(page)).toEqual([]);
      const open = page.getByRole('button', { name: 'Conversations' });
      expect(await open.getAttribute('aria-expanded')).toBe('false');
      await open.click();
      await list().waitFor();
      expect(await open.getAttribute('aria-expanded')).toBe('true');
      expect(await outsideWindow(page)).toEqual([]);
      await shot('narrow-conversations');
      await row(SEEDED[0]).click();
      await list().waitFor({ state: 'hidden' });
      await page.locator('.chat-view .msg-user', { hasText: SEEDED[0] }).waitFor();
      expect(await outsideWindow(page)).toEqual([]);
      await shot('narrow-chat');
    });

    it('keeps every view, the agent editor included, inside the window', async () => {
      const problems: Record<string, string[]> = {};
      const check = async (name: string) => {
        const outside = await outsideWindow(page);
        if (outside.length) problems[name] = outside;
        await shot(`narrow-${name}`);
      };

      await nav(page, 'Approvals').click();
      await page.getByRole('heading', { name: 'Approvals' }).waitFor();
      await check('approvals');

      await nav(page, 'Agents').click();
      await page.getByRole('button', { name: /^writer/ }).click();
      await page.getByRole('heading', { name: 'writer' }).waitFor();
      await check('agents');
      for (const tab of ['Config', 'Memory', 'Commands']) {
        await page.getByRole('tab', { name: tab }).click();
        await check(`agents-${tab.toLowerCase()}`);
      }

      await nav(page, 'Sessions').click();
      await page.locator('.sessions-view .pick', { hasText: SEEDED[1] }).click();
      await page.locator('.session-reader .tool-card').first().waitFor();
      await check('sessions');

      await nav(page, 'Schedules').click();
      await page.getByRole('heading', { name: 'Schedules' }).waitFor();
      await check('schedules');

      await nav(page, 'Settings').click();
      await page.getByRole('heading', { name: 'Settings' }).waitFor();
      await check('settings');

      expect(problems).toEqual({});
    });

    it('had no Content-Security-Policy violation or page error along the way', () => {
      // Not 404s: the deleted conversation above is one on purpose (desktopUi.test.ts checks the page's files).
      const serious = ui.problems.filter((p) =>
        /Content Security Policy|Refused to|Uncaught|TypeError|ReferenceError/.test(p),
      );
      expect(serious).toEqual([]);
    });
  });
});
