/**
 * The settings endpoints: reading what runs use, saving model, small model, permission mode and base
 * URL into the global config.yaml (comments kept, everything checked before anything is written,
 * applied to the next run), the hotkey into desktop.json, no API key stored by the daemon, and the
 * connection test as one real request to the fake Messages API.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, text, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { http, startTestDaemon, type TestDaemon } from './support.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

let fake: FakeAnthropic;
let d: TestDaemon;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  fake.fallback = () => text('ok');
  d = await startTestDaemon(fake);
});
afterEach(async () => {
  await d.daemon.dispose();
  await fake.close();
});

const configFile = () => join(d.home, 'config.yaml');
const readConfig = () => readFile(configFile(), 'utf8');
const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );
/** The key a request carried, as x-api-key or as a bearer token (SDK versions differ). */
const keyOf = (h: Record<string, string | string[] | undefined>) =>
  String(h['x-api-key'] ?? h.authorization ?? '').replace(/^Bearer /, '');

const COMMENTED = `# My Rein settings
model: claude-sonnet-5-5 # the big one

permissions:
  # ask me first
  mode: default
  allowed_commands:
    - git status
`;

describe('GET /settings', () => {
  it('reports what runs use and where the key comes from, never the key itself', async () => {
    const res = await http(d, 'GET', '/settings');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      platform: process.platform,
      model: 'claude-sonnet-5-5',
      small_model: 'claude-haiku-5-5',
      permission_mode: 'default',
      base_url: null,
      hotkey: 'CommandOrControl+Shift+Space',
      config_file: configFile(),
      api_key: { present: true, source: 'env', writable: false },
    });
    expect(res.json.api_key.note).toMatch(/does not store API keys/);
    expect(res.text).not.toContain('test-key');
    expect(res.json.models).toContain('claude-haiku-5-5');
  });
});

describe('PUT /settings', () => {
  it('writes the fields into config.yaml keeping comments and other keys, and the next run uses them', async () => {
    await writeFile(configFile(), COMMENTED);
    const res = await http(d, 'PUT', '/settings', {
      // A stricter mode applies at once; a more permissive one, or another base_url, waits for a person
      // (below, and tests/integration/daemon/escalation.test.ts).
      body: { model: 'claude-opus-4-6', small_model: 'claude-haiku-4-5', permission_mode: 'dontAsk' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      model: 'claude-opus-4-6',
      small_model: 'claude-haiku-4-5',
      permission_mode: 'dontAsk',
    });
    const text = await readConfig();
    expect(text).toContain('# My Rein settings');
    expect(text).toContain('model: claude-opus-4-6 # the big one');
    expect(text).toContain('# ask me first');
    expect(text).toMatch(/mode: dontAsk/);
    expect(text).toContain('- git status');

    const run = await http(d, 'POST', '/message', { body: { text: 'hi' } });
    expect(run.status, run.text).toBe(200);
    expect(fake.requests.at(-1)!.body.model).toBe('claude-opus-4-6');
    expect((await http(d, 'GET', '/settings')).json.model).toBe('claude-opus-4-6');
  });

  it("another base_url is a person's decision: a pending change that names the command confirming it in a shell; the same one applies", async () => {
    await writeFile(configFile(), 'model: claude-opus-4-6\n');
    // The API key and every conversation would go elsewhere: not on a token holder's word.
    const pending = await http(d, 'PUT', '/settings', {
      body: { base_url: 'https://attacker.example.net', model: 'claude-opus-4-6' },
    });
    expect(pending.status, pending.text).toBe(202);
    expect(pending.json.raises).toEqual([
      {
        field: 'base_url',
        change: '(the default) → https://attacker.example.net: the API key and every conversation go there',
      },
    ]);
    expect(pending.json.accept_command).toBe(`REIN_HOME=${d.home} rein changes accept ${pending.json.change_id}`);
    expect(pending.json.message).toContain('base_url (the default) → https://attacker.example.net');
    expect(pending.json.message).toContain(`run \`${pending.json.accept_command}\` in a shell on this machine`);
    expect(pending.json.message).not.toContain('desktop app');
    expect(await readConfig()).toBe('model: claude-opus-4-6\n');
    await d.daemon.service.answerChange({ change_id: pending.json.change_id, decision: 'apply' }, 'shell');
    expect(await readConfig()).toBe('model: claude-opus-4-6\nbase_url: https://attacker.example.net\n');

    // With the desktop app attached, the message names it too.
    const desktop = d.daemon.service.attachClient('desktop');
    const again = await http(d, 'PUT', '/settings', { body: { base_url: 'https://other.example.net' } });
    expect(again.status, again.text).toBe(202);
    expect(again.json.message).toContain('in a shell on this machine, or confirm it in the Rein desktop app');
    desktop.dispose();

    // The same server (a trailing slash aside) raises nothing.
    expect((await http(d, 'PUT', '/settings', { body: { base_url: 'https://attacker.example.net/' } })).status).toBe(
      200,
    );
  });

  it('creates config.yaml when there is none, and removes base_url when it is set to null', async () => {
    expect(await exists(configFile())).toBe(false);
    expect((await http(d, 'PUT', '/settings', { body: { model: 'claude-opus-4-6' } })).status).toBe(200);
    expect(await readConfig()).toBe('model: claude-opus-4-6\n');
    await writeFile(configFile(), 'base_url: http://127.0.0.1:9/\n');
    const cleared = await http(d, 'PUT', '/settings', { body: { base_url: null, permission_mode: 'plan' } });
    expect(cleared.json).toMatchObject({ base_url: null, permission_mode: 'plan' });
    expect(await readConfig()).toBe('permissions:\n  mode: plan\n');
  });

  it('refuses bad values naming the field, and writes nothing at all', async () => {
    await writeFile(configFile(), COMMENTED);
    const cases: [unknown, string][] = [
      [{ model: 'claude-opus-4-6', permission_mode: 'yolo' }, 'permission_mode'],
      [{ base_url: 'ftp://example.com' }, 'base_url'],
      [{ model: '' }, 'model'],
      [{ model: 'x', colour: 'blue' }, 'colour'],
      [{ hotkey: 'Banana+Q' }, 'hotkey'],
    ];
    for (const [body, field] of cases) {
      const res = await http(d, 'PUT', '/settings', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.field, JSON.stringify(body)).toBe(field);
    }
    expect(await readConfig()).toBe(COMMENTED);
    expect(await exists(join(d.home, 'desktop.json'))).toBe(false);
  });

  it('never stores an API key: the request is refused, saying where keys go, and nothing else is written', async () => {
    const res = await http(d, 'PUT', '/settings', {
      body: { api_key: 'sk-ant-secret-0123456789', model: 'claude-opus-4-6' },
    });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'api_key_not_stored', field: 'api_key' });
    expect(res.json.error).toMatch(/ANTHROPIC_API_KEY.*keychain/);
    expect(await exists(configFile())).toBe(false);
  });

  it('leaves a config.yaml that is already broken exactly as it is', async () => {
    const broken = 'model: [unclosed\n# keep me\n';
    await writeFile(configFile(), broken);
    const res = await http(d, 'PUT', '/settings', { body: { model: 'claude-opus-4-6' } });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe('config_invalid');
    expect(res.json.error).toContain('config.yaml');
    expect(await readConfig()).toBe(broken);
  });

  it('keeps the hotkey in the desktop settings file, the one the desktop app reads', async () => {
    await mkdir(d.home, { recursive: true });
    await writeFile(join(d.home, 'desktop.json'), JSON.stringify({ show_dock_icon: true }));
    const res = await http(d, 'PUT', '/settings', { body: { hotkey: 'Alt+Space' } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.hotkey).toBe('Alt+Space');
    expect(JSON.parse(await readFile(join(d.home, 'desktop.json'), 'utf8'))).toMatchObject({
      hotkey: 'Alt+Space',
      show_dock_icon: true,
    });
    expect(await exists(configFile())).toBe(false);
    const off = await http(d, 'PUT', '/settings', { body: { hotkey: null } });
    expect(off.json.hotkey).toBeNull();
  });
});

describe('POST /settings/test', () => {
  it('makes one request of one token to the configured model with the current key and reports success', async () => {
    const before = fake.requests.length;
    const res = await http(d, 'POST', '/settings/test', { body: {} });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: true, model: 'claude-sonnet-5-5' });
    expect(res.json.message).toContain('claude-sonnet-5-5');
    expect(fake.requests.length).toBe(before + 1);
    const sent = fake.requests.at(-1)!;
    expect(sent.body.max_tokens).toBe(1);
    expect(sent.body.model).toBe('claude-sonnet-5-5');
    expect(keyOf(sent.headers)).toBe('test-key');
  });

  it('tries a key, base URL and model given in the request for that request only', async () => {
    const res = await http(d, 'POST', '/settings/test', {
      body: { api_key: 'sk-ant-trial-key-000000', model: 'claude-haiku-5-5', base_url: fake.url },
    });
    expect(res.json).toMatchObject({ ok: true, model: 'claude-haiku-5-5' });
    expect(keyOf(fake.requests.at(-1)!.headers)).toBe('sk-ant-trial-key-000000');
    expect(await exists(configFile())).toBe(false);
    expect((await http(d, 'GET', '/settings')).json.model).toBe('claude-sonnet-5-5');
  });

  it('reports what went wrong: a refused key, an unknown model, a server that is not there', async () => {
    fake.enqueue({ kind: 'error', status: 401, type: 'authentication_error', message: 'invalid x-api-key' });
    const refused = await http(d, 'POST', '/settings/test', { body: {} });
    expect(refused.status).toBe(200);
    expect(refused.json).toMatchObject({ ok: false, code: 'auth_failed' });
    expect(refused.json.message).toContain('invalid x-api-key');

    fake.enqueue({ kind: 'error', status: 404, type: 'not_found_error', message: 'model: claude-nope' });
    const unknown = await http(d, 'POST', '/settings/test', { body: { model: 'claude-nope' } });
    expect(unknown.json).toMatchObject({ ok: false, code: 'model_not_found', model: 'claude-nope' });

    const gone = await http(d, 'POST', '/settings/test', { body: { base_url: 'http://127.0.0.1:9' } });
    expect(gone.json).toMatchObject({ ok: false, code: 'unreachable' });
    expect(gone.json.message).toContain('http://127.0.0.1:9');
  });

  it('validates its input naming the field', async () => {
    const res = await http(d, 'POST', '/settings/test', { body: { base_url: 'not a url' } });
    expect(res.status).toBe(400);
    expect(res.json.field).toBe('base_url');
  });
});
