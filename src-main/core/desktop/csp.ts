/**
 * The Content-Security-Policy of Rein's page, sent as a response header by the shell (the page also
 * carries it in a meta tag, which is all a file: page gets). Nothing inline, nothing evaluated; the
 * page may only talk to itself and the loopback daemon. Under `electron-vite dev` the dev server's
 * origin is the page's own, and its WebSocket (hot reload) is allowed too — and, in that case only,
 * inline styles: Vite's dev server puts every imported stylesheet into a `<style>` element (the build
 * links files instead). Scripts stay `'self'` in dev as well: the one inline script the dev server
 * would write, @vitejs/plugin-react's preamble, is served as a module file instead (devCsp.ts).
 */

export interface CspOptions {
  /** Port of the daemon in this process (the page may reach http:// and ws:// on 127.0.0.1 there). */
  daemonPort?: number;
  /** Origin of the dev server, e.g. http://localhost:5173; only for an unpackaged app. */
  devServerOrigin?: string;
}

export function contentSecurityPolicy({ daemonPort, devServerOrigin }: CspOptions = {}): string {
  const connect = ["'self'"];
  if (daemonPort !== undefined) {
    connect.push(`http://127.0.0.1:${daemonPort}`, `ws://127.0.0.1:${daemonPort}`);
  }
  if (devServerOrigin !== undefined) {
    const dev = new URL(devServerOrigin);
    connect.push(dev.origin, `ws://${dev.host}`);
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    devServerOrigin !== undefined ? "style-src 'self' 'unsafe-inline'" : "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${connect.join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-src 'none'",
    "frame-ancestors 'none'",
    "worker-src 'none'",
  ].join('; ');
}

/**
 * May the page load this file: URL? Only files under the renderer's own folder (after `..` is resolved
 * by URL parsing): a compromised page must not read ~/.ssh through <img src="file://…">.
 */
export function isAllowedFileUrl(url: string, rendererDir: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'file:') return false;
  let path: string;
  try {
    path = decodeURIComponent(parsed.pathname);
  } catch {
    return false;
  }
  if (path.split('/').includes('..')) return false;
  const root = rendererDir.replace(/\\/g, '/').replace(/\/+$/, '');
  const normalized = /^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path; // file:///C:/… on Windows
  return normalized === root || normalized.startsWith(`${root}/`);
}
