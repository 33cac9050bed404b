/**
 * Serves a folder of built web UI files (the renderer's browser build). They need no token (a browser
 * must load the page before it can hold one) but still pass the Host and Origin checks. Only GET/HEAD;
 * paths are resolved inside the folder and anything that escapes it is refused, also through a
 * symlink: the file's real path must lie inside the folder's real path. Unknown paths without an
 * extension get index.html (client-side routing).
 *
 * Pages go out with a Content-Security-Policy header: nothing inline or evaluated, and connections only
 * to this daemon (`'self'` for HTTP, and its WebSocket named outright, which older engines do not
 * count as `'self'`). The page may not be framed, so no other site can overlay it.
 */
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

export type StaticHandler = (req: IncomingMessage, res: ServerResponse, pathname: string) => Promise<boolean>;

/** A handler for `root`; it answers and returns true, or returns false when it has no such file. */
export function staticFiles(root: string): StaticHandler {
  const base = resolve(root);
  // The folder itself may be a link (a build output linked into place): what it points at is the root.
  const realInside = async (file: string): Promise<string | undefined> => {
    const [r, real] = await Promise.all([realpath(base).catch(() => undefined), realpath(file).catch(() => undefined)]);
    return r !== undefined && real !== undefined && real.startsWith(r.endsWith(sep) ? r : r + sep) ? real : undefined;
  };
  return async (req, res, pathname) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    let rel: string;
    try {
      rel = decodeURIComponent(pathname);
    } catch {
      return false;
    }
    if (rel.includes('\0')) return false;
    let file = resolve(join(base, rel));
    if (file !== base && !file.startsWith(base + sep)) return false;
    let info = await stat(file).catch(() => undefined);
    if (info?.isDirectory()) {
      file = join(file, 'index.html');
      info = await stat(file).catch(() => undefined);
    } else if (!info && extname(rel) === '') {
      file = join(base, 'index.html');
      info = await stat(file).catch(() => undefined);
    }
    if (!info?.isFile()) return false;
    // A symlink inside the folder that points out of it: refused. The file read is the one checked.
    const real = await realInside(file);
    if (real === undefined) return false;
    const isPage = extname(file).toLowerCase() === '.html';
    res.writeHead(200, {
      'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': info.size,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-cache',
      'referrer-policy': 'no-referrer',
      ...(isPage ? { 'content-security-policy': pagePolicy(req.headers.host), 'x-frame-options': 'DENY' } : {}),
    });
    if (req.method === 'HEAD') {
      res.end();
      return true;
    }
    await new Promise<void>((done) => {
      createReadStream(real)
        .on('error', () => res.destroy())
        .on('close', done)
        .pipe(res);
    });
    return true;
  };
}

/**
 * The page's policy. `host` is the request's Host header, which the security check has already
 * matched against this daemon's own names and port, so it is safe to name in the policy.
 */
export function pagePolicy(host: string | undefined): string {
  const connect = ["'self'"];
  if (host && /^[a-z0-9.\-[\]:]+$/i.test(host)) connect.push(`ws://${host.toLowerCase()}`);
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${connect.join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
