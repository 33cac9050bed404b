/**
 * Everything the browser end-to-end test (and `npm run bench -- ui`) needs: the renderer built with
 * the project's own electron-vite config, the fake Messages API, a real `rein daemon` child process on
 * a free port with a temporary REIN_HOME, and headless Chromium (Debian's, through playwright-core)
 * showing the page the way a user opens it: the daemon's address with `#token=…`.
 *
 * The page must come from the daemon's own origin: the daemon refuses other Origins. While `rein
 * daemon` does not serve the built renderer at `/` yet, the browser is given those files by
 * intercepting the page's requests to the daemon's origin for non-API paths (`page.route`); API calls
 * and the WebSocket still go to the real daemon, with the real Origin checks.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startFakeAnthropic, type FakeAnthropic, type Script } from '../../support/fakeAnthropic.js';

export const ROOT = resolve(import.meta.dirname, '../../..');
export const CHROMIUM = process.env.REIN_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export const haveChromium = (): boolean => existsSync(CHROMIUM);

/** Builds the page with electron-vite's renderer config (the same one `npm run build` uses) into `outDir/renderer`. */
export async function buildRenderer(outDir: string): Promise<string> {
  const { resolveConfig } = await import('electron-vite');
  const { build } = await import('vite');
  const { config } = await resolveConfig({ root: ROOT, configFile: join(ROOT, 'electron.vite.config.ts'), build: { outDir }, logLevel: 'error' }, 'build', 'production');
  if (!config?.renderer) throw new Error('electron.vite.config.ts has no renderer config');
  await build({ ...config.renderer, logLevel: 'error' });
  return join(outDir, 'renderer');
}

/** JavaScript the page loads, raw and gzipped (what the budget of 400 KB gzipped is about). */
export async function bundleSize(rendererDir: string): Promise<{ files: { name: string; bytes: number; gzip: number }[]; gzip: number; bytes: number }> {
  const dir = join(rendererDir, 'assets');
  const files = [];
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.js')).sort()) {
    const data = await readFile(join(dir, name));
    files.push({ name, bytes: data.length, gzip: gzipSync(data, { level: 9 }).length });
  }
  return { files, bytes: files.reduce((a, f) => a + f.bytes, 0), gzip: files.reduce((a, f) => a + f.gzip, 0) };
}

export interface DaemonChild {
  port: number;
  token: string;
  home: string;
  /** Working folder of runs (`--cwd`). */
  work: string;
  url: string;
  proc: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** `rein daemon --port 0` as a child process, its model calls going to `fake`. */
export async function startDaemonChild(fake: FakeAnthropic): Promise<DaemonChild> {
  const root = await mkdtemp(join(tmpdir(), 'rein-e2e-'));
  const home = join(root, 'home');
  const work = join(root, 'work');
  await mkdir(home, { recursive: true });
  await mkdir(work, { recursive: true });
  const proc = spawn(process.execPath, [join(ROOT, 'bin/rein.js'), 'daemon', '--port', '0', '--cwd', work], {
    env: {
      ...process.env,
      REIN_HOME: home,
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: 'test-key',
      REIN_RETRY_BASE_MS: '1',
      NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((ok) => proc.once('exit', (code) => ok(code)));

  // daemon.json appears once the daemon listens; it holds the port and the token.
  const infoFile = join(home, 'daemon.json');
  let info: { port: number; token: string } | undefined;
  while (!info) {
    if (proc.exitCode !== null) throw new Error(`rein daemon exited with ${proc.exitCode}:\n${out}`);
    try {
      info = JSON.parse(await readFile(infoFile, 'utf8')) as { port: number; token: string };
    } catch {
      await new Promise((ok) => setTimeout(ok, 25));
    }
  }
  return {
    port: info.port,
    token: info.token,
    home,
    work,
    url: `http://127.0.0.1:${info.port}`,
    proc,
    output: () => out,
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      // The daemon gives runs 5 s to finish; past that, do not let a stuck child hold the test run.
      const timer = setTimeout(() => proc.exitCode === null && proc.kill('SIGKILL'), 8_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png' };
const API_PREFIXES = ['/health', '/status', '/agents', '/skills', '/sessions', '/message', '/cancel', '/approval', '/events', '/ws', '/hooks', '/token', '/shutdown', '/settings'];

/** Does the daemon itself serve the page at `/`? */
export async function daemonServesUi(d: DaemonChild): Promise<boolean> {
  const res = await fetch(`${d.url}/`).catch(() => undefined);
  return !!res && res.ok && (await res.text()).includes('id="root"');
}

/** Serves `rendererDir` to `page` for the daemon's origin (paths outside the API), leaving the API to the daemon. */
export async function serveUiFrom(page: Page, d: DaemonChild, rendererDir: string): Promise<void> {
  await page.route(`${d.url}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (API_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`))) return route.continue();
    const file = join(rendererDir, path === '/' ? 'index.html' : path);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile() || !file.startsWith(rendererDir)) return route.fulfill({ status: 404, body: 'not found' });
    return route.fulfill({ status: 200, contentType: TYPES[extname(file)] ?? 'application/octet-stream', body: await readFile(file) });
  });
}

export interface UiSession {
  fake: FakeAnthropic;
  daemon: DaemonChild;
  browser: Browser;
  page: Page;
  /** Console errors and page errors seen so far (CSP violations show up here). */
  problems: string[];
  /** How the page was served: by the daemon, or intercepted from the build. */
  servedBy: 'daemon' | 'intercept';
  /** Another tab in the same browser, served the same way. */
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function startUiSession(rendererDir: string, script?: Script): Promise<UiSession> {
  const fake = await startFakeAnthropic(script ? { script } : {});
  const daemon = await startDaemonChild(fake);
  const servedBy = (await daemonServesUi(daemon)) ? 'daemon' : 'intercept';
  // A page handed over by the interception did not come from a loopback socket, so Chromium's Local
  // Network Access checks would treat its WebSocket to 127.0.0.1 as a public page reaching into the
  // local network. A page the daemon serves itself needs no such switch.
  const args = servedBy === 'intercept' ? [...CHROMIUM_ARGS, '--disable-features=LocalNetworkAccessChecks'] : CHROMIUM_ARGS;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args });
  const context = await browser.newContext({ viewport: { width: 1100, height: 720 } });
  const problems: string[] = [];
  const newPage = async () => {
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    if (servedBy === 'intercept') await serveUiFrom(page, daemon, rendererDir);
    return page;
  };
  const page = await newPage();
  return {
    fake,
    daemon,
    browser,
    page,
    problems,
    servedBy,
    newPage,
    close: async () => {
      await browser.close().catch(() => undefined);
      await daemon.stop();
      await fake.close();
    },
  };
}

/** Opens the page as `rein daemon`'s printed address does; returns the chat view's first meaningful paint (ms after navigation start). */
export async function openUi(s: UiSession, page: Page = s.page): Promise<{ chatReadyMs: number; firstContentfulPaintMs: number | undefined }> {
  await page.goto(`${s.daemon.url}/#token=${s.daemon.token}`);
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  return page.evaluate(async () => {
    for (let i = 0; i < 100 && performance.getEntriesByName('rein:chat-ready').length === 0; i++) await new Promise((ok) => setTimeout(ok, 10));
    const ready = performance.getEntriesByName('rein:chat-ready')[0];
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    return { chatReadyMs: ready ? ready.startTime : Number.NaN, firstContentfulPaintMs: fcp?.startTime };
  });
}
