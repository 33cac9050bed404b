import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { contextBridge, ipcRenderer, resetElectronMock } from '../../support/electronMock.js';
import {
  parseBridgeErrorMessage,
  reinOperationNames,
  type ApiEvent,
  type ReinApi,
} from '../../../src-main/core/api/index.js';
import {
  DESKTOP_NAVIGATE_CHANNEL,
  desktopOperationNames,
  type DesktopView,
  type ReinDesktopApi,
} from '../../../src-main/core/api/desktopApi.js';

let loads = 0;
/** Run a fresh copy of the preload (a new module instance per query; the electron mock stays shared). */
async function loadPreload(): Promise<{ rein: ReinApi; desktop: ReinDesktopApi }> {
  loads += 1;
  await import(/* @vite-ignore */ `../../../src-preload/index.js?load=${loads}`);
  const rein = contextBridge.exposed.get('rein');
  const desktop = contextBridge.exposed.get('reinDesktop');
  if (!rein || !desktop) throw new Error('the preload did not expose window.rein and window.reinDesktop');
  return { rein: rein as ReinApi, desktop: desktop as ReinDesktopApi };
}

beforeEach(() => resetElectronMock());

describe('preload bridge', () => {
  it('exposes exactly one method per operation plus subscribe / onNavigate, and nothing else', async () => {
    const { rein, desktop } = await loadPreload();
    expect([...contextBridge.exposed.keys()]).toEqual(['rein', 'reinDesktop']);
    expect(Object.keys(rein).sort()).toEqual([...reinOperationNames, 'subscribe'].sort());
    expect(Object.keys(desktop).sort()).toEqual([...desktopOperationNames, 'onNavigate'].sort());
    expect(Object.values(rein).every((v) => typeof v === 'function')).toBe(true);
  });

  it('each ReinApi method invokes its own channel with the input and unwraps the envelope', async () => {
    const { rein } = await loadPreload();
    ipcRenderer.invoke.mockResolvedValueOnce({ ok: true, value: { version: '1.0.0' } });
    await expect(rein.status()).resolves.toEqual({ version: '1.0.0' });
    expect(ipcRenderer.invoke).toHaveBeenLastCalledWith('rein:status', undefined);

    ipcRenderer.invoke.mockResolvedValueOnce({ ok: true, value: { injected: false, route: 'desktop' } });
    await rein.sendMessage({ text: 'hi' });
    expect(ipcRenderer.invoke).toHaveBeenLastCalledWith('rein:sendMessage', { text: 'hi' });
  });

  it('desktop methods use the rein:desktop. channels', async () => {
    const { desktop } = await loadPreload();
    ipcRenderer.invoke.mockResolvedValueOnce({ ok: true, value: { permission: 'accessibility', status: 'denied' } });
    await expect(desktop.requestMacPermission({ permission: 'accessibility' })).resolves.toEqual({
      permission: 'accessibility',
      status: 'denied',
    });
    expect(ipcRenderer.invoke).toHaveBeenLastCalledWith('rein:desktop.requestMacPermission', {
      permission: 'accessibility',
    });
  });

  it('turns a failure envelope into an error whose message carries code and field for the page to read back', async () => {
    const { rein } = await loadPreload();
    ipcRenderer.invoke.mockResolvedValueOnce({
      ok: false,
      code: 'invalid_input',
      field: 'agent',
      error: 'rein:sendMessage: agent: expected an agent name',
    });
    const err = await rein.sendMessage({ text: 'x', agent: 'BAD' }).catch((e: unknown) => e as Error);
    expect(parseBridgeErrorMessage((err as Error).message)).toEqual({
      code: 'invalid_input',
      field: 'agent',
      message: 'rein:sendMessage: agent: expected an agent name',
    });

    ipcRenderer.invoke.mockResolvedValueOnce({ ok: false, code: 'refused', error: 'rein:status: refused sender' });
    const refused = await rein.status().catch((e: unknown) => e as Error);
    expect(parseBridgeErrorMessage((refused as Error).message)).toEqual({
      code: 'refused',
      message: 'rein:status: refused sender',
    });
  });

  it('delivers rein:event frames to a subscriber until it unsubscribes', async () => {
    const { rein } = await loadPreload();
    const seen: ApiEvent[] = [];
    const stop = rein.subscribe((ev) => seen.push(ev));
    const frame = {
      type: 'text_delta',
      session_id: 's1',
      seq: 0,
      at: '2026-01-01T00:00:00Z',
      text: 'hi',
      route: 'desktop',
    } as const;
    ipcRenderer.emit('rein:event', {}, frame);
    stop();
    ipcRenderer.emit('rein:event', {}, { ...frame, seq: 1 });
    expect(seen).toEqual([frame]);
    expect(ipcRenderer.listenerCount('rein:event')).toBe(0);
  });

  it('passes on the shell’s requests to open a known view, and ignores anything else', async () => {
    const { desktop } = await loadPreload();
    const views: DesktopView[] = [];
    const stop = desktop.onNavigate((v) => views.push(v));
    ipcRenderer.emit(DESKTOP_NAVIGATE_CHANNEL, {}, 'approvals');
    ipcRenderer.emit(DESKTOP_NAVIGATE_CHANNEL, {}, 'javascript:alert(1)');
    ipcRenderer.emit(DESKTOP_NAVIGATE_CHANNEL, {}, { view: 'chat' });
    stop();
    ipcRenderer.emit(DESKTOP_NAVIGATE_CHANNEL, {}, 'settings');
    expect(views).toEqual(['approvals']);
  });
});
