import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contentSecurityPolicy, isAllowedFileUrl } from '../../../src-main/core/desktop/csp.js';
import {
  devIndexHtml,
  PREAMBLE_MODULE_URL,
  reinDevCsp,
  withInlineStyles,
} from '../../../src-main/core/desktop/devCsp.js';

const directives = (csp: string) => new Map(csp.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]));

describe('contentSecurityPolicy', () => {
  it('allows nothing inline or evaluated, and connects only to the page and the loopback daemon', () => {
    const csp = contentSecurityPolicy({ daemonPort: 7533 });
    expect(csp).not.toMatch(/unsafe-(inline|eval)|\*/);
    const d = directives(csp);
    expect(d.get('default-src')).toEqual(["'none'"]);
    expect(d.get('script-src')).toEqual(["'self'"]);
    expect(d.get('object-src')).toEqual(["'none'"]);
    expect(d.get('frame-ancestors')).toEqual(["'none'"]);
    expect(d.get('connect-src')).toEqual(["'self'", 'http://127.0.0.1:7533', 'ws://127.0.0.1:7533']);
  });

  it('adds the dev server and its hot-reload socket only when asked', () => {
    expect(directives(contentSecurityPolicy()).get('connect-src')).toEqual(["'self'"]);
    expect(directives(contentSecurityPolicy({ devServerOrigin: 'http://localhost:5173/' })).get('connect-src')).toEqual(
      ["'self'", 'http://localhost:5173', 'ws://localhost:5173'],
    );
  });
});

describe('the packaged policy', () => {
  it('is exactly the strict policy (a dev server changes nothing unless one is followed)', () => {
    expect(contentSecurityPolicy({ daemonPort: 7533 })).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
        "connect-src 'self' http://127.0.0.1:7533 ws://127.0.0.1:7533; object-src 'none'; base-uri 'none'; form-action 'none'; " +
        "frame-src 'none'; frame-ancestors 'none'; worker-src 'none'",
    );
  });
});

describe('the dev policy', () => {
  it('relaxes only style-src, and only under a dev server', () => {
    const packaged = directives(contentSecurityPolicy({ daemonPort: 7533 }));
    const dev = directives(contentSecurityPolicy({ daemonPort: 7533, devServerOrigin: 'http://localhost:5173' }));
    expect(dev.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(dev.get('script-src')).toEqual(["'self'"]);
    for (const [name, values] of packaged)
      if (name !== 'style-src' && name !== 'connect-src') expect(dev.get(name)).toEqual(values);
  });

  it('withInlineStyles adds unsafe-inline to style-src once and touches nothing else', () => {
    expect(withInlineStyles("default-src 'self'; script-src 'self'; style-src 'self'")).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'",
    );
    expect(withInlineStyles("style-src 'self' 'unsafe-inline'")).toBe("style-src 'self' 'unsafe-inline'");
  });
});

describe("devIndexHtml (the dev server's index.html)", () => {
  const source = readFileSync(join(import.meta.dirname, '../../../src-renderer/index.html'), 'utf8');
  const preamble = `<script type="module">import { injectIntoGlobalHook } from "/@react-refresh";
injectIntoGlobalHook(window);
window.$RefreshReg$ = () => {};
window.$RefreshSig$ = () => (type) => type;</script>`;
  const served = source.replace(
    '<head>',
    `<head>\n    ${preamble}\n    <script type="module" src="/@vite/client"></script>`,
  );

  it('serves the React preamble as a module file and allows inline styles in the meta policy, nothing else', () => {
    const html = devIndexHtml(served);
    expect(html).toContain(`<script type="module" src="${PREAMBLE_MODULE_URL}"></script>`);
    expect(html).not.toContain('injectIntoGlobalHook');
    const meta = /content="([^"]*default-src[^"]*)"/.exec(html)![1]!;
    const before = /content="([^"]*default-src[^"]*)"/.exec(source)![1]!;
    expect(meta).toBe(withInlineStyles(before));
    expect(meta).toContain("script-src 'self';");
  });

  it('fails loudly on any other inline script (instead of a blank window)', () => {
    expect(() => devIndexHtml(served.replace('</head>', '<script>alert(1)</script></head>'))).toThrow(
      /inline script.*alert\(1\)/,
    );
  });

  it('is a dev-server-only plugin that runs after the others', () => {
    expect(reinDevCsp()).toMatchObject({ apply: 'serve', transformIndexHtml: { order: 'post' } });
  });
});

describe('isAllowedFileUrl', () => {
  const root = '/Applications/Rein.app/Contents/Resources/app.asar/out/renderer';
  it.each([
    [`file://${root}/index.html`, true],
    [`file://${root}/assets/index-abc.js`, true],
    [`file://${root}/../main/index.js`, false],
    [`file://${root}/%2e%2e/main/index.js`, false],
    [`file://${root}/..%2F..%2Fmain/index.js`, false],
    [`file://${root}-evil/index.html`, false],
    ['file:///Users/me/.ssh/id_ed25519', false],
    ['https://example.com/', false],
    ['not a url', false],
  ])('%s → %s', (url, allowed) => {
    expect(isAllowedFileUrl(url, root)).toBe(allowed);
  });
});
