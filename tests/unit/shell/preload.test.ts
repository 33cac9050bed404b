import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import { contextBridge, ipcRenderer, resetElectronMock } from '../../support/electronMock.js';
import { reinOperations, type ReinApi, type ReinEvent } from '../../../src-main/core/api/index.js';

let loads = 0;
/** Run a fresh copy of the preload (a new module instance per query; the electron mock stays shared). */
async function loadPreload(): Promise<ReinApi> {
  loads += 1;
  await import(/* @vite-ignore */ `../../../src-preload/index.js?load=${loads}`);
  const api = contextBridge.exposed.get('rein');
  if (!api) throw new Error('the preload exposed nothing as window.rein');
  return api as ReinApi;
}

beforeEach(() => resetElectronMock());

describe('preload bridge', () => {
  it('exposes exactly one method per ReinApi operation plus subscribe, and nothing else', async () => {
    const api = await loadPreload();
    expect([...contextBridge.exposed.keys()]).toEqual(['rein']);
    expect(Object.keys(api).sort()).toEqual([...Object.keys(reinOperations), 'subscribe'].sort());
  });

  it('status() invokes rein:status and unwraps the envelope', async () => {
    const api = await loadPreload();
    ipcRenderer.invoke.mockResolvedValueOnce({ ok: true, value: { version: '1.0.0', activeAgent: 'default' } });
    await expect(api.status()).resolves.toEqual({ version: '1.0.0', activeAgent: 'default' });
    expect(ipcRenderer.invoke).toHaveBeenCalledWith('rein:status', undefined);
  });

  it('turns a failure envelope into a rejected promise carrying its message', async () => {
    const api = await loadPreload();
    ipcRenderer.invoke.mockResolvedValueOnce({ ok: false, code: 'refused', error: 'rein:status: refused sender' });
    await expect(api.status()).rejects.toThrow('rein:status: refused sender');
  });

  it('delivers rein:event frames to a subscriber until it unsubscribes', async () => {
    const api = await loadPreload();
    const seen: ReinEvent[] = [];
    const stop = api.subscribe((ev) => seen.push(ev));
    const frame = { type: 'text_delta', sessionId: 's1', seq: 0, at: '2026-01-01T00:00:00Z', text: 'hi' } as const;
    ipcRenderer.emit('rein:event', {}, frame);
    stop();
    ipcRenderer.emit('rein:event', {}, { ...frame, seq: 1 });
    expect(seen).toEqual([frame]);
    expect(ipcRenderer.listenerCount('rein:event')).toBe(0);
  });
});
