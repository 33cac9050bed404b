// The Schedules view in headless Chromium against a real `rein daemon` (daemon backend): the form reads
// the cron expression back as it is typed — in words, with its next fire times, or the parser's message
// naming the wrong field — and each card shows its expression in words, its next time, its last run
// (recorded in the real store, as a run would record it) and a catch_up setting that is not the default.
//
// The browser's clock is pinned to Tuesday 1 December 2026, 12:00 in Berlin (the page computes the
// form's fire times and "2 h ago" from it); the daemon runs in Berlin time too, so its fire times are
// read in the zone they were computed in. The schedules' own times (1 January) never come due while
// the test runs.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatFireTime } from '../../src-main/core/api/cronWords.js';
import { ScheduleStore } from '../../src-main/core/schedule/store.js';
import { CHROMIUM, haveChromium, openUi, ROOT, startUiSession, type UiSession } from './support/uiHarness.js';

const SHOTS = join(ROOT, 'tests/e2e/screenshots');
const ZONE = 'Europe/Berlin';
const NOW = new Date('2026-12-01T12:00:00+01:00');
const available = haveChromium();

interface ScheduleJson {
  id: string;
  cron: string;
  next: string[];
}

describe.runIf(!available && process.env.CI === 'true')('Schedules view in Chromium', () => {
  it('needs Chromium under CI', () => {
    throw new Error(
      `Chromium is required for the UI end-to-end tests under CI=true, and ${CHROMIUM} does not exist (apt-get install chromium)`,
    );
  });
});

describe.skipIf(!available)(
  available ? 'Schedules view in Chromium' : `Schedules view in Chromium (skipped: ${CHROMIUM} not found)`,
  () => {
    let ui: UiSession;
    let context: BrowserContext;
    let page: Page;
    const problems: string[] = [];
    const made: ScheduleJson[] = [];

    async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
      const res = await fetch(`${ui.daemon.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${ui.daemon.token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const json = (await res.json()) as T;
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    }

    beforeAll(async () => {
      // The daemon child inherits the zone: its fire times are Berlin's, as the browser's are.
      process.env.TZ = ZONE;
      ui = await startUiSession();
      context = await ui.browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: ZONE });
      page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(String(e)));
      await page.clock.setFixedTime(NOW);
      await mkdir(SHOTS, { recursive: true });

      // Four schedules through the daemon's API, each with a last run recorded in the store the way a run
      // records it (the daemon reads the file on every list).
      const store = new ScheduleStore(ui.daemon.home);
      const create = async (cron: string, prompt: string, catchUp?: string) => {
        const s = await api<ScheduleJson>('POST', '/schedules', {
          cron,
          prompt,
          ...(catchUp ? { catch_up: catchUp } : {}),
        });
        made.push(s);
        return s.id;
      };
      const finished = await create('30 8 1 1 *', 'Write the new year report');
      await store.recordRun(finished, {
        at: '2026-12-01T09:55:00+01:00',
        ended_at: '2026-12-01T10:00:00+01:00',
        status: 'finished',
        message: 'Report written.',
        trigger: 'daemon',
      });
      const failed = await create('0 9 1 1 *', 'Check the invoices', 'skip');
      await store.recordRun(failed, {
        at: '2026-11-30T09:00:00+01:00',
        ended_at: '2026-11-30T09:00:04+01:00',
        status: 'failed',
        message: 'No API key: add one in Settings',
        trigger: 'daemon',
      });
      // A run whose process is alive (the daemon's) reads as running.
      const running = await create('0 7 1 1 *', 'Tidy the downloads', 'within 4h');
      await store.recordRun(running, {
        at: '2026-12-01T11:55:00+01:00',
        status: 'started',
        pid: ui.daemon.proc.pid!,
        trigger: 'hand',
      });
      const interrupted = await create('15 6 1 1 *', 'Back up the notes');
      await store.recordRun(interrupted, {
        at: '2026-11-27T09:00:00+01:00',
        ended_at: '2026-11-27T09:00:30+01:00',
        status: 'interrupted',
        message: 'stopped by SIGTERM',
        trigger: 'launchd',
      });

      await openUi(ui, page);
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('button', { name: /^Schedules/ })
        .click();
      await page.getByRole('heading', { name: 'Schedules' }).waitFor();
    }, 120_000);

    afterAll(async () => {
      await context?.close().catch(() => undefined);
      await ui?.close();
    });

    const form = () => page.getByRole('form', { name: 'New schedule' });
    const cronInput = () => form().getByLabel('When (cron, local time)');
    const reading = () => form().locator('.cron-reading');

    it('reads the expression in the form in words with its next fire times, and follows each keystroke', async () => {
      // The form starts with weekdays at nine.
      await expect.poll(() => reading().locator('.cron-words').textContent()).toBe('every weekday at 09:00');
      expect(await reading().locator('.cron-next').textContent()).toBe(
        'next Wed 2 Dec 09:00, Thu 3 Dec 09:00, Fri 4 Dec 09:00',
      );

      await cronInput().fill('*/15 * * * *');
      await expect.poll(() => reading().locator('.cron-words').textContent()).toBe('every 15 minutes');
      expect(await reading().locator('.cron-next').textContent()).toBe('next Tue 1 Dec 12:15, 12:30, 12:45');

      // Typed key by key: a half-written expression says what is missing, the finished one reads in words.
      await cronInput().fill('');
      await cronInput().pressSequentially('0 9,17');
      await expect
        .poll(() => reading().locator('.cron-problem').textContent())
        .toBe('expected five fields (minute hour day-of-month month day-of-week), got 2');
      expect(await cronInput().getAttribute('aria-invalid')).toBe('true');
      await cronInput().pressSequentially(' * * MON');
      await expect.poll(() => reading().locator('.cron-words').textContent()).toBe('at 09:00 and 17:00 on Mondays');
      expect(await reading().locator('.cron-next').textContent()).toBe('next Mon 7 Dec 09:00, 17:00, Mon 14 Dec 09:00');
      expect(await cronInput().getAttribute('aria-invalid')).toBe('false');

      await cronInput().fill('0 9 * * FRI-SUN');
      await expect
        .poll(() => reading().locator('.cron-problem').textContent())
        .toMatch(/^day of week: "FRI-SUN" is ambiguous.*write FRI,SAT,SUN or 5-7$/);
      expect(await reading().locator('.cron-words').count()).toBe(0);

      await cronInput().fill('0 0 1 * *');
      await expect
        .poll(() => reading().locator('.cron-words').textContent())
        .toBe('on the 1st of every month at 00:00');
      expect(await reading().locator('.cron-next').textContent()).toBe(
        'next Fri 1 Jan 2027 00:00, Mon 1 Feb 2027 00:00, Mon 1 Mar 2027 00:00',
      );
    });

    it('refuses an invalid expression on submit with one message naming the field', async () => {
      await cronInput().fill('0 9 * * 1-8');
      await form().getByLabel('Prompt').fill('Never added');
      await form().getByRole('button', { name: 'Add schedule' }).click();
      await expect
        .poll(() => form().locator('.form-error').allTextContents())
        .toEqual(['day of week: 8 is out of range 0-7 (0 and 7 are Sunday)']);
      expect((await api<{ schedules: ScheduleJson[] }>('GET', '/schedules')).schedules).toHaveLength(made.length);
      // Fixing the expression clears the refusal: no stale message beside a valid reading.
      await cronInput().fill('0 9 * * 1-5');
      await expect.poll(() => reading().locator('.cron-words').textContent()).toBe('every weekday at 09:00');
      expect(await form().locator('.form-error').count()).toBe(0);
      expect(await cronInput().getAttribute('aria-invalid')).toBe('false');
    });

    it('shows on each card the expression in words, the next time, the last run in words and a catch_up that is not the default', async () => {
      const card = (id: string) => page.locator(`.schedule-item[data-schedule-id="${id}"]`);
      const [finished, failed, running, interrupted] = made as [ScheduleJson, ScheduleJson, ScheduleJson, ScheduleJson];
      await card(finished.id).waitFor();

      expect(await card(finished.id).locator('.schedule-words').textContent()).toBe('on the 1st of January at 08:30');
      expect(await card(finished.id).locator('.schedule-last').textContent()).toBe(
        'Last run: finished 2 h ago — Report written.',
      );
      expect(await card(failed.id).locator('.schedule-last').textContent()).toBe(
        'Last run: failed yesterday 09:00: No API key: add one in Settings',
      );
      expect(await card(running.id).locator('.schedule-last').textContent()).toBe(
        'Last run: running now (started 5 min ago)',
      );
      expect(await card(interrupted.id).locator('.schedule-last').textContent()).toBe(
        'Last run: interrupted Fri 27 Nov 09:00: stopped by SIGTERM',
      );
      expect(await card(failed.id).locator('.schedule-last').getAttribute('class')).toContain('status-failed');

      // The next time is the daemon's (computed as its clock fires), read in local time.
      for (const s of made) {
        const next = await card(s.id).locator('.schedule-next').textContent();
        expect(next).toBe(`next ${formatFireTime(new Date(s.next[0]!), { now: NOW, timeZone: ZONE })}`);
        expect(next).toMatch(
          new RegExp(
            `^next \\w{3} 1 Jan( \\d{4})? ${s.cron.split(' ')[1]!.padStart(2, '0')}:${s.cron.split(' ')[0]!.padStart(2, '0')}$`,
          ),
        );
      }

      expect(await card(finished.id).locator('.schedule-catch-up').count()).toBe(0);
      expect(await card(failed.id).locator('.schedule-catch-up').textContent()).toBe('a missed time is skipped');
      expect(await card(running.id).locator('.schedule-catch-up').textContent()).toBe(
        'a missed time runs only within 4h of it',
      );
      await page.screenshot({ path: join(SHOTS, 'schedules-cards.png'), fullPage: true });
    });

    it('adds the typed schedule, whose new card reads it in words with no run yet', async () => {
      await cronInput().fill('0 0 1 * *');
      await form().getByLabel('Prompt').fill('Send the monthly summary');
      await form().getByRole('button', { name: 'Add schedule' }).click();
      const card = page.locator('.schedule-item', { hasText: 'Send the monthly summary' });
      await card.waitFor();
      expect(await card.locator('.schedule-words').textContent()).toBe('on the 1st of every month at 00:00');
      expect(await card.locator('.schedule-last').textContent()).toBe('Last run: none yet');
      expect(await card.locator('.schedule-next').textContent()).toMatch(/^next \w{3} 1 \w{3}( \d{4})? 00:00$/);
      await page.setViewportSize({ width: 480, height: 720 });
      await page.screenshot({ path: join(SHOTS, 'schedules-narrow.png'), fullPage: true });
      const serious = problems.filter((p) =>
        /Content Security Policy|Refused to|Uncaught|TypeError|ReferenceError|status of 404/.test(p),
      );
      expect(serious).toEqual([]);
    });
  },
);
