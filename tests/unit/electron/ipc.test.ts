import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

vi.mock('electron', () => import('../../support/electronMock.js'));

import type { WebContents } from 'electron';
import { FakeFrame, FakeWebContents, ipcMain, resetElectronMock } from '../../support/electronMock.js';
import { handle, isSamePage, ourTopFrame } from '../../../src-main/electron/ipc.js';
import { registerDesktopHandlers, registerReinHandlers } from '../../../src-main/electron/reinHandlers.js';
import { reinOperationNames } from '../../../src-main/core/api/index.js';
import { desktopOperationNames } from '../../../src-main/core/api/desktopApi.js';
import { ReinError } from '../../../src-main/core/errors.js';

const PAGE = 'file:///Applications/Rein.app/Contents/Resources/app.asar/out/renderer/index.html';

/** Our window showing our page, and the check that trusts only it. */
function ourWindow() {
  const contents = new FakeWebContents();
  contents.mainFrame = new FakeFrame(PAGE);
  const trusted = ourTopFrame(() => new Set([contents as unknown as WebContents]), isSamePage(PAGE));
  return { contents, trusted, fromTop: { sender: contents, senderFrame: contents.mainFrame } };
}

beforeEach(() => resetElectronMock());

describe('handle', () => {
  const Rename = z.strictObject({ name: z.string().min(1) });

  it('answers a valid call from our page with an ok envelope', async () => {
    const { trusted, fromTop } = ourWindow();
    handle('rein:rename', Rename, trusted, ({ name }) => `renamed to ${name}`);
    await expect(ipcMain.invokeAs('rein:rename', fromTop, { name: 'work' })).resolves.toEqual({
      ok: true,
      value: 'renamed to work',
    });
  });

  it('refuses a sender that is not one of our windows, without running the handler', async () => {
    const { trusted } = ourWindow();
    const stranger = new FakeWebContents();
    stranger.mainFrame = new FakeFrame(PAGE); // even showing a copy of our page
    const fn = vi.fn(() => 'ran');
    handle('rein:rename', Rename, trusted, fn);
    const reply = await ipcMain.invokeAs(
      'rein:rename',
      { sender: stranger, senderFrame: stranger.mainFrame },
      { name: 'x' },
    );
    expect(reply).toMatchObject({ ok: false, code: 'refused' });
    expect(fn).not.toHaveBeenCalled();
  });

  it('refuses a sub-frame of our window', async () => {
    const { contents, trusted } = ourWindow();
    const fn = vi.fn(() => 'ran');
    handle('rein:rename', Rename, trusted, fn);
    // Same renderer process, its own routing id, our top frame as its parent.
    const iframe = new FakeFrame(PAGE, { processId: contents.mainFrame.processId, parent: contents.mainFrame });
    const reply = await ipcMain.invokeAs('rein:rename', { sender: contents, senderFrame: iframe }, { name: 'x' });
    expect(reply).toMatchObject({ ok: false, code: 'refused' });
    // Even one that claims the top frame's routing id is refused while it has a parent.
    const claiming = new FakeFrame(PAGE, {
      processId: contents.mainFrame.processId,
      routingId: contents.mainFrame.routingId,
      parent: contents.mainFrame,
    });
    await expect(
      ipcMain.invokeAs('rein:rename', { sender: contents, senderFrame: claiming }, { name: 'x' }),
    ).resolves.toMatchObject({ ok: false, code: 'refused' });
    expect(fn).not.toHaveBeenCalled();
  });

  it('trusts our top frame by identity: a new wrapper object for the same frame is still our page', async () => {
    const { contents, trusted } = ourWindow();
    handle('rein:rename', Rename, trusted, ({ name }) => name);
    const wrapper = contents.mainFrame.sameFrame();
    expect(wrapper).not.toBe(contents.mainFrame);
    await expect(
      ipcMain.invokeAs('rein:rename', { sender: contents, senderFrame: wrapper }, { name: 'x' }),
    ).resolves.toEqual({ ok: true, value: 'x' });
    // The same routing id in another renderer process is another frame.
    const elsewhere = new FakeFrame(PAGE, {
      processId: contents.mainFrame.processId + 1,
      routingId: contents.mainFrame.routingId,
    });
    await expect(
      ipcMain.invokeAs('rein:rename', { sender: contents, senderFrame: elsewhere }, { name: 'x' }),
    ).resolves.toMatchObject({ ok: false, code: 'refused' });
  });

  it('refuses our window once it shows another page, and a frame that is gone', async () => {
    const { contents, trusted } = ourWindow();
    handle('rein:rename', Rename, trusted, () => 'ran');
    contents.mainFrame.url = 'https://attacker.example/';
    await expect(
      ipcMain.invokeAs('rein:rename', { sender: contents, senderFrame: contents.mainFrame }, { name: 'x' }),
    ).resolves.toMatchObject({ ok: false, code: 'refused' });
    await expect(
      ipcMain.invokeAs('rein:rename', { sender: contents, senderFrame: null }, { name: 'x' }),
    ).resolves.toMatchObject({ ok: false, code: 'refused' });
  });

  it('refuses an invalid payload, naming the field, without running the handler', async () => {
    const { trusted, fromTop } = ourWindow();
    const fn = vi.fn(() => 'ran');
    handle('rein:rename', Rename, trusted, fn);
    const reply = await ipcMain.invokeAs('rein:rename', fromTop, { name: 42, extra: true });
    expect(reply).toMatchObject({ ok: false, code: 'invalid_input', field: 'name' });
    expect((reply as { error: string }).error).toMatch(/^rein:rename: name: /);
    expect(fn).not.toHaveBeenCalled();
  });

  it('turns a thrown error into a failure envelope keeping the ReinError code', async () => {
    const { trusted, fromTop } = ourWindow();
    handle('rein:rename', Rename, trusted, () => {
      throw new ReinError('not_found', 'no agent named work');
    });
    await expect(ipcMain.invokeAs('rein:rename', fromTop, { name: 'work' })).resolves.toEqual({
      ok: false,
      code: 'not_found',
      error: 'rein:rename: no agent named work',
    });
  });

  it('keeps the code and field of a service error, so the page sees what it would see over HTTP', async () => {
    const { trusted, fromTop } = ourWindow();
    handle('rein:rename', Rename, trusted, () => {
      throw new ReinError('agent_not_found', 'agent "work" not found', { field: 'name' });
    });
    await expect(ipcMain.invokeAs('rein:rename', fromTop, { name: 'work' })).resolves.toEqual({
      ok: false,
      code: 'agent_not_found',
      field: 'name',
      error: 'rein:rename: agent "work" not found',
    });
  });

  it('calls anything else that is thrown internal', async () => {
    const { trusted, fromTop } = ourWindow();
    handle('rein:rename', Rename, trusted, () => {
      throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    });
    await expect(ipcMain.invokeAs('rein:rename', fromTop, { name: 'work' })).resolves.toMatchObject({
      ok: false,
      code: 'internal',
    });
  });

  it('removes its handler when disposed', () => {
    const { trusted } = ourWindow();
    const registration = handle('rein:rename', Rename, trusted, () => 'ran');
    expect(ipcMain.handlers.has('rein:rename')).toBe(true);
    registration.dispose();
    expect(ipcMain.handlers.has('rein:rename')).toBe(false);
  });
});

describe('isSamePage', () => {
  it('matches a file page by path, ignoring query and hash', () => {
    const ours = isSamePage(PAGE);
    expect(ours(new URL(`${PAGE}#/settings`))).toBe(true);
    expect(ours(new URL('file:///tmp/evil/index.html'))).toBe(false);
    expect(ours(new URL('https://example.com/out/renderer/index.html'))).toBe(false);
  });

  it('matches the dev server by origin', () => {
    const ours = isSamePage('http://localhost:5173/');
    expect(ours(new URL('http://localhost:5173/src/main.tsx'))).toBe(true);
    expect(ours(new URL('http://localhost:5174/'))).toBe(false);
  });
});

describe('operation handlers', () => {
  /** A service whose every operation records its input and answers with its own name. */
  function recordingService<T extends string>(names: readonly T[]) {
    const calls: { name: T; input: unknown }[] = [];
    const service = Object.fromEntries(
      names.map((name) => [name, async (input: unknown) => (calls.push({ name, input }), { from: name })]),
    );
    return { calls, service };
  }

  it('registers exactly one handler per ReinApi operation and per desktop operation, and no other channel', () => {
    const { trusted } = ourWindow();
    registerReinHandlers(trusted, recordingService(reinOperationNames).service as never);
    registerDesktopHandlers(trusted, recordingService(desktopOperationNames).service as never);
    expect([...ipcMain.handlers.keys()].sort()).toEqual(
      [...reinOperationNames.map((n) => `rein:${n}`), ...desktopOperationNames.map((n) => `rein:desktop.${n}`)].sort(),
    );
  });

  it.each([
    ...reinOperationNames.map((n) => [`rein:${n}`] as const),
    ...desktopOperationNames.map((n) => [`rein:desktop.${n}`] as const),
  ])('%s refuses a foreign window and an iframe of ours without calling the service', async (channel) => {
    const { contents, trusted } = ourWindow();
    const rein = recordingService(reinOperationNames);
    const desktop = recordingService(desktopOperationNames);
    registerReinHandlers(trusted, rein.service as never);
    registerDesktopHandlers(trusted, desktop.service as never);
    const stranger = new FakeWebContents();
    stranger.mainFrame = new FakeFrame(PAGE);
    await expect(
      ipcMain.invokeAs(channel, { sender: stranger, senderFrame: stranger.mainFrame }, {}),
    ).resolves.toMatchObject({ ok: false, code: 'refused' });
    await expect(
      ipcMain.invokeAs(channel, { sender: contents, senderFrame: new FakeFrame(PAGE) }, {}),
    ).resolves.toMatchObject({ ok: false, code: 'refused' });
    expect([...rein.calls, ...desktop.calls]).toEqual([]);
  });

  it('passes a valid payload to the service function of the same name, and refuses an invalid one naming the field', async () => {
    const { trusted, fromTop } = ourWindow();
    const rein = recordingService(reinOperationNames);
    registerReinHandlers(trusted, rein.service as never);
    const msg = { text: 'hello', agent: 'ops' };
    await expect(ipcMain.invokeAs('rein:sendMessage', fromTop, msg)).resolves.toEqual({
      ok: true,
      value: { from: 'sendMessage' },
    });
    expect(rein.calls).toEqual([{ name: 'sendMessage', input: msg }]);

    const bad = (await ipcMain.invokeAs('rein:sendMessage', fromTop, { text: 'hi', agent: 'Not An Agent' })) as {
      ok: false;
      code: string;
      field: string;
      error: string;
    };
    expect(bad).toMatchObject({ ok: false, code: 'invalid_input', field: 'agent' });
    expect(bad.error).toMatch(/^rein:sendMessage: agent: /);
    await expect(ipcMain.invokeAs('rein:status', fromTop, { sneaky: true })).resolves.toMatchObject({
      ok: false,
      code: 'invalid_input',
    });
    await expect(
      ipcMain.invokeAs('rein:answerApproval', fromTop, { request_id: 'apr_0123456789abcdef', decision: 'maybe' }),
    ).resolves.toMatchObject({
      ok: false,
      field: 'decision',
    });
    expect(rein.calls).toHaveLength(1);
  });

  it('validates desktop payloads with their contract too', async () => {
    const { trusted, fromTop } = ourWindow();
    const desktop = recordingService(desktopOperationNames);
    registerDesktopHandlers(trusted, desktop.service as never);
    await expect(
      ipcMain.invokeAs('rein:desktop.updateDesktopSettings', fromTop, { hotkey: 'Banana' }),
    ).resolves.toMatchObject({ ok: false, field: 'hotkey' });
    await expect(ipcMain.invokeAs('rein:desktop.updateDesktopSettings', fromTop, {})).resolves.toMatchObject({
      ok: false,
      code: 'invalid_input',
    });
    await expect(
      ipcMain.invokeAs('rein:desktop.requestMacPermission', fromTop, { permission: 'camera' }),
    ).resolves.toMatchObject({ ok: false, field: 'permission' });
    await expect(
      ipcMain.invokeAs('rein:desktop.updateDesktopSettings', fromTop, { show_dock_icon: true }),
    ).resolves.toMatchObject({ ok: true });
    expect(desktop.calls).toEqual([{ name: 'updateDesktopSettings', input: { show_dock_icon: true } }]);
  });
});
