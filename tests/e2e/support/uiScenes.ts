/**
 * What the browser tests and the documentation's screenshots (tests/e2e/docScreenshots.ts) do to the
 * page the way a person would: type into the chat, wait for the answer, start a new chat; three saved
 * conversations made through the page itself; and the check that nothing on screen is out of the window.
 */
import type { Page } from 'playwright-core';
import { text, toolCall, tools } from '../../support/fakeAnthropic.js';
import type { UiSession } from './uiHarness.js';

export const composer = (page: Page) => page.getByRole('textbox', { name: 'Message' });
export const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: new RegExp(`^${name}`) });

export async function say(page: Page, message: string): Promise<void> {
  await composer(page).fill(message);
  await composer(page).press('Enter');
}

/** Until the answer `text` is on screen and the run is over (the bounds are for a loaded machine, not a measure). */
export async function answered(page: Page, answer: string): Promise<void> {
  await page.locator('.chat-view .msg-assistant', { hasText: answer }).last().waitFor({ timeout: 60_000 });
  await page.locator('.chat-view .run-indicator').waitFor({ state: 'detached', timeout: 60_000 });
  await page.getByRole('button', { name: 'New chat' }).and(page.locator(':enabled')).waitFor({ timeout: 60_000 });
}

export async function newChat(page: Page): Promise<void> {
  await nav(page, 'Chat').click();
  await page.getByRole('button', { name: 'New chat' }).click();
  await page.locator('.chat-empty').waitFor();
}

/** The conversations `seedConversations` makes, oldest first: what the person typed (the session titles). */
export const SEEDED = ['What notes do I have?', 'Create approved.txt please.', 'Plan the summary.'] as const;

/**
 * Three conversations of the default agent, each in its own new chat, oldest first: a folder listing,
 * a bash call a person allowed from the card in the chat, and a Markdown answer.
 */
export async function seedConversations(ui: UiSession, page: Page = ui.page): Promise<void> {
  await newChat(page);
  ui.fake.enqueue(
    tools([toolCall('directory_list', { path: '.' })], 'Let me look at the folder.'),
    text('There are two notes here: alpha and beta, both short.'),
  );
  await say(page, SEEDED[0]);
  await answered(page, 'There are two notes here');

  await newChat(page);
  ui.fake.enqueue(tools([toolCall('bash', { command: 'touch approved.txt' })]), text('Created approved.txt.'));
  await say(page, SEEDED[1]);
  await page.locator('.message-list .approval-card').getByRole('button', { name: 'Allow once' }).click();
  await answered(page, 'Created approved.txt.');

  await newChat(page);
  ui.fake.enqueue(
    text('## Plan\n\n1. Read `alpha.md` and `beta.md`\n2. Write the summary into `summary.md`\n\nShall I start?'),
  );
  await say(page, SEEDED[2]);
  await answered(page, 'Shall I start?');
}

/**
 * What a person could not reach in the window: a page that scrolls sideways, and every control,
 * heading or view container whose box lies beyond the window's left or right edge. Empty when all fits.
 */
export function outsideWindow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > width)
      out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} px in a ${width} px window)`);
    const watched =
      'button, input, select, textarea, a, summary, [role="tab"], h1, h2, h3, label, .main, .view, .split-main, .chat-main, .message-list, .composer, .conversations';
    for (const el of Array.from(document.querySelectorAll<HTMLElement>(watched))) {
      const r = el.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) continue; // not shown, or visually hidden text
      if (r.right > width + 1 || r.left < -1) {
        const name = el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 40) ?? '';
        out.push(
          `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ').join('.')}` : ''} "${name}" spans ${Math.round(r.left)}–${Math.round(r.right)} px`,
        );
      }
    }
    return out;
  });
}
