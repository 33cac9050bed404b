/**
 * Opens a sign-in page in the person's browser, for `rein mcp login` and for the daemon's sign-in
 * asked for by the web page (the desktop app hands the page to Electron's `shell.openExternal`
 * instead): each command of `$BROWSER` in turn (colon-separated; `%s` stands for the URL, else the URL
 * is added at the end), else the platform's opener (`open`, `xdg-open` (only with a display),
 * `start`). The URL is always printed too, for a terminal without a browser.
 *
 * When no browser could be started (no `$BROWSER`, no display, no opener, a server or a container),
 * the URL is printed again for the person to open, and that is all: Rein never requests the
 * authorization URL itself. An authorization server may grant without asking anybody (a pre-approved
 * client, a session cookie it trusts); a page fetched by Rein would then sign in with nobody having
 * looked at it. Tests stand in for the person with a `$BROWSER` of their own (tests/support/browserFetch.mjs).
 */
import { spawn } from 'node:child_process';

/** Where the opener says what it does (the CLI's stderr, the daemon's log). */
export interface OpenerOutput {
  write(text: string): unknown;
}

/** A command still running after this long is taken to be a browser that opened. */
const SETTLE_MS = 2_000;

function platformOpeners(env: NodeJS.ProcessEnv): string[] {
  if (process.platform === 'darwin') return ['open'];
  if (process.platform === 'win32') return ['start ""'];
  // Without a display (a server, a container, CI) no browser can open: do not pretend one did.
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return [];
  return ['xdg-open', 'sensible-browser', 'x-www-browser'];
}

/**
 * Runs one command for the URL; true when it started and did not fail within SETTLE_MS. Not through
 * core's process runner on purpose: a browser outlives the sign-in, so it is detached and let go.
 */
function tryCommand(command: string, url: string): Promise<boolean> {
  const line = command.includes('%s') ? command.replace(/%s/g, '"$1"') : `${command} "$1"`;
  return new Promise((resolve) => {
    let settled = false;
    const done = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(ok);
    };
    const child = spawn('/bin/sh', ['-c', line, 'rein-browser', url], { detached: true, stdio: 'ignore' });
    child.on('error', () => done(false));
    child.on('exit', (code) => done(code === 0));
    const timer = setTimeout(() => done(true), SETTLE_MS);
    timer.unref();
    child.unref();
  });
}

export function browserOpener(env: NodeJS.ProcessEnv, stderr: OpenerOutput): (url: URL) => Promise<void> {
  return async (url) => {
    stderr.write(`Opening your browser to sign in. If it does not open, visit:\n  ${url.href}\n`);
    if (await startBrowser(url, env)) return;
    stderr.write(
      `No browser could be started. To sign in, open this address in a browser (waiting up to 5 minutes):\n  ${url.href}\n`,
    );
  };
}

/** Any page for the person (an MCP server's URL-mode question they allowed): opened, and its address said. */
export function pageOpener(env: NodeJS.ProcessEnv, out: OpenerOutput): (url: URL) => Promise<void> {
  return async (url) => {
    out.write(`Opening in your browser, as an MCP server asked: ${url.href}\n`);
    if (!(await startBrowser(url, env))) out.write('No browser could be started; open the address above yourself.\n');
  };
}

/** Each command of $BROWSER, else the platform's opener, until one starts; false when none did. */
async function startBrowser(url: URL, env: NodeJS.ProcessEnv): Promise<boolean> {
  const fromEnv = (env.BROWSER ?? '')
    .split(':')
    .map((c) => c.trim())
    .filter(Boolean);
  for (const command of fromEnv.length > 0 ? fromEnv : platformOpeners(env)) {
    if (await tryCommand(command, url.href)) return true;
  }
  return false;
}
