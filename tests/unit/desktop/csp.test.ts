import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, isAllowedFileUrl } from '../../../src-main/core/desktop/csp.js';

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
    expect(directives(contentSecurityPolicy({ devServerOrigin: 'http://localhost:5173/' })).get('connect-src')).toEqual([
      "'self'",
      'http://localhost:5173',
      'ws://localhost:5173',
    ]);
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
