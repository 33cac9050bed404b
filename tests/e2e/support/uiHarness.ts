/**
 * Everything the browser end-to-end test (and `npm run bench -- ui`) needs: the fake Messages API, a
 * real `rein daemon` child process on a free port with a temporary REIN_HOME, serving the built page
 * (out/renderer, kept current by the test run's global setup), and headless Chromium (Debian's, through
 * playwright-core) opening the address the daemon prints, `http://127.0.0.1:<port>/#token=…`, the way
 * a user does. Page, API and WebSocket all come from the daemon's own origin, with its real Host and
 * Origin checks and the Content-Security-Policy it sends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startFakeAnthropic, type FakeAnthropic, type Script } from '../../support/fakeAnthropic.js';
import { ROOT } from '../../support/rendererBuild.js';

export { ensureRendererBuilt, RENDERER_DIR, ROOT } from '../../support/rendererBuild.js';
export const CHROMIUM = process.env.REIN_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const haveChromium = (): boolean => existsSync(CHROMIUM);

/** JavaScript the page loads, raw and gzipped (what the budget of 400 KB gzipped is about). */
export async function bundleSize(
  rendererDir: string,
): Promise<{ files: { name: string; bytes: number; gzip: number }[]; gzip: number; bytes: number }> {
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
  /** The address the daemon printed for people to open: `<url>/#token=<token>`. */
  webUiUrl: string;
  proc: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

export interface DaemonChildOptions {
  /** Changes to the daemon's environment; `undefined` removes a variable (a fresh home with no key: `ANTHROPIC_API_KEY: undefined`). */
  env?: Record<string, string | undefined>;
}

/** `rein daemon --port 0` as a child process, its model calls going to `fake`; resolves once it prints the web UI's address. */
export async function startDaemonChild(fake: FakeAnthropic, opts: DaemonChildOptions = {}): Promise<DaemonChild> {
  const root = await mkdtemp(join(tmpdir(), 'rein-e2e-'));
  const home = join(root, 'home');
  const work = join(root, 'work');
  await mkdir(home, { recursive: true });
  await mkdir(work, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REIN_HOME: home,
    ANTHROPIC_BASE_URL: fake.url,
    ANTHROPIC_API_KEY: 'test-key',
    REIN_RETRY_BASE_MS: '1',
    REIN_SCHEDULE_BACKEND: 'daemon',
    NO_COLOR: '1',
  };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const proc = spawn(process.execPath, [join(ROOT, 'bin/rein.js'), 'daemon', '--port', '0', '--cwd', work], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((ok) => proc.once('exit', (code) => ok(code)));

  let printed: RegExpExecArray | null = null;
  while (!(printed = /^Web UI: (http:\/\/127\.0\.0\.1:(\d+))\/#token=(\S+)$/m.exec(out))) {
    if (proc.exitCode !== null) throw new Error(`rein daemon exited with ${proc.exitCode}:\n${out}`);
    if (/web UI is not built/.test(out))
      throw new Error(`rein daemon serves no web UI (the test run's global setup builds it):\n${out}`);
    await new Promise((ok) => setTimeout(ok, 25));
  }
  const [line, url, port, token] = printed;
  const info = JSON.parse(await readFile(join(home, 'daemon.json'), 'utf8')) as { port: number; token: string };
  if (info.port !== Number(port) || info.token !== token)
    throw new Error(`the printed address does not match daemon.json: ${line}`);
  return {
    port: info.port,
    token: info.token,
    home,
    work,
    url: url!,
    webUiUrl: line.slice('Web UI: '.length),
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

export interface UiSession {
  fake: FakeAnthropic;
  daemon: DaemonChild;
  browser: Browser;
  page: Page;
  /** Console errors and page errors seen so far (CSP violations show up here). */
  problems: string[];
  /** Another tab in the same browser. */
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

export async function startUiSession(
  script?: Script,
  opts: { viewport?: { width: number; height: number } } & DaemonChildOptions = {},
): Promise<UiSession> {
  const fake = await startFakeAnthropic(script ? { script } : {});
  const daemon = await startDaemonChild(fake, opts.env ? { env: opts.env } : {});
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1100, height: 720 } });
  const problems: string[] = [];
  const newPage = async () => {
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    return page;
  };
  const page = await newPage();
  return {
    fake,
    daemon,
    browser,
    page,
    problems,
    newPage,
    close: async () => {
      await browser.close().catch(() => undefined);
      await daemon.stop();
      await fake.close();
    },
  };
}

/** Opens the address `rein daemon` printed; returns the chat view's first meaningful paint (ms after navigation start). */
export async function openUi(
  s: UiSession,
  page: Page = s.page,
): Promise<{ chatReadyMs: number; firstContentfulPaintMs: number | undefined }> {
  await page.goto(s.daemon.webUiUrl);
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  return page.evaluate(async () => {
    for (let i = 0; i < 100 && performance.getEntriesByName('rein:chat-ready').length === 0; i++)
      await new Promise((ok) => setTimeout(ok, 10));
    const ready = performance.getEntriesByName('rein:chat-ready')[0];
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    return { chatReadyMs: ready ? ready.startTime : Number.NaN, firstContentfulPaintMs: fcp?.startTime };
  });
}
