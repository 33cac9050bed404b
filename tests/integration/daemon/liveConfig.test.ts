/**
 * Issue 23 items 4 and 9, in the daemon: it follows config.yaml without a restart (a mode, an MCP server
 * or a broken edit applies from the next message and shows in GET /settings and GET /mcp/servers), and
 * the project overlay of the folder it works in applies its raising settings (base_url, mode, hooks,
 * MCP servers) only once a person trusts that folder — in the desktop app, through a `trust_folder`
 * change, or with `rein trust`.
 */
import { mkdir, mkdtemp, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { paths } from '../../../src-main/core/config/paths.js';
import { createDesktopReinApi, type DesktopSettingsPart } from '../../../src-main/core/desktop/desktopApi.js';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { useLeakCheck } from '../../support/leaks.js';
import { everythingStdio } from '../../support/mcpPeers.js';
import { http, sse, startTestDaemon, type TestDaemon } from './support.js';

useLeakCheck();

let fake: FakeAnthropic;
let other: FakeAnthropic | undefined;
let d: TestDaemon | undefined;
let home: string;
let work: string;
const warnings: string[] = [];

afterEach(async () => {
  await d?.daemon.dispose();
  d = undefined;
  await fake?.close();
  await other?.close();
  other = undefined;
  warnings.length = 0;
});

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );
const configFile = () => paths.globalConfig(home);
const keyOf = (h: Record<string, string | string[] | undefined>) =>
  String(h['x-api-key'] ?? h.authorization ?? '').replace(/^Bearer /, '');

/** A daemon that loads its config from the files (as `rein daemon` and the app do), with config.yaml = `yaml`. */
async function daemonFromFiles(yaml: string, overlay?: string): Promise<TestDaemon> {
  fake = await startFakeAnthropic();
  const root = await realpath(await mkdtemp(join(tmpdir(), 'rein-live-config-')));
  home = join(root, 'home');
  work = join(root, 'work');
  await mkdir(home, { recursive: true });
  await mkdir(work, { recursive: true });
  await writeFile(configFile(), yaml);
  if (overlay !== undefined) {
    await mkdir(join(work, '.rein'));
    await writeFile(join(work, '.rein', 'config.yaml'), overlay);
  }
  d = await startTestDaemon(fake, { home, daemon: { config: undefined, cwd: work, warn: (m) => warnings.push(m) } });
  return d;
}

describe('the daemon follows config.yaml', () => {
  it('acceptEdits → default between two messages: the next write asks, and GET /settings says default', async () => {
    const t = await daemonFromFiles('permissions:\n  mode: acceptEdits\n');
    expect((await http(t, 'GET', '/settings')).json.permission_mode).toBe('acceptEdits');
    fake.enqueue(tools([toolCall('file_write', { path: 'first.txt', content: 'one' })]), text('wrote it'));
    const first = await http(t, 'POST', '/message', { body: { text: 'write first' } });
    expect(first.json, first.text).toMatchObject({ text: 'wrote it', stop_reason: 'final' });
    expect(await exists(join(work, 'first.txt'))).toBe(true);

    await writeFile(configFile(), 'permissions:\n  mode: default\n');
    expect((await http(t, 'GET', '/settings')).json.permission_mode).toBe('default');

    fake.enqueue(tools([toolCall('file_write', { path: 'second.txt', content: 'two' })]), text('asked first'));
    const events = await sse(t, 'GET', '/events');
    const run = http(t, 'POST', '/message', { body: { text: 'write second' } });
    const ask = await events.next((f) => f.event === 'approval_request', 'approval_request');
    expect(ask.data).toMatchObject({ tool: 'file_write', input: { path: 'second.txt' } });
    await http(t, 'POST', '/approval', { body: { request_id: ask.data.request_id, decision: 'deny' } });
    expect((await run).json).toMatchObject({ text: 'asked first' });
    expect(await exists(join(work, 'second.txt'))).toBe(false);
    events.close();
  });

  it('shows an MCP server added to (or removed from) config.yaml by another process in GET /mcp/servers, starting nothing', async () => {
    const t = await daemonFromFiles('model: claude-sonnet-5-5\n');
    const names = async () =>
      (
        (await http(t, 'GET', '/mcp/servers?agent=default')).json.agents[0].servers as { name: string; state: string }[]
      ).map((s) => `${s.name}:${s.state}`);
    expect(await names()).toEqual([]);
    const server = everythingStdio();
    await writeFile(
      configFile(),
      `model: claude-sonnet-5-5\nmcp_servers:\n  everything:\n    command: ${JSON.stringify(server.command)}\n    args: ${JSON.stringify(server.args)}\n`,
    );
    expect(await names()).toEqual(['everything:idle']);
    await writeFile(configFile(), 'model: claude-sonnet-5-5\n');
    expect(await names()).toEqual([]);
  });

  it('refuses new messages while an edit does not load (config_invalid naming file, line and field), shows it in GET /settings, and runs again once fixed', async () => {
    const t = await daemonFromFiles('permissions:\n  mode: acceptEdits\n');
    await writeFile(configFile(), 'permissions:\n  mode: yolo\n');
    const refused = await http(t, 'POST', '/message', { body: { text: 'hello' } });
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe('config_invalid');
    expect(refused.json.error).toContain(`${configFile()}:2:3: permissions.mode`);
    expect(fake.requests).toHaveLength(0);

    const settings = (await http(t, 'GET', '/settings')).json;
    expect(settings.config_problem).toMatchObject({
      code: 'config_invalid',
      file: configFile(),
      line: 2,
      field: 'permissions.mode',
    });
    expect((await http(t, 'GET', '/mcp/servers')).json.code).toBe('config_invalid');

    await writeFile(configFile(), 'permissions:\n  mode: default\n');
    fake.enqueue(text('back'));
    expect((await http(t, 'POST', '/message', { body: { text: 'hello again' } })).json).toMatchObject({ text: 'back' });
    const fixed = (await http(t, 'GET', '/settings')).json;
    expect(fixed.config_problem).toBeUndefined();
    expect(fixed.permission_mode).toBe('default');
  });

  it('gives the desktop app the same view: its settings follow the file, and a mode saved there applies at once', async () => {
    const t = await daemonFromFiles('permissions:\n  mode: acceptEdits\n');
    const desktop: DesktopSettingsPart = {
      read: async () => ({}),
      save: async () => undefined,
      openPermissionSettings: async () => ({ opened: false }),
    };
    const api = createDesktopReinApi(t.daemon.service, desktop);
    await writeFile(configFile(), 'permissions:\n  mode: plan\n');
    expect((await api.getSettings(undefined)).permission_mode).toBe('plan');
    await api.saveSettings({ permission_mode: 'dontAsk' });
    expect(t.daemon.service.config.permissions.mode).toBe('dontAsk');
    expect((await http(t, 'GET', '/settings')).json.permission_mode).toBe('dontAsk');
    expect(await readFile(configFile(), 'utf8')).toContain('mode: dontAsk');
  });
});

const OVERLAY = (url: string) => `base_url: ${url}\npermissions:\n  mode: bypassPermissions\n`;

describe("the daemon's working folder holds a project overlay nobody trusted", () => {
  it('ignores its raising settings (no key to its base_url, no wider mode), warns once, and a person in the app can trust it', async () => {
    other = await startFakeAnthropic();
    const t = await daemonFromFiles('model: claude-sonnet-5-5\n', OVERLAY(other.url));
    const overlayFile = join(work, '.rein', 'config.yaml');
    expect(
      warnings.filter((w) =>
        w.includes(`ignoring ${overlayFile}'s base_url, permissions.mode: this folder is not trusted`),
      ),
    ).toHaveLength(1);
    const settings = (await http(t, 'GET', '/settings')).json;
    expect(settings).toMatchObject({ base_url: null, permission_mode: 'default' });

    fake.enqueue(text('from the configured server'));
    expect((await http(t, 'POST', '/message', { body: { text: 'hello' } })).json.text).toBe(
      'from the configured server',
    );
    expect(other.requests).toHaveLength(0);
    // Nobody is there to ask: no change is waiting, the warning was all.
    expect((await http(t, 'GET', '/changes')).json.changes).toEqual([]);

    // The desktop app attaches: it is asked once whether to trust the folder.
    const window = t.daemon.service.attachClient('desktop');
    const changes = (await http(t, 'GET', '/changes')).json.changes;
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      kind: 'trust_folder',
      request: { folder: work, file: overlayFile },
      raises: [{ field: 'base_url' }, { field: 'permissions.mode' }],
    });
    await http(t, 'GET', '/settings');
    expect((await http(t, 'GET', '/changes')).json.changes).toHaveLength(1);

    await t.daemon.service.answerChange({ change_id: changes[0].change_id, decision: 'apply' }, 'desktop');
    const trusted = JSON.parse(await readFile(paths.trustedFolders(home), 'utf8'));
    expect(Object.keys(trusted.folders)).toEqual([work]);
    expect((await http(t, 'GET', '/settings')).json).toMatchObject({
      base_url: other.url,
      permission_mode: 'bypassPermissions',
    });
    other.enqueue(text('from the overlay server'));
    expect((await http(t, 'POST', '/message', { body: { text: 'hello there' } })).json.text).toBe(
      'from the overlay server',
    );
    expect(keyOf(other.requests[0]!.headers)).toBe('test-key');
    window.dispose();
  });

  it('asks again when the trusted overlay changes', async () => {
    other = await startFakeAnthropic();
    const t = await daemonFromFiles('model: claude-sonnet-5-5\n', OVERLAY(other.url));
    const window = t.daemon.service.attachClient('desktop');
    const [first] = (await http(t, 'GET', '/changes')).json.changes;
    await t.daemon.service.answerChange({ change_id: first.change_id, decision: 'apply' }, 'desktop');
    expect((await http(t, 'GET', '/settings')).json.permission_mode).toBe('bypassPermissions');

    await writeFile(join(work, '.rein', 'config.yaml'), `${OVERLAY(other.url)}  allowed_commands: [make]\n`);
    expect((await http(t, 'GET', '/settings')).json).toMatchObject({ base_url: null, permission_mode: 'default' });
    const again = (await http(t, 'GET', '/changes')).json.changes;
    expect(again.map((c: { kind: string }) => c.kind)).toEqual(['trust_folder']);
    expect(again[0].change_id).not.toBe(first.change_id);
    window.dispose();
  });
});
