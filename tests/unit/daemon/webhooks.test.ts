/** The webhook adapter's pure parts: config parsing, proof checks, and mapping a posted body. */
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../src-main/core/daemon/httpError.js';
import { createHmac } from 'node:crypto';
import {
  ReplayGuard,
  mapWebhookBody,
  parseWebhooksText,
  secretOf,
  signBody,
  signedHeaders,
  valueAt,
  verifyWebhook,
  type WebhookSource,
} from '../../../src-main/core/daemon/webhooks.js';

const SECRET = 'sixteen-chars-secret';
const source = (over: Partial<WebhookSource> = {}): WebhookSource => ({
  auth: 'hmac',
  secret: SECRET,
  reply: 'wait',
  map: { text: 'message.text', channel: 'message.chat.id', sender: 'message.from.username' },
  skip_if_present: [],
  ...over,
});

describe('webhooks.yaml', () => {
  it('parses a source with defaults', () => {
    const cfg = parseWebhooksText(
      'w.yaml',
      `sources:\n  telegram:\n    secret_env: TG_SECRET\n    map: { text: message.text }\n`,
    );
    expect(cfg.sources.telegram).toMatchObject({
      auth: 'hmac',
      reply: 'wait',
      secret_env: 'TG_SECRET',
      skip_if_present: [],
    });
  });

  it.each([
    ['sources:\n  slack:\n    map: { text: a }\n', 'sources.slack.secret'],
    ['sources:\n  slack:\n    secret: short\n    map: { text: a }\n', 'sources.slack.secret'],
    [`sources:\n  slack:\n    secret: ${SECRET}\n    map: { text: "a..b" }\n`, 'sources.slack.map.text'],
    [`sources:\n  Slack:\n    secret: ${SECRET}\n    map: { text: a }\n`, 'sources.Slack'],
    [`sources:\n  slack:\n    secret: ${SECRET}\n    mapping: { text: a }\n`, 'sources.slack.map'],
  ])('names the bad field: %j', (text, field) => {
    try {
      parseWebhooksText('w.yaml', text);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(HttpError);
      expect((e as HttpError).message).toContain('w.yaml');
      expect((e as HttpError).message).toContain(field);
    }
  });

  it('refuses a YAML alias bomb as an invalid file, not a crash', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...'bcdefgh'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`),
    ].join('\n');
    expect(() => parseWebhooksText('webhooks.yaml', bomb)).toThrow(/webhooks\.yaml: .*alias/);
  });

  it('reads a secret from the environment and refuses a missing one', () => {
    const cfg = source({ secret: undefined, secret_env: 'HOOK_SECRET' });
    expect(secretOf('x', cfg, { HOOK_SECRET: SECRET })).toBe(SECRET);
    expect(() => secretOf('x', cfg, {})).toThrow(/HOOK_SECRET/);
  });
});

describe('verifyWebhook', () => {
  const body = Buffer.from('{"message":{"text":"hi"}}');
  const now = Date.UTC(2026, 0, 5, 9, 0, 0);
  const ts = now / 1000;
  const signed = (secret: string, b: Buffer | string, t: number) => ({
    'x-rein-timestamp': String(t),
    'x-rein-signature': signBody(secret, b, t),
  });
  it.each([
    ['right HMAC', 'hmac', signed(SECRET, body, ts), true],
    ['right HMAC, 299 s old', 'hmac', signed(SECRET, body, ts - 299), true],
    ['right HMAC, 4 minutes ahead (a fast clock)', 'hmac', signed(SECRET, body, ts + 240), true],
    ['HMAC of another body', 'hmac', signed(SECRET, '{}', ts), false],
    ['HMAC with another secret', 'hmac', signed('another-secret-xyz', body, ts), false],
    [
      'HMAC of the body alone (no timestamp signed)',
      'hmac',
      {
        'x-rein-timestamp': String(ts),
        'x-rein-signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
      },
      false,
    ],
    [
      'timestamp changed after signing',
      'hmac',
      { ...signed(SECRET, body, ts - 1000), 'x-rein-timestamp': String(ts) },
      false,
    ],
    ['no timestamp', 'hmac', { 'x-rein-signature': signBody(SECRET, body, ts) }, false],
    [
      'a timestamp that is not whole seconds',
      'hmac',
      { 'x-rein-timestamp': `${ts}.5`, 'x-rein-signature': signBody(SECRET, body, `${ts}.5`) },
      false,
    ],
    ['no signature', 'hmac', {}, false],
    ['shared secret header', 'header', { 'x-rein-secret': SECRET }, true],
    ['wrong shared secret', 'header', { 'x-rein-secret': 'nope' }, false],
    ['signature where a shared secret is expected', 'header', signed(SECRET, body, ts), false],
  ] as const)('%s', (_n, auth, headers, ok) => {
    expect(verifyWebhook({ auth }, SECRET, headers, body, now).ok).toBe(ok);
  });

  it('refuses a correctly signed request whose timestamp is over 5 minutes away, as a replay', () => {
    for (const t of [ts - 301, ts - 86_400, ts + 301]) {
      const proof = verifyWebhook({ auth: 'hmac' }, SECRET, signed(SECRET, body, t), body, now);
      expect(proof).toMatchObject({ ok: false, status: 401, code: 'webhook_replayed' });
    }
    // A wrong signature is a wrong signature, whatever its time: a stranger learns nothing about the clock.
    expect(
      verifyWebhook({ auth: 'hmac' }, SECRET, signed('another-secret-xyz', body, ts - 999), body, now),
    ).toMatchObject({ code: 'webhook_unauthorized' });
  });

  it('hands out a replay key that outlives the window', () => {
    const proof = verifyWebhook({ auth: 'hmac' }, SECRET, signed(SECRET, body, ts), body, now);
    expect(proof.ok && proof.replayKey).toBe(signBody(SECRET, body, ts));
    expect(proof.ok && proof.expiresAtMs! > now + 300_000).toBe(true);
    // A shared secret has nothing to remember.
    expect(verifyWebhook({ auth: 'header' }, SECRET, { 'x-rein-secret': SECRET }, body, now)).toEqual({ ok: true });
  });

  it('signedHeaders signs what verifyWebhook checks', () => {
    expect(verifyWebhook({ auth: 'hmac' }, SECRET, signedHeaders(SECRET, body, now), body, now).ok).toBe(true);
  });
});

describe('ReplayGuard', () => {
  it('accepts a key once until it expires, and stays bounded', () => {
    const guard = new ReplayGuard(3);
    expect(guard.claim('a', 1_000, 0)).toBe(true);
    expect(guard.claim('a', 1_000, 500)).toBe(false);
    expect(guard.claim('a', 2_000, 1_000)).toBe(true);
    expect(guard.claim('b', 5_000, 1_000)).toBe(true);
    expect(guard.claim('c', 5_000, 1_000)).toBe(true);
    // Full: the expired go first, then the oldest.
    expect(guard.claim('d', 5_000, 2_500)).toBe(true);
    expect(guard.size).toBe(3);
    expect(guard.claim('b', 5_000, 2_600)).toBe(false);
    expect(guard.claim('e', 5_000, 2_700)).toBe(true);
    expect(guard.size).toBe(3);
    expect(guard.claim('b', 5_000, 2_800)).toBe(true);
  });
});

describe('mapWebhookBody', () => {
  it('maps nested paths and list indices, turning numbers into strings', () => {
    expect(valueAt({ a: [{ b: 'x' }] }, 'a[0].b')).toBe('x');
    expect(valueAt({ a: 1 }, 'a.b')).toBeUndefined();
    // Own keys only: nothing is found on Object.prototype.
    expect(valueAt({ a: {} }, 'a.constructor')).toBeUndefined();
    expect(valueAt({}, '__proto__')).toBeUndefined();
    expect(valueAt({ a: {} }, 'a.toString')).toBeUndefined();
    const msg = mapWebhookBody('telegram', source({ agent: 'ops' }), {
      message: { text: 'hello', chat: { id: -1001 }, from: { username: 'ann' } },
    });
    expect(msg).toEqual({ text: 'hello', source: 'telegram', agent: 'ops', channel: '-1001', sender: 'ann' });
  });

  it('skips a body carrying a skip path, and names the path of a missing or wrong value', () => {
    expect(
      mapWebhookBody('s', source({ skip_if_present: ['message.bot'] }), { message: { text: 'x', bot: true } }),
    ).toBe('skip');
    expect(() => mapWebhookBody('s', source(), { message: {} })).toThrow(/message\.text/);
    expect(() => mapWebhookBody('s', source(), { message: { text: { rich: true } } })).toThrow(
      /expected a string or number/,
    );
  });
});
