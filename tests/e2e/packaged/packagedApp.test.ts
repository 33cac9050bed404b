/**
 * Smoke test of a packaged Rein (run by .github/workflows/macos.yml and the Linux job after
 * electron-builder): the app starts from its package, makes its tray icon and its window, the window
 * hides on close (a menu-bar app keeps running), and the headless CLI mode that launchd jobs use answers.
 *
 *   REIN_PACKAGED_APP=dist/mac-arm64/Rein.app/Contents/MacOS/Rein npx vitest run tests/e2e/packaged
 *
 * REIN_PACKAGED_APP is the executable of a build whose Node inspector fuse is on (Playwright's _electron
 * drives the main process through it; the workflow builds that variant with `--dir` beside the shipped
 * one, which it checks with `@electron/fuses read`). REIN_PACKAGED_CLI_APP, when set, is the shipped
 * (fused) executable for the headless check; else REIN_PACKAGED_APP is used. Skipped without them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron, type ElectronApplication } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const app = process.env.REIN_PACKAGED_APP;
const cliApp = process.env.REIN_PACKAGED_CLI_APP || app;
const linuxArgs = process.platform === 'linux' ? ['--no-sandbox'] : []; // CI runners' AppArmor: docs/release.md

describe.skipIf(!app)(
  app ? `packaged app ${app}` : 'packaged app (skipped: set REIN_PACKAGED_APP to a packaged Rein executable)',
  () => {
    let home = '';
    let electronApp: ElectronApplication | undefined;
    const env = () => ({
      ...process.env,
      HOME: home,
      REIN_HOME: join(home, '.rein'),
      ANTHROPIC_API_KEY: 'sk-ant-smoke-test-not-a-key',
    });

    beforeAll(async () => {
      if (!existsSync(app!)) throw new Error(`REIN_PACKAGED_APP=${app} does not exist`);
      home = mkdtempSync(join(tmpdir(), 'rein-packaged-'));
    });
    afterAll(async () => {
      await electronApp?.close().catch(() => undefined);
      rmSync(home, { recursive: true, force: true });
    });

    it(
      'starts with its tray icon and its window, which hides on close instead of quitting',
      { timeout: 120_000 },
      async () => {
        electronApp = await _electron.launch({ executablePath: app!, args: linuxArgs, env: env(), timeout: 90_000 });
        const page = await electronApp.firstWindow({ timeout: 90_000 });
        await page.waitForLoadState('domcontentloaded');
        expect(page.url()).toMatch(/^file:.*index\.html/);
        await expect
          .poll(
            () => electronApp!.evaluate(() => (globalThis as { __reinTrays?: Set<unknown> }).__reinTrays?.size ?? 0),
            { timeout: 30_000 },
          )
          .toBe(1);
        expect(await electronApp.evaluate(({ app: a }) => a.isPackaged)).toBe(true);

        const shown = await electronApp.evaluate(({ BrowserWindow }) => {
          const w = BrowserWindow.getAllWindows().find((x) => x.webContents.getURL().endsWith('index.html'));
          w?.show();
          return w?.isVisible() ?? false;
        });
        expect(shown).toBe(true);
        await electronApp.evaluate(({ BrowserWindow }) =>
          BrowserWindow.getAllWindows()
            .find((x) => x.webContents.getURL().endsWith('index.html'))
            ?.close(),
        );
        await expect
          .poll(
            () =>
              electronApp!.evaluate(({ BrowserWindow }) =>
                BrowserWindow.getAllWindows().map((w) => ({ destroyed: w.isDestroyed(), visible: w.isVisible() })),
              ),
            { timeout: 15_000 },
          )
          .toContainEqual({ destroyed: false, visible: false });
      },
    );

    it('answers `--headless schedule list --json` as a launchd job would start it', { timeout: 120_000 }, () => {
      const r = spawnSync(cliApp!, [...linuxArgs, '--headless', 'schedule', 'list', '--json'], {
        env: env(),
        encoding: 'utf8',
        timeout: 90_000,
      });
      expect(r.status, `stderr: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(expect.anything());
    });
  },
);
