// The desktop UI end to end, in headless Chromium against a real `rein daemon` and the fake model: a
// streamed answer with a tool card, an approval from the approvals view, a denial the model hears
// about, stopping a run, an agent config refused field by field, and session search. Screenshots of
// the main views go to tests/e2e/screenshots/ (not committed).
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text, toolCall, tools } from '../support/fakeAnthropic.js';
import {
  bundleSize,
  CHROMIUM,
  haveChromium,
  openUi,
  RENDERER_DIR,
  ROOT,
  startUiSession,
  type UiSession,
} from './support/uiHarness.js';

const SHOTS = join(ROOT, 'tests/e2e/screenshots');
const inCi = process.env.CI === 'true';
const available = haveChromium();

describe.runIf(!available && inCi)('desktop UI in Chromium', () => {
  it('needs Chromium under CI', () => {
    throw new Error(
      `Chromium is required for the UI end-to-end test under CI=true, and ${CHROMIUM} does not exist (apt-get install chromium)`,
    );
  });
});

describe.skipIf(!available)(
  available
    ? 'desktop UI in Chromium'
    : `desktop UI in Chromium (skipped: ${CHROMIUM} not found; install Debian's chromium to run it)`,
  () => {
    let ui: UiSession;
    let page: Page;

    beforeAll(async () => {
      // The run's global setup has brought out/renderer up to date; `rein daemon` serves it.
      const size = await bundleSize(RENDERER_DIR);
      ui = await startUiSession();
      page = ui.page;
      await writeFile(join(ui.daemon.work, 'alpha.md'), '# Alpha\n');
      await writeFile(join(ui.daemon.work, 'beta.md'), '# Beta\n');
      await mkdir(SHOTS, { recursive: true });
      const paint = await openUi(ui);
      console.log(
        `JS ${(size.gzip / 1024).toFixed(1)} KB gzipped; chat view ready ${paint.chatReadyMs.toFixed(0)} ms, first contentful paint ${paint.firstContentfulPaintMs?.toFixed(0) ?? '?'} ms`,
      );
    }, 120_000);

    afterAll(async () => {
      await ui?.close();
    });

    const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
    const nav = (name: string) =>
      page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: new RegExp(`^${name}`) });
    const composer = () => page.getByRole('textbox', { name: 'Message' });
    const lastAnswer = () => page.locator('.msg-assistant').last();

    async function say(message: string) {
      await composer().fill(message);
      await composer().press('Enter');
    }

    it('takes the token from the address and removes it from the address bar', async () => {
      expect(page.url()).not.toContain('token');
      expect(page.url()).toBe(`${ui.daemon.url}/`);
    });

    it('streams the answer and shows the tool call as a card that opens to its arguments and result', async () => {
      ui.fake.enqueue(
        tools([toolCall('directory_list', { path: '.' })], 'Let me look at the folder.'),
        text('There are two notes here: alpha and beta, both short.', { chunkDelayMs: 40, chunkSize: 3 }),
      );
      await say('What notes do I have?');
      await expect.poll(() => page.locator('.msg-user').last().textContent()).toBe('What notes do I have?');
      const card = page.locator('.tool-card[data-tool="directory_list"]');
      await card.waitFor();
      // The answer is seen while it is still being written, then complete.
      await page.locator('.msg-assistant.streaming').waitFor();
      await expect
        .poll(() => lastAnswer().textContent(), { timeout: 15_000 })
        .toBe('There are two notes here: alpha and beta, both short.');
      await page.locator('.msg-assistant.streaming').waitFor({ state: 'detached' });
      expect(await card.getAttribute('class')).toContain('tool-ok');
      await card.locator('summary').click();
      await expect.poll(() => card.locator('.tool-body').textContent()).toContain('"path": "."');
      expect(await card.locator('.tool-preview').textContent()).toContain('alpha.md');
      await expect.poll(() => page.locator('.chat-usage').textContent()).toMatch(/\$\d/);
      await shot('chat');
    });

    it('queues an approval with a count badge, takes "Allow once" in the approvals view, and the run finishes', async () => {
      ui.fake.enqueue(tools([toolCall('bash', { command: 'touch approved.txt' })]), text('Created approved.txt.'));
      await say('Create approved.txt please.');
      await expect.poll(() => nav('Approvals').textContent(), { timeout: 15_000 }).toContain('1');
      await nav('Approvals').click();
      const card = page.locator('.approval-card', { hasText: 'touch approved.txt' });
      await card.waitFor();
      expect(await card.locator('.risk-badge').textContent()).toMatch(/risk/);
      await shot('approvals');
      await card.getByRole('button', { name: 'Allow once' }).click();
      await card.waitFor({ state: 'detached' });
      expect(await nav('Approvals').textContent()).toBe('Approvals');
      await nav('Chat').click();
      await expect.poll(() => lastAnswer().textContent(), { timeout: 15_000 }).toBe('Created approved.txt.');
      expect(existsSync(join(ui.daemon.work, 'approved.txt'))).toBe(true);
    });

    it('denies from the card in the chat, and the model is told', async () => {
      ui.fake.enqueue(
        tools([toolCall('bash', { command: 'rm approved.txt' })]),
        text('Understood: I left approved.txt where it is.'),
      );
      const before = ui.fake.requests.length;
      await say('Now delete approved.txt.');
      const card = page.locator('.message-list .approval-card', { hasText: 'rm approved.txt' });
      await card.getByRole('button', { name: 'Deny' }).click();
      await expect.poll(() => card.locator('.approval-decision').textContent()).toContain('Denied');
      await expect
        .poll(() => lastAnswer().textContent(), { timeout: 15_000 })
        .toBe('Understood: I left approved.txt where it is.');
      expect(existsSync(join(ui.daemon.work, 'approved.txt'))).toBe(true);
      // The request after the denial carries the tool result that says so.
      const told = ui.fake.requests.slice(before).at(-1)!;
      const lastTurn = JSON.stringify(told.body.messages.at(-1));
      expect(lastTurn).toContain('tool_result');
      expect(lastTurn.toLowerCase()).toContain('denied');
    });

    it('stops a running answer with Esc', async () => {
      ui.fake.enqueue({ kind: 'stall' });
      const asked = ui.fake.requests.length;
      await say('Think about it for a very long time.');
      const stop = page.getByRole('button', { name: 'Stop' });
      await stop.waitFor();
      // Stop once the model has the request: stopped earlier, the run would never take the stalled reply,
      // and the next test's request would get it instead.
      await expect.poll(() => ui.fake.requests.length).toBe(asked + 1);
      await composer().press('Escape');
      await page.locator('.notice', { hasText: 'Stopped.' }).last().waitFor();
      await stop.waitFor({ state: 'detached' });
    });

    it('refuses an invalid agent config on the field it concerns, before and after the daemon checks it', async () => {
      await nav('Agents').click();
      await page.getByRole('button', { name: 'New agent' }).click();
      await page.getByLabel('Name').fill('writer');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { name: 'writer' }).waitFor();
      await page.getByRole('tab', { name: 'Config' }).click();

      // Checked in the page: out of range.
      const turns = page.getByLabel('Max model turns');
      await turns.fill('5000');
      const turnsField = page.locator('[data-field="max_iterations"]');
      await expect.poll(() => turnsField.locator('.field-error').textContent()).toMatch(/1000/);
      expect(await turns.getAttribute('aria-invalid')).toBe('true');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Fix the marked config fields first.').waitFor();

      // Checked by the daemon only (durations): its error lands on the field too, and nothing is written.
      await turns.fill('10');
      await page.getByLabel('Every').fill('10s');
      await page.getByRole('button', { name: 'Save' }).click();
      const every = page.locator('[data-field="heartbeat.every"] .field-error');
      await expect.poll(() => every.textContent()).toMatch(/shorter than the minimum/);
      await shot('agents');
      const onDisk = await (
        await fetch(`${ui.daemon.url}/agents/writer`, { headers: { authorization: `Bearer ${ui.daemon.token}` } })
      ).json();
      expect(onDisk.config).toBeNull();

      await page.getByLabel('Every').fill('30m');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      const saved = await (
        await fetch(`${ui.daemon.url}/agents/writer`, { headers: { authorization: `Bearer ${ui.daemon.token}` } })
      ).json();
      expect(saved.config).toEqual({ max_iterations: 10, heartbeat: { every: '30m' } });

      // What the agent now does on its own: a heartbeat every 30 minutes, which spends nothing without goals.
      await page.getByRole('tab', { name: 'Activity' }).click();
      const heartbeat = page.getByRole('region', { name: 'Heartbeat' });
      await expect.poll(() => heartbeat.textContent()).toContain('30m');
      expect(await heartbeat.textContent()).toContain('HEARTBEAT.md is missing or empty');
      expect(await page.getByRole('region', { name: 'File watchers' }).textContent()).toContain('No watched folders.');
    });

    it('searches sessions with the matches highlighted, opens one read-only and continues it in the chat', async () => {
      await nav('Sessions').click();
      await page.getByRole('searchbox').fill('alpha');
      await page.getByRole('searchbox').press('Enter');
      const hit = page.locator('.pick.hit').first();
      await hit.waitFor({ timeout: 20_000 });
      expect((await hit.locator('mark').allTextContents()).map((t) => t.toLowerCase())).toContain('alpha');
      await hit.click();
      await page.locator('.session-reader').getByText('There are two notes here').waitFor();
      await shot('sessions');
      await page.getByRole('button', { name: 'Continue in chat' }).click();
      await page.locator('.chat-view').getByText('There are two notes here').waitFor();
    });

    it('renders Markdown in answers, but never raw HTML, script or a remote image', async () => {
      await nav('Chat').click();
      await page.getByRole('button', { name: 'New chat' }).click();
      ui.fake.enqueue(
        text(
          '## Result\n\n**Bold** and `code`, see [the docs](https://example.com/docs).\n\n' +
            'Inline <img src=x onerror="window.__pwned = 1"> stays text.\n\n<script>window.__pwned = 2</script>\n\n' +
            '![tracking pixel](https://example.com/pixel.png) and [bad](javascript:window.__pwned=3)\n\n```sh\nls -la\n```',
        ),
      );
      await say('Format something for me.');
      const answer = lastAnswer();
      await answer.locator('pre code').waitFor();
      await page.locator('.msg-assistant.streaming').waitFor({ state: 'detached' });
      expect(await answer.locator('h2').textContent()).toBe('Result');
      expect(await answer.locator('strong').textContent()).toBe('Bold');
      const link = answer.getByRole('link', { name: 'the docs' });
      expect(await link.getAttribute('href')).toBe('https://example.com/docs');
      expect(await link.getAttribute('target')).toBe('_blank');
      expect(await answer.locator('img, script, iframe').count()).toBe(0);
      expect(await answer.textContent()).toContain('<img src=x onerror="window.__pwned = 1">');
      expect(await answer.getByRole('link', { name: /tracking pixel/ }).getAttribute('href')).toBe(
        'https://example.com/pixel.png',
      );
      expect(await answer.locator('a', { hasText: 'bad' }).count()).toBe(0);
      expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
      await shot('chat-markdown');
    });

    it('offers the agent commands after "/" and the daemon expands what was sent', async () => {
      const created = await fetch(`${ui.daemon.url}/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ui.daemon.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'ops',
          prompt: 'You run ops.',
          commands: {
            summary: '---\ndescription: Summarise a topic\n---\nSummarise $ARGUMENTS in three bullet points.',
          },
        }),
      });
      expect(created.status).toBe(201);
      await nav('Chat').click();
      const picker = page.getByRole('combobox', { name: 'Agent' });
      await expect.poll(async () => (await picker.locator('option').allTextContents()).includes('ops')).toBe(true);
      await picker.selectOption('ops');
      await composer().fill('/su');
      const options = page.getByRole('listbox', { name: 'Commands' }).getByRole('option');
      await expect.poll(() => options.allTextContents()).toEqual(['/summary Summarise a topic']);
      await shot('chat-commands');
      await composer().press('Tab');
      expect(await composer().inputValue()).toBe('/summary ');
      ui.fake.enqueue(text('- one\n- two\n- three'));
      await composer().pressSequentially('the outage');
      await composer().press('Enter');
      await expect.poll(() => lastAnswer().locator('li').count(), { timeout: 15_000 }).toBe(3);
      expect(await page.locator('.msg-user').last().textContent()).toBe('/summary the outage');
      const sent = JSON.stringify(ui.fake.requests.at(-1)!.body.messages);
      expect(sent).toContain('Summarise the outage in three bullet points.');
    });

    it('opens an agent with broken files, shows each problem where it is, and saves the fix', async () => {
      const dir = join(ui.daemon.home, 'agents', 'broken');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'AGENT.md'), 'You were fine once.\n');
      await writeFile(join(dir, 'config.yaml'), '# set by hand\nmax_iterations: lots\n');
      await nav('Agents').click();
      await page.getByRole('button', { name: /^broken/ }).click();
      const problems = page.getByRole('alert', { name: "Problems in this agent's files" });
      await problems.waitFor();
      expect(await problems.textContent()).toContain('config.yaml, line 2: max_iterations:');
      // It opens on the config, as YAML (the form cannot show a file that does not validate).
      const yaml = page.getByLabel('config.yaml');
      expect(await yaml.inputValue()).toBe('# set by hand\nmax_iterations: lots\n');
      expect(await page.getByRole('radio', { name: 'Form' }).isDisabled()).toBe(true);
      await shot('agent-broken');

      await yaml.fill('# set by hand\nmax_iterations: 0\n');
      await page.getByRole('button', { name: 'Save' }).click();
      await expect
        .poll(() => page.locator('.config-tab .field-error').allTextContents())
        .toContainEqual(expect.stringContaining('max_iterations'));
      expect(await readFile(join(dir, 'config.yaml'), 'utf8')).toBe('# set by hand\nmax_iterations: lots\n');

      await yaml.fill('# set by hand\nmax_iterations: 8\n');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      await problems.waitFor({ state: 'detached' });
      expect(await readFile(join(dir, 'config.yaml'), 'utf8')).toBe('# set by hand\nmax_iterations: 8\n');
    });

    it('adds a schedule, refuses a bad expression on its field, runs it now and shows its log', async () => {
      await nav('Schedules').click();
      await page.getByRole('heading', { name: 'Schedules' }).waitFor();
      const form = page.getByRole('form', { name: 'New schedule' });
      await form.getByLabel('When (cron, local time)').fill('0 9 * * FRI-SUN');
      await form.getByLabel('Prompt').fill('Summarise the notes');
      await form.getByRole('button', { name: 'Add schedule' }).click();
      await expect.poll(() => form.locator('.form-error').textContent()).toContain('day of week');
      await form.getByLabel('When (cron, local time)').fill('0 9 * * 1-5');
      await form.getByRole('button', { name: 'Add schedule' }).click();
      const item = page.locator('.schedule-item').first();
      await item.waitFor();
      expect(await item.locator('.schedule-cron').textContent()).toBe('0 9 * * 1-5');
      ui.fake.enqueue(text('Alpha and beta are both short.'));
      await item.getByRole('button', { name: 'Run now' }).click();
      await expect.poll(() => item.locator('.schedule-last').textContent(), { timeout: 15_000 }).toContain('finished');
      await item.getByRole('button', { name: 'Last log' }).click();
      await expect
        .poll(() => item.locator('.schedule-log pre').textContent())
        .toContain('Alpha and beta are both short.');
      await shot('schedules');
    });

    it('shows settings, saves a model into config.yaml, tests the connection, and no Content-Security-Policy violation or page error happened', async () => {
      await nav('Settings').click();
      await page.getByRole('heading', { name: 'Settings' }).waitFor();
      // In a browser the daemon keeps no key; the page says where it goes instead of offering a field.
      await page.getByText('The daemon does not store API keys').waitFor();
      expect(await page.getByLabel('API key').count()).toBe(0);
      await shot('settings');
      await page.getByRole('button', { name: 'Test connection' }).click();
      await page.getByText(/Connected: claude-sonnet-5-5/).waitFor();
      expect(ui.fake.requests.at(-1)!.body.max_tokens).toBe(1);
      await page.getByLabel('Model', { exact: true }).fill('claude-opus-4-6');
      await page.locator('form', { hasText: 'Models and permissions' }).getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      expect(await readFile(join(ui.daemon.home, 'config.yaml'), 'utf8')).toContain('model: claude-opus-4-6');
      // 400s are the refusals this test provokes on purpose; a 404 is a file the page asked for and lacks.
      const serious = ui.problems.filter((p) =>
        /Content Security Policy|Refused to|Uncaught|TypeError|ReferenceError|status of 404/.test(p),
      );
      expect(serious).toEqual([]);
    });
  },
);
