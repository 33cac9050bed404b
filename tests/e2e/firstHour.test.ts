// The first hour in a browser (issue 25), in headless Chromium against a real `rein daemon` started in a
// fresh home with no API key and no base URL — the setup where the web UI hung on "Starting…" and the
// onboarding could never save:
// - a message sent anyway ends at once with the error in words and what to do, and "Starting…" goes;
// - the onboarding's "Save and start" with a local server's base URL (a raise: the key and every
//   conversation go there) ends with a pending change and the exact command that accepts it in a shell;
//   `rein changes accept` applies it, the page goes on by itself, and the next message is answered.
// Screenshots go to tests/e2e/screenshots/ (not committed).
import { spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../support/fakeAnthropic.js';
import {
  CHROMIUM,
  ensureRendererBuilt,
  haveChromium,
  ROOT,
  startUiSession,
  type UiSession,
} from './support/uiHarness.js';

const SHOTS = join(ROOT, 'tests/e2e/screenshots');
const inCi = process.env.CI === 'true';
const available = haveChromium();

describe.runIf(!available && inCi)('the first hour in a browser', () => {
  it('needs Chromium under CI', () => {
    throw new Error(
      `Chromium is required for the UI end-to-end test under CI=true, and ${CHROMIUM} does not exist (apt-get install chromium)`,
    );
  });
});

/** `rein ARGS` in a shell of the daemon's machine, with the daemon's REIN_HOME. */
function reinCli(home: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, REIN_HOME: home, NO_COLOR: '1' };
    if (process.env.REIN_CODE_CACHE) env.REIN_CODE_CACHE = process.env.REIN_CODE_CACHE;
    const child = spawn(process.execPath, [join(ROOT, 'bin/rein.js'), ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe.skipIf(!available)(
  available ? 'the first hour in a browser' : `the first hour in a browser (skipped: ${CHROMIUM} not found)`,
  () => {
    let ui: UiSession;
    let page: Page;

    beforeAll(async () => {
      await ensureRendererBuilt();
      await mkdir(SHOTS, { recursive: true });
      // A fresh home: no key in the environment, none stored, no base URL.
      ui = await startUiSession(undefined, {
        env: { ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: undefined, ANTHROPIC_BASE_URL: undefined },
      });
      page = ui.page;
    }, 180_000);

    afterAll(async () => {
      await ui?.close();
    });

    const shot = (p: Page, name: string) => p.screenshot({ path: join(SHOTS, `${name}.png`) });
    const composer = (p: Page) => p.getByRole('textbox', { name: 'Message' });

    it('a message without a key ends at once with the error in words and what to do; "Starting…" goes away', async () => {
      await page.goto(ui.daemon.webUiUrl);
      await page.getByRole('heading', { name: 'Connect Rein to a model' }).waitFor();
      await page.getByRole('button', { name: 'Later' }).click();
      await composer(page).fill('Hello, is anyone there?');
      await composer(page).press('Enter');
      const error = page.locator('.message-list .notice-error');
      await error.waitFor();
      const said = (await error.textContent()) ?? '';
      expect(said).toContain('No API key: add one in Settings (or set ANTHROPIC_API_KEY / run rein auth set-key)');
      expect(await error.locator('code').first().textContent()).toBe('rein auth set-key');
      // Words, never the bare code.
      expect(said).not.toContain('no_api_key');
      expect(await error.getAttribute('data-code')).toBe('no_api_key');
      await page.locator('.run-indicator').waitFor({ state: 'detached' });
      expect(await page.getByText('Starting…').count()).toBe(0);
      // The composer takes the next message (nothing is stuck "running").
      expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
      await shot(page, 'first-message-no-key');
      expect(ui.problems.filter((p) => !/503|Service Unavailable/.test(p))).toEqual([]);
    });

    it('onboarding: "Save and start" with a local base URL waits for `rein changes accept`, which applies it, and the page goes on', async () => {
      const onboarding = await ui.newPage();
      await onboarding.goto(ui.daemon.webUiUrl);
      await onboarding.getByRole('heading', { name: 'Connect Rein to a model' }).waitFor();
      await onboarding.getByLabel('Base URL (optional)').fill(ui.fake.url);
      ui.fake.enqueue(text('pong'));
      await onboarding.getByRole('button', { name: 'Test connection' }).click();
      await onboarding.locator('.form-ok', { hasText: '✓' }).waitFor();

      await onboarding.getByRole('button', { name: 'Save and start' }).click();
      const waiting = onboarding.locator('.change-waiting');
      await waiting.waitFor();
      const id = await waiting.getAttribute('data-change-id');
      expect(id).toMatch(/^chg_[0-9a-f]{16}$/);
      const command = await waiting.locator('.change-command').textContent();
      expect(command).toBe(`REIN_HOME=${ui.daemon.home} rein changes accept ${id}`);
      expect(await waiting.textContent()).toContain('In a shell on the machine Rein runs on, run:');
      expect(await onboarding.locator('.form-error').count()).toBe(0);
      // Nothing is written until a person confirms it; the daemon printed it with the same command.
      await expect(readFile(join(ui.daemon.home, 'config.yaml'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
      await expect
        .poll(() => ui.daemon.output())
        .toContain(`change ${id} waits: Change the global settings: base_url (the default) → ${ui.fake.url}`);
      expect(ui.daemon.output()).toContain(`accept with: ${command}`);
      // The approvals view shows the same command on the change's card.
      await onboarding.getByRole('button', { name: 'Later' }).click();
      await onboarding
        .getByRole('navigation', { name: 'Main' })
        .getByRole('button', { name: /^Approvals/ })
        .click();
      const card = onboarding.locator(`.change-card[data-change-id="${id}"]`);
      await card.waitFor();
      expect(await card.locator('.change-command').textContent()).toBe(command);
      await shot(onboarding, 'approvals-change-command');

      // The onboarding screen again (a fresh tab), with the pending change shown, then confirmed from a shell.
      const again = await ui.newPage();
      await again.goto(ui.daemon.webUiUrl);
      await again.getByLabel('Base URL (optional)').fill(ui.fake.url);
      await again.getByRole('button', { name: 'Save and start' }).click();
      const second = again.locator('.change-waiting');
      await second.waitFor();
      const secondId = (await second.getAttribute('data-change-id'))!;
      await shot(again, 'onboarding-waits-for-shell');

      const accepted = await reinCli(ui.daemon.home, ['changes', 'accept', secondId, '--yes']);
      expect(accepted.code, accepted.stderr).toBe(0);
      expect(accepted.stdout).toContain(`Applied ${secondId}`);
      expect(await readFile(join(ui.daemon.home, 'config.yaml'), 'utf8')).toContain(`base_url: ${ui.fake.url}`);
      // The page follows the change: the onboarding is over and the chat is there.
      await composer(again).waitFor();
      expect(await again.getByRole('heading', { name: 'Connect Rein to a model' }).count()).toBe(0);
      // The other change asked for the same thing; it is left for the person to drop.
      expect((await reinCli(ui.daemon.home, ['changes', 'reject', id!])).code).toBe(0);

      ui.fake.enqueue(text('Hello from the local model.'));
      await composer(again).fill('Hello again');
      await composer(again).press('Enter');
      await expect
        .poll(() => again.locator('.msg-assistant').last().textContent(), { timeout: 15_000 })
        .toBe('Hello from the local model.');
      await shot(again, 'onboarding-confirmed-chat');
    });
  },
);
