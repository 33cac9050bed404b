// The launch token is read from the fragment once and removed from the address bar; the IPC client
// checks what goes in and out of the preload's bridge and reads error codes back out of messages.
import { describe, expect, it, vi } from 'vitest';
import { bridgeErrorMessage, reinOperationNames, type ReinApi } from '../../../src-main/core/api/index.js';
import { ApiError } from '../../../src-renderer/src/api/apiError.js';
import { createDesktopApi, createIpcApi } from '../../../src-renderer/src/api/ipcApi.js';
import { takeLaunchToken } from '../../../src-renderer/src/api/launchToken.js';
import { chooseApi } from '../../../src-renderer/src/api/pickApi.js';

function fakeLocation(href: string) {
  const url = new URL(href);
  const history = { state: { keep: 1 }, replaceState: vi.fn() };
  return { location: { href: url.href, hash: url.hash, origin: url.origin }, history };
}

describe('launch token', () => {
  it('takes the token from the fragment and rewrites the address without it', () => {
    const { location, history } = fakeLocation('http://127.0.0.1:7533/#token=abc123');
    expect(takeLaunchToken(location, history)).toEqual({ token: 'abc123' });
    expect(history.replaceState).toHaveBeenCalledWith({ keep: 1 }, '', 'http://127.0.0.1:7533/');
  });

  it('keeps other fragment parameters and leaves an address without a token alone', () => {
    const a = fakeLocation('http://127.0.0.1:7533/?x=1#view=chat&token=t0k');
    expect(takeLaunchToken(a.location, a.history)).toEqual({ token: 't0k' });
    expect(a.history.replaceState).toHaveBeenCalledWith({ keep: 1 }, '', 'http://127.0.0.1:7533/?x=1#view=chat');
    const b = fakeLocation('http://127.0.0.1:7533/#view=chat');
    expect(takeLaunchToken(b.location, b.history)).toEqual({});
    expect(b.history.replaceState).not.toHaveBeenCalled();
  });

  it('picks the preload bridge when there is one, else the daemon with the token, else asks for a token', () => {
    const bridge = { subscribe: () => () => undefined } as unknown as ReinApi;
    const withBridge = { rein: bridge, ...fakeLocation('file:///app/index.html') };
    expect(chooseApi(withBridge as never).kind).toBe('ipc');
    const browser = fakeLocation('http://127.0.0.1:7533/#token=abc');
    expect(chooseApi(browser as never).kind).toBe('daemon');
    expect(chooseApi(fakeLocation('http://127.0.0.1:7533/') as never).kind).toBe('needs-token');
  });
});

describe('IPC client', () => {
  function bridgeWith(methods: Partial<Record<string, (input?: unknown) => Promise<unknown>>>): ReinApi {
    return { subscribe: () => () => undefined, ...methods } as unknown as ReinApi;
  }

  it('has one method per operation plus subscribe', () => {
    const api = createIpcApi(bridgeWith({}));
    expect(Object.keys(api).sort()).toEqual([...reinOperationNames, 'subscribe'].sort());
  });

  it('refuses bad input before calling the bridge, naming the field', async () => {
    const getAgent = vi.fn();
    const api = createIpcApi(bridgeWith({ getAgent }));
    const err = await api.getAgent({ name: 'Not A Name' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'invalid_input', field: 'name' });
    expect(getAgent).not.toHaveBeenCalled();
  });

  it('reads code and field back out of the bridge error message', async () => {
    const saveAgent = vi.fn(async () => {
      throw new Error(
        `Error invoking remote method 'rein:saveAgent': Error: ${bridgeErrorMessage({ error: 'config.max_iterations: Too big', code: 'invalid_request', field: 'config.max_iterations' })}`,
      );
    });
    const err = await createIpcApi(bridgeWith({ saveAgent }))
      .saveAgent({ name: 'ops', config: { max_iterations: 5000 } })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'invalid_request',
      field: 'config.max_iterations',
      message: 'config.max_iterations: Too big',
    });
  });

  it('reports an answer that does not fit the contract as bad_reply, and a missing method as unsupported', async () => {
    const api = createIpcApi(bridgeWith({ listAgents: async () => ({ agents: [{ nome: 'x' }] }) }));
    await expect(api.listAgents()).rejects.toMatchObject({ code: 'bad_reply' });
    await expect(api.getSettings()).rejects.toMatchObject({ code: 'unsupported' });
  });
});

describe('desktop bridge', () => {
  it('checks input, decodes errors and passes navigation requests through', async () => {
    const updateDesktopSettings = vi.fn(async () => {
      throw new Error(
        bridgeErrorMessage({ error: 'hotkey: taken by another app', code: 'invalid_input', field: 'hotkey' }),
      );
    });
    let navigate: ((v: 'approvals') => void) | undefined;
    const bridge = {
      updateDesktopSettings,
      onNavigate: (l: (v: 'approvals') => void) => ((navigate = l), () => undefined),
    };
    const desktop = createDesktopApi(bridge as never);
    await expect(desktop.updateDesktopSettings({} as never)).rejects.toMatchObject({ code: 'invalid_input' });
    expect(updateDesktopSettings).not.toHaveBeenCalled();
    await expect(desktop.updateDesktopSettings({ notifications: false })).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'hotkey',
    });
    const seen: string[] = [];
    desktop.onNavigate((v) => seen.push(v));
    navigate!('approvals');
    expect(seen).toEqual(['approvals']);
  });
});
