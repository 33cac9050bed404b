// `npm run dev` showed a blank window: the dev CSP (script-src 'self') refused @vitejs/plugin-react's
// inline preamble and Vite's injected <style> elements. This runs the real dev server (the renderer part
// of electron.vite.config.ts, plugins and all) with the header the shell sends under a dev server
// (contentSecurityPolicy({ devServerOrigin })), opens it in headless Chromium, and checks:
// - the page renders, with its styles, and no CSP violation is reported;
// - the dev policy still refuses an inline script and an inline event handler (only styles are relaxed);
// - the build's index.html keeps the strict meta policy (the plugin is dev-only).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ViteDevServer } from 'vite';
import { contentSecurityPolicy } from '../../src-main/core/desktop/csp.js';
import { CHROMIUM, CHROMIUM_ARGS, ensureRendererBuilt, haveChromium, RENDERER_DIR, ROOT } from './support/uiHarness.js';

const inCi = process.env.CI === 'true';
const available = haveChromium();

describe.runIf(!available && inCi)('the dev server under the dev CSP', () => {
  it('needs Chromium under CI', () => {
    throw new Error(
      `Chromium is required for this test under CI=true, and ${CHROMIUM} does not exist (apt-get install chromium)`,
    );
  });
});

describe.skipIf(!available)(
  available ? 'the dev server under the dev CSP' : `the dev server under the dev CSP (skipped: ${CHROMIUM} not found)`,
  () => {
    let server: ViteDevServer;
    let browser: Browser;
    let origin: string;

    beforeAll(async () => {
      const { createServer } = await import('vite');
      const config = (await import('../../electron.vite.config.js')).default as unknown as {
        renderer: Record<string, unknown>;
      };
      server = await createServer({
        ...config.renderer,
        configFile: false,
        logLevel: 'silent',
        server: { host: '127.0.0.1', port: 0 },
      });
      await server.listen();
      const address = server.httpServer?.address();
      if (!address || typeof address === 'string') throw new Error('the dev server has no port');
      origin = `http://127.0.0.1:${address.port}`;
      // What the shell's session does to a dev-server page (window.ts secureSession): its own CSP header.
      const csp = contentSecurityPolicy({ devServerOrigin: origin, daemonPort: 7533 });
      server.middlewares.stack.unshift({
        route: '',
        handle: (_req: unknown, res: { setHeader(n: string, v: string): void }, next: () => void) => {
          res.setHeader('Content-Security-Policy', csp);
          next();
        },
      } as never);
      browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    it('renders the page with its styles and no CSP violation, and still refuses inline scripts', async () => {
      const page = await browser.newPage();
      const violations: string[] = [];
      const problems: string[] = [];
      await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
      await page.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (e) => {
          (window as unknown as { reportViolation(v: string): void }).reportViolation(
            `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`,
          );
        });
      });
      page.on('pageerror', (e) => problems.push(String(e)));
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      await page.goto(`${origin}/`);
      // No window.rein and no token: the page asks for one — it rendered.
      await page.locator('#root > *').first().waitFor({ timeout: 60_000 });
      // Vite's injected stylesheet applied (styles.css gives the body a non-default margin and font).
      const injected = await page.evaluate(() => document.querySelectorAll('style[data-vite-dev-id]').length);
      expect(injected).toBeGreaterThan(0);
      expect(await page.evaluate(() => getComputedStyle(document.body).margin)).toBe('0px');
      expect(violations).toEqual([]);
      expect(problems.filter((p) => /Content Security Policy|preamble/i.test(p))).toEqual([]);

      // Only styles are relaxed: an inline script and an inline handler stay refused.
      const ran = await page.evaluate(async () => {
        const s = document.createElement('script');
        s.textContent = 'window.__inlineRan = true';
        document.head.append(s);
        const img = document.createElement('img');
        img.setAttribute('onerror', 'window.__handlerRan = true');
        img.src = 'data:x';
        document.body.append(img);
        await new Promise((r) => setTimeout(r, 200));
        const w = window as unknown as { __inlineRan?: boolean; __handlerRan?: boolean };
        return { inline: w.__inlineRan === true, handler: w.__handlerRan === true };
      });
      expect(ran).toEqual({ inline: false, handler: false });
      expect(violations.some((v) => v.startsWith('script-src'))).toBe(true);
      await page.close();
    }, 120_000);

    it('the built page keeps the strict policy (the dev plugin does not apply to the build)', async () => {
      await ensureRendererBuilt();
      const html = await readFile(join(RENDERER_DIR, 'index.html'), 'utf8');
      const meta = /http-equiv="Content-Security-Policy"\s+content="([^"]*)"/.exec(html)?.[1];
      expect(meta).toBeDefined();
      expect(meta).toContain("script-src 'self';");
      expect(meta).toContain("style-src 'self';");
      expect(meta).not.toContain('unsafe-inline');
      expect(html).not.toContain('/@id/');
      const source = await readFile(join(ROOT, 'src-renderer/index.html'), 'utf8');
      expect(source).toContain(`content="${meta}"`);
    }, 180_000);
  },
);
