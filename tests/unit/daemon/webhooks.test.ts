/** The webhook adapter's pure parts: config parsing, proof checks, and mapping a posted body. */
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../src-main/core/daemon/httpError.js';
import { mapWebhookBody, parseWebhooksText, secretOf, signBody, valueAt, verifyWebhook, type WebhookSource } from '../../../src-main/core/daemon/webhooks.js';

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
    const cfg = parseWebhooksText('w.yaml', `sources:\n  telegram:\n    secret_env: TG_SECRET\n    map: { text: message.text }\n`);
    expect(cfg.sources.telegram).toMatchObject({ auth: 'hmac', reply: 'wait', secret_env: 'TG_SECRET', skip_if_present: [] });
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

  it('reads a secret from the environment and refuses a missing one', () => {
    const cfg = source({ secret: undefined, secret_env: 'HOOK_SECRET' });
    expect(secretOf('x', cfg, { HOOK_SECRET: SECRET })).toBe(SECRET);
    expect(() => secretOf('x', cfg, {})).toThrow(/HOOK_SECRET/);
  });
});

describe('verifyWebhook', () => {
  const body = Buffer.from('{"message":{"text":"hi"}}');
  it.each([
    ['right HMAC', 'hmac', { 'x-rein-signature': signBody(SECRET, body) }, true],
    ['HMAC of another body', 'hmac', { 'x-rein-signature': signBody(SECRET, '{}') }, false],
    ['HMAC with another secret', 'hmac', { 'x-rein-signature': signBody('another-secret-xyz', body) }, false],
    ['no signature', 'hmac', {}, false],
    ['shared secret header', 'header', { 'x-rein-secret': SECRET }, true],
    ['wrong shared secret', 'header', { 'x-rein-secret': 'nope' }, false],
    ['signature where a shared secret is expected', 'header', { 'x-rein-signature': signBody(SECRET, body) }, false],
  ] as const)('%s', (_n, auth, headers, ok) => {
    expect(verifyWebhook({ auth }, SECRET, headers, body).ok).toBe(ok);
  });
});

describe('mapWebhookBody', () => {
  it('maps nested paths and list indices, turning numbers into strings', () => {
    expect(valueAt({ a: [{ b: 'x' }] }, 'a[0].b')).toBe('x');
    expect(valueAt({ a: 1 }, 'a.b')).toBeUndefined();
    const msg = mapWebhookBody('telegram', source({ agent: 'ops' }), { message: { text: 'hello', chat: { id: -1001 }, from: { username: 'ann' } } });
    expect(msg).toEqual({ text: 'hello', source: 'telegram', agent: 'ops', channel: '-1001', sender: 'ann' });
  });

  it('skips a body carrying a skip path, and names the path of a missing or wrong value', () => {
    expect(mapWebhookBody('s', source({ skip_if_present: ['message.bot'] }), { message: { text: 'x', bot: true } })).toBe('skip');
    expect(() => mapWebhookBody('s', source(), { message: {} })).toThrow(/message\.text/);
    expect(() => mapWebhookBody('s', source(), { message: { text: { rich: true } } })).toThrow(/expected a string or number/);
  });
});
