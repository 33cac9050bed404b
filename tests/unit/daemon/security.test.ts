/** The daemon's gatekeeping as a table of header sets: each row names what it pins. */
import { describe, expect, it } from 'vitest';
import {
  bearerToken,
  checkHost,
  checkNoTokenInQuery,
  checkOrigin,
  checkRequest,
  hostNamesFor,
  sameSecret,
  tokenFromSubprotocols,
  type SecurityPolicy,
} from '../../../src-main/core/daemon/security.js';

const TOKEN = 'a'.repeat(64);
const policy: SecurityPolicy = {
  port: 7533,
  hostNames: hostNamesFor('127.0.0.1'),
  extraOrigins: ['app://rein'],
  token: TOKEN,
};
const ok = { host: '127.0.0.1:7533', authorization: `Bearer ${TOKEN}` };

type Row = [
  name: string,
  headers: Record<string, string>,
  url: string,
  opts: { isPublic?: boolean; isWebSocket?: boolean },
  expected: number | 'ok',
  code?: string,
];

const rows: Row[] = [
  ['token in Authorization', ok, '/status', {}, 'ok'],
  ['localhost with port', { ...ok, host: 'localhost:7533' }, '/status', {}, 'ok'],
  ['IPv6 loopback', { ...ok, host: '[::1]:7533' }, '/status', {}, 'ok'],
  ['Host names are case-insensitive', { ...ok, host: 'LOCALHOST:7533' }, '/status', {}, 'ok'],
  ['no token', { host: ok.host }, '/status', {}, 401, 'unauthorized'],
  ['wrong token', { ...ok, authorization: `Bearer ${'b'.repeat(64)}` }, '/status', {}, 401, 'unauthorized'],
  ['token of another length', { ...ok, authorization: 'Bearer short' }, '/status', {}, 401, 'unauthorized'],
  ['Basic scheme', { ...ok, authorization: `Basic ${TOKEN}` }, '/status', {}, 401, 'unauthorized'],
  ['public path needs no token', { host: ok.host }, '/health', { isPublic: true }, 'ok'],
  ['missing Host', { authorization: ok.authorization }, '/status', {}, 403, 'host_refused'],
  ['rebinding name', { ...ok, host: 'evil.example:7533' }, '/status', {}, 403, 'host_refused'],
  ['loopback name as a subdomain', { ...ok, host: 'localhost.evil.example:7533' }, '/status', {}, 403, 'host_refused'],
  ['right name, wrong port', { ...ok, host: '127.0.0.1:8080' }, '/status', {}, 403, 'host_refused'],
  ['no port means 80', { ...ok, host: '127.0.0.1' }, '/status', {}, 403, 'host_refused'],
  ['garbage port', { ...ok, host: '127.0.0.1:75x' }, '/status', {}, 403, 'host_refused'],
  ['public path still checks Host', { host: 'evil.example:7533' }, '/health', { isPublic: true }, 403, 'host_refused'],
  ['own origin', { ...ok, origin: 'http://127.0.0.1:7533' }, '/status', {}, 'ok'],
  ['own origin via localhost', { ...ok, origin: 'http://localhost:7533' }, '/status', {}, 'ok'],
  ['desktop app origin', { ...ok, origin: 'app://rein' }, '/status', {}, 'ok'],
  ['foreign origin', { ...ok, origin: 'https://evil.example' }, '/status', {}, 403, 'origin_refused'],
  ['null origin (sandboxed frame, file page)', { ...ok, origin: 'null' }, '/status', {}, 403, 'origin_refused'],
  ['own host, other port', { ...ok, origin: 'http://127.0.0.1:3000' }, '/status', {}, 403, 'origin_refused'],
  ['https variant of our origin', { ...ok, origin: 'https://127.0.0.1:7533' }, '/status', {}, 403, 'origin_refused'],
  [
    'foreign origin on a public path',
    { host: ok.host, origin: 'https://evil.example' },
    '/health',
    { isPublic: true },
    403,
    'origin_refused',
  ],
  ['token in the query (even a right one)', { host: ok.host }, `/status?token=${TOKEN}`, {}, 400, 'token_in_query'],
  ['access_token in the query', ok, '/events?access_token=x', {}, 400, 'token_in_query'],
  ['other query parameters are fine', ok, '/sessions?agent=ops&limit=5', {}, 'ok'],
  [
    'WebSocket token in subprotocol',
    { host: ok.host, 'sec-websocket-protocol': `rein.v1, token.${TOKEN}` },
    '/ws',
    { isWebSocket: true },
    'ok',
  ],
  [
    'WebSocket without token',
    { host: ok.host, 'sec-websocket-protocol': 'rein.v1' },
    '/ws',
    { isWebSocket: true },
    401,
    'unauthorized',
  ],
  [
    'WebSocket foreign origin',
    { host: ok.host, origin: 'http://evil.example', 'sec-websocket-protocol': `rein.v1, token.${TOKEN}` },
    '/ws',
    { isWebSocket: true },
    403,
    'origin_refused',
  ],
  [
    'subprotocol token counts only for WebSockets',
    { host: ok.host, 'sec-websocket-protocol': `rein.v1, token.${TOKEN}` },
    '/status',
    {},
    401,
    'unauthorized',
  ],
  [
    'WebSocket token in the query',
    { host: ok.host, 'sec-websocket-protocol': 'rein.v1' },
    `/ws?token=${TOKEN}`,
    { isWebSocket: true },
    400,
    'token_in_query',
  ],
];

describe('checkRequest', () => {
  it.each(rows)('%s', (_name, headers, url, opts, expected, code) => {
    const verdict = checkRequest(policy, {
      headers,
      url,
      isPublic: opts.isPublic ?? false,
      isWebSocket: opts.isWebSocket ?? false,
    });
    if (expected === 'ok') expect(verdict).toEqual({ ok: true });
    else expect(verdict).toMatchObject({ ok: false, status: expected, code });
  });
});

describe('the pieces', () => {
  it('reads a bearer token and a subprotocol token', () => {
    expect(bearerToken(`Bearer ${TOKEN}`)).toBe(TOKEN);
    expect(bearerToken(`bearer   ${TOKEN} `)).toBe(TOKEN);
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(tokenFromSubprotocols('rein.v1,token.abc')).toBe('abc');
    expect(tokenFromSubprotocols('rein.v1, token.')).toBeUndefined();
    expect(tokenFromSubprotocols(undefined)).toBeUndefined();
  });

  it('compares secrets without caring about length differences', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abc', 'abd')).toBe(false);
    expect(sameSecret('abc', 'abcd')).toBe(false);
  });

  it('adds an explicit bind address to the allowed Host names, but not a wildcard', () => {
    expect(hostNamesFor('192.168.1.5')).toContain('192.168.1.5');
    expect(hostNamesFor('0.0.0.0')).not.toContain('0.0.0.0');
    expect(hostNamesFor('fe80::1')).toContain('[fe80::1]');
    expect(checkHost({ port: 1, hostNames: hostNamesFor('192.168.1.5') }, '192.168.1.5:1')).toEqual({ ok: true });
  });

  it('allows requests without an Origin (scripts, curl) and refuses an absent Host', () => {
    expect(checkOrigin(policy, undefined)).toEqual({ ok: true });
    expect(checkHost(policy, undefined)).toMatchObject({ ok: false, status: 403 });
    expect(checkNoTokenInQuery('/x?TOKEN=1')).toMatchObject({ ok: false });
  });
});
