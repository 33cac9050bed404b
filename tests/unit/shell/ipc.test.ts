import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

vi.mock('electron', () => import('../../support/electronMock.js'));

import type { WebContents } from 'electron';
import { FakeFrame, FakeWebContents, ipcMain, resetElectronMock } from '../../support/electronMock.js';
import { handle, isSamePage, ourTopFrame } from '../../../src-main/shell/ipc.js';
import { registerReinHandlers } from '../../../src-main/shell/reinHandlers.js';
import { ReinStatus } from '../../../src-main/core/api/index.js';
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
    const reply = await ipcMain.invokeAs('rein:rename', { sender: stranger, senderFrame: stranger.mainFrame }, { name: 'x' });
    expect(reply).toMatchObject({ ok: false, code: 'refused' });
    expect(fn).not.toHaveBeenCalled();
  });

  it('refuses a sub-frame of our window', async () => {
    const { contents, trusted } = ourWindow();
    const fn = vi.fn(() => 'ran');
    handle('rein:rename', Rename, trusted, fn);
    const iframe = new FakeFrame(PAGE);
    const reply = await ipcMain.invokeAs('rein:rename', { sender: contents, senderFrame: iframe }, { name: 'x' });
    expect(reply).toMatchObject({ ok: false, code: 'refused' });
    expect(fn).not.toHaveBeenCalled();
  });

  it('refuses our window once it shows another page, and a frame that is gone', async () => {
    const { contents, trusted } = ourWindow();
    handle('rein:rename', Rename, trusted, () => 'ran');
    contents.mainFrame.url = 'https://attacker.example/';
    await expect(ipcMain.invokeAs('rein:rename', { sender: contents, senderFrame: contents.mainFrame }, { name: 'x' }))
      .resolves.toMatchObject({ ok: false, code: 'refused' });
    await expect(ipcMain.invokeAs('rein:rename', { sender: contents, senderFrame: null }, { name: 'x' }))
      .resolves.toMatchObject({ ok: false, code: 'refused' });
  });

  it('refuses an invalid payload, naming the field, without running the handler', async () => {
    const { trusted, fromTop } = ourWindow();
    const fn = vi.fn(() => 'ran');
    handle('rein:rename', Rename, trusted, fn);
    const reply = await ipcMain.invokeAs('rein:rename', fromTop, { name: 42, extra: true });
    expect(reply).toMatchObject({ ok: false, code: 'invalid_input' });
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

describe('rein:status', () => {
  it('answers our page with the version and the active agent', async () => {
    const { trusted, fromTop } = ourWindow();
    registerReinHandlers(trusted, { version: () => '1.2.3', activeAgent: () => 'default' });
    const reply = (await ipcMain.invokeAs('rein:status', fromTop)) as { ok: true; value: unknown };
    expect(reply.ok).toBe(true);
    expect(ReinStatus.parse(reply.value)).toEqual({ version: '1.2.3', activeAgent: 'default' });
  });

  it('refuses an argument it does not take', async () => {
    const { trusted, fromTop } = ourWindow();
    registerReinHandlers(trusted, { version: () => '1.2.3', activeAgent: () => 'default' });
    await expect(ipcMain.invokeAs('rein:status', fromTop, { agent: 'other' })).resolves.toMatchObject({
      ok: false,
      code: 'invalid_input',
    });
  });
});
