/**
 * The desktop app as a whole, with Electron mocked and everything else real: the daemon runs in this
 * process on a free loopback port against the fake Messages API, and the test plays the page through
 * the IPC handlers, the person through the dialog, tray, hotkey and notifications.
 */
import { existsSync } from 'node:fs';
import { access, mkdir, mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import {
  BrowserWindow,
  Notification,
  Tray,
  app,
  dialog,
  globalShortcut,
  ipcMain,
  resetElectronMock,
  session,
  type FakeMenuItem,
} from '../../support/electronMock.js';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { startDaemon, type DaemonOptions } from '../../../src-main/core/daemon/daemon.js';
import { startDesktopApp, type DesktopApp, type DesktopAppOptions } from '../../../src-main/electron/desktopApp.js';
import { safeStorageCipher } from '../../../src-main/electron/keychain.js';
import { MacPermissions } from '../../../src-main/electron/macPermissions.js';

const PAGE = 'file:///app/out/renderer/index.html';
const TRAY_ICONS = join(import.meta.dirname, '../../../resources/tray');

let fake: FakeAnthropic;
let desktop: DesktopApp | undefined;
let home: string;
let work: string;

beforeEach(async () => {
  resetElectronMock();
  fake = await startFakeAnthropic();
  const root = await mkdtemp(join(tmpdir(), 'rein-desktop-'));
  home = join(root, 'home');
  work = join(root, 'work');
  await mkdir(work, { recursive: true });
});

afterEach(async () => {
  await desktop?.dispose();
  desktop = undefined;
  await fake.close();
});

/** The real embedded daemon, on a free port, with fast shutdown. */
const testDaemon = (o: DaemonOptions) =>
  startDaemon({
    ...o,
    port: 0,
    cwd: work,
    config: GlobalConfig.parse({}),
    shutdownGraceMs: 200,
    shutdownCancelMs: 2_000,
  });

async function launch(over: Partial<DesktopAppOptions> = {}): Promise<DesktopApp> {
  desktop = await startDesktopApp({
    home,
    version: '9.9.9',
    headless: false,
    pageUrl: PAGE,
    rendererDir: '/app/out/renderer',
    preloadPath: '/app/out/preload/index.cjs',
    trayIconDir: TRAY_ICONS,
    isQuitting: () => false,
    quit: vi.fn(),
    env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'env-key', REIN_RETRY_BASE_MS: '1' },
    platform: 'darwin',
    warn: () => undefined,
    startDaemon: testDaemon,
    cipher: safeStorageCipher('darwin'),
    macPermissions: new MacPermissions('darwin', async () => ({
      getAuthStatus: (t: string) => (t === 'accessibility' ? 'authorized' : 'denied'),
      askForAccessibilityAccess: () => undefined,
      askForScreenCaptureAccess: () => undefined,
    })),
    ...over,
  });
  return desktop;
}

function chatWindow() {
  const win = BrowserWindow.created.find((w) => w.options['title'] === 'Rein');
  if (!win) throw new Error('no chat window was created');
  return win;
}

/** Call an operation as the page in our chat window would. */
async function invoke(channel: string, input?: unknown): Promise<any> {
  const win = chatWindow();
  return ipcMain.invokeAs(channel, { sender: win.webContents, senderFrame: win.webContents.mainFrame }, input);
}

/** Events the page received, by type. */
const sentEvents = (type?: string) =>
  chatWindow()
    .webContents.sent.filter((m) => m.channel === 'rein:event')
    .map((m) => m.args[0] as { type: string; [k: string]: unknown })
    .filter((e) => type === undefined || e.type === type);

async function eventually<T>(check: () => T | Promise<T>, what: string, ms = 10_000): Promise<NonNullable<T>> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((ok) => setTimeout(ok, 10));
  }
}

const trayMenu = () => (Tray.created[0]!.contextMenu as { items: FakeMenuItem[] }).items;
const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

describe('desktop app', () => {
  it('runs the daemon in its own process and answers the page over IPC from it', async () => {
    const d = await launch();
    expect(d.daemon?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await expect(invoke('rein:status')).resolves.toMatchObject({
      ok: true,
      value: { version: '9.9.9', active_runs: 0 },
    });
    await expect(invoke('rein:listAgents')).resolves.toEqual({ ok: true, value: { agents: [] } });
    await expect(invoke('rein:getAgent', { name: 'nobody' })).resolves.toMatchObject({
      ok: false,
      code: 'agent_not_found',
    });
  });

  it('locks the session down: the CSP header names the loopback daemon; permissions are denied', async () => {
    const d = await launch();
    const answer = await session.defaultSession.webRequest.respond(PAGE, {});
    expect(answer.responseHeaders?.['Content-Security-Policy']?.[0]).toContain(
      `connect-src 'self' http://127.0.0.1:${d.daemon!.info.port} ws://127.0.0.1:${d.daemon!.info.port}`,
    );
    expect(session.defaultSession.permissionCheckHandler?.({}, 'media', 'file://', {})).toBe(false);
  });

  it('sends a message as the page, streams the run’s events to it, and notifies when the window is not in front', async () => {
    await launch();
    chatWindow().blur();
    fake.enqueue(text('The answer is 42.'));
    const sent = await invoke('rein:sendMessage', { text: 'what is the answer?' });
    expect(sent).toMatchObject({ ok: true, value: { injected: false, agent: 'default' } });
    await eventually(() => sentEvents('session_end').length > 0, 'session_end at the page');
    expect(sentEvents('session_start')[0]).toMatchObject({ source: 'desktop' });
    expect(
      sentEvents('text_delta')
        .map((e) => e.text)
        .join(''),
    ).toBe('The answer is 42.');
    expect(Notification.shown.map((n) => n.options)).toContainEqual({
      title: 'Rein finished',
      body: 'The answer is 42.',
    });
    expect(Tray.created[0]!.image).toMatchObject({ path: join(TRAY_ICONS, 'trayIdleTemplate.png') });
  });

  it('refuses IPC from a window that is not ours', async () => {
    await launch();
    const other = new BrowserWindow({});
    other.webContents.mainFrame.url = PAGE;
    await expect(
      ipcMain.invokeAs('rein:status', { sender: other.webContents, senderFrame: other.webContents.mainFrame }),
    ).resolves.toMatchObject({
      ok: false,
      code: 'refused',
    });
  });

  describe('approvals', () => {
    async function askForApproval() {
      await launch();
      chatWindow().blur();
      fake.enqueue(tools([toolCall('file_write', { path: 'note.txt', content: 'approved' })]), text('done'));
      await invoke('rein:sendMessage', { text: 'write the note' });
      const box = await eventually(() => dialog.open()[0], 'the approval dialog');
      const request = sentEvents('approval_request')[0]!;
      return { box, request_id: request['request_id'] as string };
    }

    it('with the chat window in back, a native dialog asks and the tray shows the waiting approval', async () => {
      const { box, request_id } = await askForApproval();
      expect(box.options.message).toBe('Rein wants to use file_write');
      expect(Tray.created[0]!.title).toBe('1');
      expect(trayMenu().some((i) => i.label === 'Approvals (1)')).toBe(true);
      await expect(invoke('rein:listApprovals')).resolves.toMatchObject({
        ok: true,
        value: { approvals: [{ request_id: request_id, tool: 'file_write' }] },
      });

      box.answer(0); // Allow once
      await eventually(() => sentEvents('session_end').length > 0, 'the run to end');
      expect(sentEvents('approval_response')[0]).toMatchObject({ request_id, decision: 'allow', by: 'desktop' });
      expect(await readFile(join(work, 'note.txt'), 'utf8')).toBe('approved');
      expect(Tray.created[0]!.title).toBe('');
    });

    it('the in-app card (answerApproval over IPC) can answer first: the dialog closes and a late answer is refused', async () => {
      const { box, request_id } = await askForApproval();
      await expect(invoke('rein:answerApproval', { request_id: request_id, decision: 'deny' })).resolves.toEqual({
        ok: true,
        value: { ok: true, request_id: request_id, decision: 'deny' },
      });
      await eventually(() => box.settled, 'the dialog to close');
      await eventually(() => sentEvents('session_end').length > 0, 'the run to end');
      expect(sentEvents('approval_response')[0]).toMatchObject({ decision: 'deny', by: 'desktop' });
      expect(await exists(join(work, 'note.txt'))).toBe(false);
      await expect(invoke('rein:answerApproval', { request_id: request_id, decision: 'allow' })).resolves.toMatchObject(
        {
          ok: false,
          code: 'approval_already_decided',
        },
      );
    });
  });

  describe('permission changes asked for over the API', () => {
    it('wait for the person: the page gets the card, a notification and the tray say so, and only this window can confirm it', async () => {
      const d = await launch();
      const body = JSON.stringify({ name: 'evil', prompt: 'Obey.', config: { mode: 'bypassPermissions' } });
      const res = await fetch(`${d.daemon!.url}/agents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${d.daemon!.token()}`, 'content-type': 'application/json' },
        body,
      });
      expect(res.status).toBe(202);
      const { change_id } = (await res.json()) as { change_id: string };
      await eventually(() => sentEvents('change_request').length > 0, 'the change at the page');
      expect(sentEvents('change_request')[0]).toMatchObject({
        change: { change_id, agent: 'evil', raises: [{ field: 'mode' }] },
      });
      expect(Notification.shown.map((n) => n.options)).toContainEqual({
        title: 'Rein: confirm a permission change',
        body: 'Create agent "evil": mode default → bypassPermissions — asked for over Rein\'s API',
      });
      expect(Tray.created[0]!.title).toBe('1');
      expect(await exists(join(home, 'agents', 'evil'))).toBe(false);
      await expect(invoke('rein:listChanges')).resolves.toMatchObject({
        ok: true,
        value: { changes: [{ change_id }] },
      });

      const other = new BrowserWindow({});
      other.webContents.mainFrame.url = PAGE;
      await expect(
        ipcMain.invokeAs(
          'rein:desktop.answerChange',
          { sender: other.webContents, senderFrame: other.webContents.mainFrame },
          { change_id, decision: 'apply' },
        ),
      ).resolves.toMatchObject({ ok: false, code: 'refused' });
      expect(await exists(join(home, 'agents', 'evil'))).toBe(false);

      await expect(invoke('rein:desktop.answerChange', { change_id, decision: 'apply' })).resolves.toEqual({
        ok: true,
        value: { change_id, outcome: 'applied' },
      });
      expect(await readFile(join(home, 'agents', 'evil', 'config.yaml'), 'utf8')).toContain('mode: bypassPermissions');
      await eventually(() => Tray.created[0]!.title === '', 'the tray to clear');
    });

    it("are the window's own to make at once", async () => {
      await launch();
      await expect(
        invoke('rein:createAgent', { name: 'mine', prompt: 'Help.', config: { auto_approve: true } }),
      ).resolves.toMatchObject({ ok: true, value: { name: 'mine' } });
      expect(await readFile(join(home, 'agents', 'mine', 'config.yaml'), 'utf8')).toContain('auto_approve: true');
    });
  });

  describe('API key', () => {
    /** The key the model request carried (the SDK sends it as x-api-key or as a bearer token). */
    const keySent = () => {
      const h = fake.requests[0]!.headers;
      return h['x-api-key'] ?? String(h.authorization ?? '').replace(/^Bearer /, '');
    };
    /** Started as from Finder: no key in the environment. */
    const noEnvKey = () => ({ env: { ANTHROPIC_BASE_URL: fake.url, REIN_RETRY_BASE_MS: '1' } });
    /** The store every run reads (here: no Secret Service in the test's environment, so the 0600 file). */
    const storedKeyFile = () => join(home, 'secrets', 'anthropic-api-key');
    const sendAndReadKey = async () => {
      fake.enqueue(text('ok'));
      await invoke('rein:sendMessage', { text: 'hi' });
      await eventually(() => fake.requests.length > 0, 'a model request');
      return keySent();
    };

    it('moves a key kept in api-key.enc into the store every run reads, removes the old file, and runs use it', async () => {
      await mkdir(home, { recursive: true });
      await writeFile(join(home, 'api-key.enc'), await safeStorageCipher('darwin').encrypt('sk-ant-stored-0123456789'));
      await launch(noEnvKey());
      expect(await exists(join(home, 'api-key.enc'))).toBe(false);
      expect(await readFile(storedKeyFile(), 'utf8')).toBe('sk-ant-stored-0123456789\n');
      expect(await sendAndReadKey()).toBe('sk-ant-stored-0123456789');
    });

    it('a key saved in Settings goes to that store (0600), reaches the next run, and the view says where', async () => {
      await launch(noEnvKey());
      const saved = await invoke('rein:saveSettings', { api_key: ' sk-ant-typed-in-settings-42 ' });
      expect(saved).toMatchObject({
        ok: true,
        value: { platform: 'darwin', api_key: { present: true, source: 'file', hint: 'sk-ant-…s-42' } },
      });
      expect(saved.value.api_key.note).toMatch(/readable only by you but not encrypted/);
      expect(saved.value.mac_permissions).toEqual({
        automation: 'unavailable',
        accessibility: 'authorized',
        screen_recording: 'denied',
      });
      expect(await readFile(storedKeyFile(), 'utf8')).toBe('sk-ant-typed-in-settings-42\n');
      if (process.platform !== 'win32') expect((await stat(storedKeyFile())).mode & 0o777).toBe(0o600);
      expect(await exists(join(home, 'api-key.enc'))).toBe(false);
      const view = await invoke('rein:desktop.desktopSettings');
      expect(view.value.key_storage).toMatchObject({
        available: true,
        store: 'file',
        plain_text: true,
        location: storedKeyFile(),
      });
      expect(await sendAndReadKey()).toBe('sk-ant-typed-in-settings-42');
    });

    it('refuses what cannot be a key, naming the field, and stores nothing', async () => {
      await launch(noEnvKey());
      const reply = await invoke('rein:saveSettings', { api_key: 'sk ant with spaces' });
      expect(reply).toMatchObject({ ok: false, code: 'invalid_input' });
      expect(await exists(storedKeyFile())).toBe(false);
    });

    it('ANTHROPIC_API_KEY in the environment Rein started with wins over the stored key', async () => {
      await mkdir(join(home, 'secrets'), { recursive: true });
      await writeFile(storedKeyFile(), 'sk-ant-stored-0123456789\n');
      await launch();
      const settings = await invoke('rein:getSettings');
      expect(settings.value.api_key).toMatchObject({ present: true, source: 'env' });
      expect(await sendAndReadKey()).toBe('env-key');
    });

    it('an api-key.enc the keychain cannot open stays, is reported on the tray, and runs use the environment’s key', async () => {
      await mkdir(home, { recursive: true });
      await writeFile(join(home, 'api-key.enc'), 'not sealed by this keychain');
      await launch();
      expect(Tray.created[0]!.toolTip).toMatch(/api-key\.enc cannot be decrypted/);
      expect(await exists(join(home, 'api-key.enc'))).toBe(true);
      expect(await sendAndReadKey()).toBe('env-key');
    });

    it('removing it clears the store; runs go back to the key Rein was started with', async () => {
      await mkdir(join(home, 'secrets'), { recursive: true });
      await writeFile(storedKeyFile(), 'sk-ant-stored-0123456789\n');
      await launch();
      await expect(invoke('rein:desktop.clearApiKey')).resolves.toEqual({ ok: true, value: { removed: true } });
      expect(await exists(storedKeyFile())).toBe(false);
      await expect(invoke('rein:desktop.clearApiKey')).resolves.toEqual({ ok: true, value: { removed: false } });
      expect(await sendAndReadKey()).toBe('env-key');
    });
  });

  describe('hotkey, dock and tray', () => {
    it('the default hotkey toggles the chat window', async () => {
      await launch();
      const win = chatWindow();
      win.show();
      globalShortcut.press('CommandOrControl+Shift+Space');
      expect(win.visible).toBe(false);
      globalShortcut.press('CommandOrControl+Shift+Space');
      expect(win.isFocused()).toBe(true);
    });

    it('a hotkey taken by another app is reported as a notification and in the settings', async () => {
      globalShortcut.taken.add('CommandOrControl+Shift+Space');
      await launch();
      expect(Notification.shown.map((n) => n.options.title)).toContain('Rein’s shortcut is not available');
      const view = await invoke('rein:desktop.desktopSettings');
      expect(view.value.hotkey).toMatchObject({ accelerator: 'CommandOrControl+Shift+Space', registered: false });
      expect(view.value.hotkey.problem).toMatch(/already used/);

      // Honest in the tray too, at the top of its menu, until it is fixed.
      expect(trayMenu()[0]!.label).toBe(
        '⚠ Shortcut CommandOrControl+Shift+Space is not available — choose another in Settings',
      );

      const changed = await invoke('rein:desktop.updateDesktopSettings', { hotkey: 'Alt+Shift+R' });
      expect(changed.value.hotkey).toEqual({ accelerator: 'Alt+Shift+R', registered: true });
      expect(JSON.parse(await readFile(join(home, 'desktop.json'), 'utf8'))).toMatchObject({ hotkey: 'Alt+Shift+R' });
      expect(trayMenu()[0]!.label).toBe('Open Chat');
    });

    it('a notification the system could not show is logged and put on the tray icon', async () => {
      const warned: string[] = [];
      globalShortcut.taken.add('CommandOrControl+Shift+Space'); // makes one notification at start
      await launch({ warn: (m) => warned.push(m) });
      const shown = Notification.shown.find((n) => n.options.title === 'Rein’s shortcut is not available')!;
      shown.fail('Notifications are not allowed for this app');
      expect(
        warned.some((m) =>
          m.includes(
            'a notification could not be shown (Notifications are not allowed for this app): Rein’s shortcut is not available',
          ),
        ),
      ).toBe(true);
      expect(Tray.created[0]!.image).toMatchObject({ path: join(TRAY_ICONS, 'trayErrorTemplate.png') });
      expect(Tray.created[0]!.toolTip).toMatch(/Rein’s shortcut is not available/);
    });

    it('the hotkey can also be changed through saveSettings, validated with the field named', async () => {
      await launch();
      await expect(invoke('rein:saveSettings', { hotkey: 'Banana' })).resolves.toMatchObject({
        ok: false,
        code: 'invalid_input',
        field: 'hotkey',
      });
      expect(globalShortcut.isRegistered('CommandOrControl+Shift+Space')).toBe(true);
      await expect(invoke('rein:saveSettings', { hotkey: null })).resolves.toMatchObject({
        ok: true,
        value: { hotkey: null },
      });
      expect(globalShortcut.registered.size).toBe(0);
    });

    it('hides the Dock icon by default and shows it when the setting asks', async () => {
      await launch();
      expect(app.dock.hide).toHaveBeenCalled();
      await invoke('rein:desktop.updateDesktopSettings', { show_dock_icon: true });
      expect(app.dock.show).toHaveBeenCalledTimes(1);
    });

    it('"Open at login" is off until the person chooses, applied only when it changes, never at start', async () => {
      await launch({ packaged: true });
      // Nothing at start: no login item added unasked, and onboarding is told nobody chose yet.
      expect(app.setLoginItemSettings).not.toHaveBeenCalled();
      const first = await invoke('rein:desktop.desktopSettings');
      expect(first.value.login_item).toEqual({ available: true, enabled: false, chosen: false });
      expect(first.value.settings.open_at_login).toBeUndefined();
      // Chosen: applied once.
      await invoke('rein:desktop.updateDesktopSettings', { open_at_login: true });
      expect(app.setLoginItemSettings).toHaveBeenLastCalledWith({ openAtLogin: true, args: ['--hidden'] });
      expect((await invoke('rein:desktop.desktopSettings')).value.login_item).toEqual({
        available: true,
        enabled: true,
        chosen: true,
      });
      await desktop!.dispose();
      desktop = undefined;

      // The person removed the login item in System Settings; the next start does not add it back, and
      // Settings shows what the system has.
      resetElectronMock(); // also: the system has no login item now
      await launch({ packaged: true });
      expect(app.setLoginItemSettings).not.toHaveBeenCalled();
      const again = await invoke('rein:desktop.desktopSettings');
      expect(again, JSON.stringify(again)).toMatchObject({ ok: true });
      expect(again.value.login_item).toEqual({ available: true, enabled: false, chosen: true });
      // Turning it off when the system already has it off changes nothing.
      await invoke('rein:desktop.updateDesktopSettings', { open_at_login: false });
      expect(app.setLoginItemSettings).not.toHaveBeenCalled();
      await desktop!.dispose();
      desktop = undefined;

      resetElectronMock();
      const xdg = await mkdtemp(join(tmpdir(), 'rein-xdg-'));
      await launch({
        packaged: true,
        platform: 'linux',
        env: { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'env-key', XDG_CONFIG_HOME: xdg },
      });
      expect(existsSync(join(xdg, 'autostart', 'dev.rein.app.desktop'))).toBe(false);
      await invoke('rein:desktop.updateDesktopSettings', { open_at_login: true });
      expect(await readFile(join(xdg, 'autostart', 'dev.rein.app.desktop'), 'utf8')).toContain(
        `Exec="${process.execPath}" "--hidden"`,
      );
      expect((await invoke('rein:desktop.desktopSettings')).value.login_item).toMatchObject({
        enabled: true,
        chosen: true,
      });
      expect(app.setLoginItemSettings).not.toHaveBeenCalled();
    });

    it('a development build is no login item; started at login, the window waits until asked for', async () => {
      await launch({ startHidden: true });
      expect(app.setLoginItemSettings).not.toHaveBeenCalled();
      expect(chatWindow().visible).toBe(false);
    });

    it('the tray menu opens the window on the chosen view, once the page has loaded', async () => {
      await launch();
      const win = chatWindow();
      win.hide();
      trayMenu().find((i) => i.label === 'Agents')!.click!();
      expect(win.visible).toBe(true);
      expect(win.webContents.sent.filter((m) => m.channel === 'rein:navigate')).toEqual([]);
      win.webContents.emit('did-finish-load');
      trayMenu().find((i) => i.label === 'Settings…')!.click!();
      expect(win.webContents.sent.filter((m) => m.channel === 'rein:navigate').map((m) => m.args[0])).toEqual([
        'agents',
        'settings',
      ]);
    });

    it('reports macOS permission requests', async () => {
      await launch();
      await expect(invoke('rein:desktop.requestMacPermission', { permission: 'screen_recording' })).resolves.toEqual({
        ok: true,
        value: { permission: 'screen_recording', status: 'denied' },
      });
    });
  });

  it('when the daemon cannot start, keeps running with the tray in the error state and every operation saying why', async () => {
    await launch({
      startDaemon: async () => Promise.reject(new Error('another Rein daemon (pid 42) owns this REIN_HOME')),
    });
    expect(Tray.created[0]!.image).toMatchObject({ path: join(TRAY_ICONS, 'trayErrorTemplate.png') });
    expect(Tray.created[0]!.toolTip).toMatch(/daemon could not start: another Rein daemon/);
    await expect(invoke('rein:status')).resolves.toMatchObject({ ok: false, error: expect.stringMatching(/pid 42/) });
  });

  it('when the daemon’s port is taken, the window still works on the service and the tray says why', async () => {
    const squatter = net.createServer();
    await new Promise<void>((ok) => squatter.listen(0, '127.0.0.1', ok));
    const port = (squatter.address() as net.AddressInfo).port;
    try {
      const d = await launch({
        startDaemon: (o) =>
          startDaemon({
            ...o,
            port,
            cwd: work,
            config: GlobalConfig.parse({}),
            shutdownGraceMs: 200,
            shutdownCancelMs: 2_000,
          }),
      });
      expect(d.daemon).toBeUndefined();
      expect(d.service).toBeDefined();
      expect(Tray.created[0]!.toolTip).toMatch(new RegExp(`daemon could not start: port ${port} .*already in use`));
      await expect(invoke('rein:status')).resolves.toMatchObject({
        ok: true,
        value: { version: '9.9.9', active_runs: 0 },
      });
      await expect(invoke('rein:listAgents')).resolves.toEqual({ ok: true, value: { agents: [] } });
      // A run goes through the service in this process, its events reach the page.
      fake.enqueue(text('Still here.'));
      const sent = await invoke('rein:sendMessage', { text: 'hello' });
      expect(sent).toMatchObject({ ok: true, value: { injected: false } });
      await eventually(() => sentEvents('session_end').length > 0, 'the run to end');
      expect(
        sentEvents('text_delta')
          .map((e) => e.text)
          .join(''),
      ).toBe('Still here.');
    } finally {
      await new Promise((ok) => squatter.close(ok));
    }
  });

  it('headless: the daemon alone, without window, tray, hotkey or IPC', async () => {
    const d = await launch({ headless: true });
    expect(d.daemon).toBeDefined();
    expect(BrowserWindow.created).toEqual([]);
    expect(Tray.created).toEqual([]);
    expect(globalShortcut.registered.size).toBe(0);
    expect(ipcMain.handlers.size).toBe(0);
    const res = await fetch(`${d.daemon!.url}/health`);
    expect(res.status).toBe(200);
    // No window shows what happens: a heartbeat alert becomes the app's own notification.
    d.daemon!.publish({
      type: 'heartbeat_alert',
      at: new Date().toISOString(),
      agent: 'ops',
      text: 'disk is 95% full',
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(Notification.shown.map((n) => n.options)).toContainEqual({
      title: 'ops: heartbeat alert',
      body: 'disk is 95% full',
    });
  });

  it('closing releases the hotkey, the tray, the handlers and the daemon', async () => {
    const d = await launch();
    await d.dispose();
    expect(globalShortcut.registered.size).toBe(0);
    expect(Tray.created[0]!.destroyed).toBe(true);
    expect(ipcMain.handlers.size).toBe(0);
    expect(await exists(join(home, 'daemon.json'))).toBe(false);
    await d.dispose(); // twice is harmless
  });
});
