// Network egress for the http tool: loopback allowed, allowlisted hosts allowed, other hosts ask, only
// http(s); and the EgressCheck the http tool calls, exercised against a real server on 127.0.0.1.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allowlistEntryFor,
  classifyUrl,
  egressCheck,
  isLoopbackHost,
} from '../../../src-main/core/permissions/egress.js';
import { engineFor, fakeTool } from './helpers.js';

const httpTool = fakeTool('http', {
  readOnly: (i) => ((i as { method?: string }).method ?? 'GET').toUpperCase() === 'GET',
});

describe('classifyUrl', () => {
  it.each([
    'http://localhost:8080/x',
    'http://127.0.0.1/',
    'http://127.1.2.3',
    'http://[::1]:3000/',
    'http://api.localhost/',
    'http://2130706433/',
  ])('allows loopback %s', (url) => {
    expect(classifyUrl(url, []).decision).toBe('allow');
  });

  it('allows hosts on the allowlist, with *.domain covering subdomains and the bare domain', () => {
    const list = ['api.example.com', '*.github.com', 'https://docs.rs/', 'internal.test:8443'];
    expect(classifyUrl('https://api.example.com/v1', list).decision).toBe('allow');
    expect(classifyUrl('https://raw.github.com/x', list).decision).toBe('allow');
    expect(classifyUrl('https://github.com/x', list).decision).toBe('allow');
    expect(classifyUrl('https://docs.rs/serde', list).decision).toBe('allow');
    expect(classifyUrl('https://internal.test/', list).decision).toBe('allow');
    expect(classifyUrl('https://API.EXAMPLE.COM./', list).decision).toBe('allow');
  });

  it('asks for anything else, including look-alikes', () => {
    const list = ['example.com', '*.github.com'];
    for (const url of [
      'https://example.com.evil.net/',
      'https://notgithub.com/',
      'https://sub.example.com/',
      'http://169.254.169.254/',
      'http://0.0.0.0/',
    ]) {
      expect(classifyUrl(url, list).decision, url).toBe('ask');
    }
  });

  it('denies what cannot be a web request', () => {
    for (const url of ['', 'not a url', 'file:///etc/passwd', 'ftp://example.com/', 'javascript:alert(1)']) {
      expect(classifyUrl(url, []).decision, url).toBe('deny');
    }
    expect(classifyUrl(undefined, []).decision).toBe('deny');
  });

  it('knows loopback hosts', () => {
    expect(isLoopbackHost('[::ffff:7f00:1]')).toBe(true);
    expect(isLoopbackHost('localhost.')).toBe(true);
    expect(isLoopbackHost('localhostx.com')).toBe(false);
    expect(allowlistEntryFor('a.b.c', ['*'])).toBe('*');
  });
});

describe('the http tool through the engine', () => {
  it('allows loopback and allowlisted hosts, asks for others', async () => {
    const check = engineFor({ permissions: { network_allowlist: ['*.example.com'] } });
    expect((await check({ tool: httpTool, input: { url: 'http://127.0.0.1:9/x' } })).decision).toBe('allow');
    expect(
      (await check({ tool: httpTool, input: { url: 'https://api.example.com/x', method: 'POST' } })).decision,
    ).toBe('allow');
    const other = await check({ tool: httpTool, input: { url: 'https://elsewhere.net/' } });
    expect(other).toMatchObject({ decision: 'ask', layer: 'tool' });
    expect(other.reason).toMatch(/elsewhere\.net is not on network_allowlist/);
    expect(
      (await check({ tool: httpTool, input: { url: 'file:///etc/passwd' }, mode: 'bypassPermissions' })).decision,
    ).toBe('deny');
  });

  it('plan mode lets a GET through but refuses a POST', async () => {
    const check = engineFor({ permissions: { network_allowlist: ['api.example.com'] } });
    expect(
      (await check({ tool: httpTool, input: { url: 'https://api.example.com/', method: 'GET' }, mode: 'plan' }))
        .decision,
    ).toBe('allow');
    expect(
      (await check({ tool: httpTool, input: { url: 'https://api.example.com/', method: 'POST' }, mode: 'plan' }))
        .decision,
    ).toBe('deny');
  });
});

describe('egressCheck', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('lets a real request to a loopback server go', async () => {
    const egress = egressCheck({ network_allowlist: [] });
    const url = new URL(`${base}/ping`);
    expect(await egress(url, 'GET')).toEqual({ allowed: true });
    const res = await fetch(url);
    expect(await res.text()).toBe('ok');
  });

  it('refuses unlisted hosts by default, naming the host, and allows them when told to', async () => {
    const strict = egressCheck({ network_allowlist: ['ok.example'] });
    expect(await strict(new URL('https://ok.example/x'), 'GET')).toEqual({ allowed: true });
    const refused = await strict(new URL('https://other.example/x'), 'GET');
    expect(refused).toMatchObject({ allowed: false });
    expect(refused.allowed === false && refused.reason).toMatch(/other\.example/);
    const lenient = egressCheck({ network_allowlist: [] }, { unlisted: 'allow' });
    expect(await lenient(new URL('https://other.example/x'), 'POST')).toEqual({ allowed: true });
    expect((await lenient(new URL('file:///etc/passwd'), 'GET')).allowed).toBe(false);
  });
});
