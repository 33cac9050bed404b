/**
 * The bridge: the page gets `window.rein`, a ReinApi with one named method per operation and a
 * subscription to events, and nothing else (no ipcRenderer, no channel names of its choosing).
 * Only types come from core/api, so this bundle stays a few lines of JavaScript.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { ReinApi, ReinChannel, ReinEnvelope, ReinEvent } from '../src-main/core/api/index.js';

// Must equal REIN_EVENT_CHANNEL in core/api (a value import would bundle zod into the preload).
const EVENT_CHANNEL = 'rein:event';

async function call<T>(channel: ReinChannel, input?: unknown): Promise<T> {
  const reply = (await ipcRenderer.invoke(channel, input)) as ReinEnvelope<T>;
  if (!reply.ok) throw new Error(reply.error);
  return reply.value;
}

const api: ReinApi = {
  status: () => call('rein:status'),
  subscribe(listener) {
    const forward = (_event: IpcRendererEvent, frame: ReinEvent): void => listener(frame);
    ipcRenderer.on(EVENT_CHANNEL, forward);
    return () => {
      ipcRenderer.off(EVENT_CHANNEL, forward);
    };
  },
};

contextBridge.exposeInMainWorld('rein', api);
