// MCP servers in the app, end to end: headless Chromium against a real `rein daemon` (web mode) with
// an agent whose config names a real stdio server (@modelcontextprotocol/server-everything) and one
// whose program exits at once. The agent editor's "MCP servers" tab follows a run that starts them
// (healthy with its tools; the broken one with its last error) without a click, Connect and Reconnect
// act, Sign in takes an http server that asks for it (a fake OAuth server) to healthy, and Settings
// says how to add a server to the global config. A screenshot goes next to the others.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { text } from '../support/fakeAnthropic.js';
import { startFakeMcpOAuth } from '../support/fakeMcpOAuth.js';
import { useLeakCheck } from '../support/leaks.js';
import { EVERYTHING_BIN } from '../support/mcpPeers.js';
import {
  CHROMIUM,
  ensureRendererBuilt,
  haveChromium,
  openUi,
  ROOT,
  startUiSession,
  type UiSession,
} from './support/uiHarness.js';

const SHOTS = join(ROOT, 'tests/e2e/screenshots');
const inCi = process.env.CI === 'true';
const available = haveChromium();

useLeakCheck();

describe.runIf(!available && inCi)('MCP servers in the app', () => {
  it('needs Chromium under CI', () => {
    throw new Error(
      `Chromium is required for the UI end-to-end test under CI=true, and ${CHROMIUM} does not exist (apt-get install chromium)`,
    );
  });
});

describe.skipIf(!available)(
  available ? 'MCP servers in the app' : `MCP servers in the app (skipped: ${CHROMIUM} not found)`,
  () => {
    let ui: UiSession;
    let page: Page;

    beforeAll(async () => {
      await ensureRendererBuilt();
      await mkdir(SHOTS, { recursive: true });
    }, 180_000);

    const nav = (name: string) =>
      page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: new RegExp(`^${name}`) });
    const item = (name: string) => page.locator(`.mcp-server[data-server="${name}"]`);
    const badge = (name: string) => item(name).locator('.mcp-state');

    /** Agent files written on disk, as a person (or `rein mcp add`) would: over the API an MCP server waits for a person to confirm it (`rein changes accept`). */
    async function agent(name: string, config: string) {
      const dir = join(ui.daemon.home, 'agents', name);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'AGENT.md'), 'You use MCP tools.\n');
      await writeFile(join(dir, 'config.yaml'), config);
    }

    // One test from start to stop: the daemon keeps the servers it started until it stops, and the leak
    // check wants every process this test started gone at its end.
    it('shows an agent’s servers in its editor, follows a run that starts them, connects and reconnects, and Settings says how to add one', async () => {
      const oauth = await startFakeMcpOAuth();
      // The daemon's browser for sign-in pages: a fetch that follows the redirects, as a browser would.
      const browserBefore = process.env.BROWSER;
      process.env.BROWSER = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'tests/support/browserFetch.mjs'))}`;
      ui = await startUiSession();
      if (browserBefore === undefined) delete process.env.BROWSER;
      else process.env.BROWSER = browserBefore;
      page = ui.page;
      try {
        const config = {
          mcp_servers: {
            everything: { command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] },
            broken: {
              command: process.execPath,
              args: ['-e', 'process.stderr.write("cannot start: no config\\n"); process.exit(3)'],
              connect_timeout_seconds: 10,
            },
          },
        };
        await agent('toolsmith', `# servers for the MCP panel test\n${JSON.stringify(config, null, 2)}\n`);
        await openUi(ui);

        await nav('Agents').click();
        await page.getByRole('button', { name: /^toolsmith/ }).click();
        await page.getByRole('heading', { name: 'toolsmith' }).waitFor();
        await page.getByRole('tab', { name: 'MCP servers' }).click();
        await expect.poll(() => badge('everything').textContent()).toBe('not started');
        expect(await badge('broken').textContent()).toBe('not started');
        expect(await item('everything').getByRole('button', { name: 'Connect everything' }).isVisible()).toBe(true);

        // A run of the agent starts its servers; the open panel sees it without a click.
        ui.fake.enqueue(text('Servers are up.'));
        const run = await fetch(`${ui.daemon.url}/message`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ui.daemon.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ agent: 'toolsmith', text: 'Start your tools.' }),
        });
        expect(run.status).toBe(200);
        await expect.poll(() => badge('everything').textContent(), { timeout: 15_000 }).toBe('healthy');
        const everything = item('everything');
        expect(await everything.locator('.mcp-server-facts').textContent()).toMatch(
          /^stdio · \d+ tools · mcp-servers\/everything/,
        );
        await everything.locator('.mcp-tools summary').click();
        expect(await everything.locator('.mcp-tool-list code').allTextContents()).toEqual(
          expect.arrayContaining(['echo', 'get-sum']),
        );
        expect(await everything.getByRole('button').count()).toBe(0);

        const broken = item('broken');
        await expect.poll(() => badge('broken').textContent(), { timeout: 15_000 }).toMatch(/^(disconnected|dormant)$/);
        await expect
          .poll(() => broken.locator('.mcp-error').textContent())
          .toMatch(/^Last error: .*exited with code 3.*cannot start: no config/);
        await page.screenshot({ path: join(SHOTS, 'mcp-servers.png') });

        // Reconnect tries at once and shows the failure again.
        await broken.getByRole('button', { name: 'Reconnect broken' }).click();
        await expect.poll(() => broken.locator('.mcp-error').textContent()).toMatch(/exited with code 3/);
        expect(await broken.locator('.mcp-times').textContent()).toMatch(/since/);

        // Another agent's servers, not started by any run: Connect starts them; an http server that asks
        // for a sign-in gets one with Sign in (the daemon's $BROWSER is a fetch that follows the grant).
        await agent(
          'helper',
          `mcp_servers:\n  everything:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(EVERYTHING_BIN)}, stdio]\n` +
            `  wiki:\n    type: http\n    url: ${oauth.url}\n`,
        );
        await nav('Chat').click();
        await nav('Agents').click();
        await page.getByRole('button', { name: /^helper/ }).click();
        await page.getByRole('heading', { name: 'helper' }).waitFor();
        await page.getByRole('tab', { name: 'MCP servers' }).click();
        // Connected from elsewhere (another window, a script): the daemon's mcp_status event updates this
        // panel, long before its 30-second look.
        await expect.poll(() => badge('everything').textContent()).toBe('not started');
        const connected = await fetch(`${ui.daemon.url}/mcp/servers/everything/reconnect`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ui.daemon.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ agent: 'helper' }),
        });
        expect(connected.status).toBe(200);
        await expect.poll(() => badge('everything').textContent(), { timeout: 10_000 }).toBe('healthy');
        expect(await item('everything').locator('.mcp-tools summary').textContent()).toMatch(/^\d+ tools$/);

        await item('wiki').getByRole('button', { name: 'Connect wiki' }).click();
        await expect.poll(() => badge('wiki').textContent(), { timeout: 15_000 }).toBe('needs sign-in');
        expect(await item('wiki').locator('.mcp-server-facts').textContent()).toBe('HTTP · 0 tools');
        await item('wiki').getByRole('button', { name: 'Sign in wiki' }).click();
        await expect.poll(() => badge('wiki').textContent(), { timeout: 15_000 }).toBe('healthy');
        expect(await item('wiki').locator('.mcp-server-facts').textContent()).toMatch(
          /^HTTP · 1 tool · .* · signed in$/,
        );
        expect(oauth.authorizations).toHaveLength(1);
        expect(existsSync(join(ui.daemon.home, 'secrets', 'mcp-oauth', 'wiki.json'))).toBe(true);

        // The global config has none: Settings says how to add one.
        await nav('Settings').click();
        const section = page.getByRole('region', { name: 'MCP servers' });
        await expect.poll(() => section.textContent()).toContain('No MCP servers in the global config.');
        expect(await section.textContent()).toContain('rein mcp add NAME --command … | --url …');
        const serious = ui.problems.filter((p) =>
          /Content Security Policy|Refused to|Uncaught|TypeError|ReferenceError|status of 404/.test(p),
        );
        expect(serious).toEqual([]);
      } finally {
        await ui.close();
        await oauth.close();
      }
    }, 90_000);
  },
);
