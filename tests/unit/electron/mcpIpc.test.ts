/**
 * The MCP operations at the IPC boundary: each payload checked against its contract before the service
 * hears of it, refusals naming the field; and the page's HTTP calls for the same operations.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('electron', () => import('../../support/electronMock.js'));

import type { WebContents } from 'electron';
import { FakeFrame, FakeWebContents, ipcMain, resetElectronMock } from '../../support/electronMock.js';
import { isSamePage, ourTopFrame } from '../../../src-main/electron/ipc.js';
import { registerReinHandlers } from '../../../src-main/electron/reinHandlers.js';
import { reinOperationNames } from '../../../src-main/core/api/index.js';
import { httpCalls } from '../../../src-main/core/api/daemonCalls.js';

const PAGE = 'file:///Applications/Rein.app/Contents/Resources/app.asar/out/renderer/index.html';

function setup() {
  const contents = new FakeWebContents();
  contents.mainFrame = new FakeFrame(PAGE);
  const trusted = ourTopFrame(() => new Set([contents as unknown as WebContents]), isSamePage(PAGE));
  const calls: { name: string; input: unknown }[] = [];
  const service = Object.fromEntries(
    reinOperationNames.map((name) => [name, async (input: unknown) => (calls.push({ name, input }), { from: name })]),
  );
  registerReinHandlers(trusted, service as never);
  const invoke = (channel: string, payload: unknown) =>
    ipcMain.invokeAs(channel, { sender: contents, senderFrame: contents.mainFrame }, payload) as Promise<any>;
  return { calls, invoke };
}

beforeEach(() => resetElectronMock());

describe('MCP operations over IPC', () => {
  it('passes valid payloads to the service as they are', async () => {
    const { calls, invoke } = setup();
    await expect(invoke('rein:mcpServers', undefined)).resolves.toEqual({ ok: true, value: { from: 'mcpServers' } });
    await expect(invoke('rein:mcpServers', { agent: 'ops' })).resolves.toMatchObject({ ok: true });
    await expect(invoke('rein:mcpLogin', { agent: 'ops', name: 'wiki' })).resolves.toMatchObject({ ok: true });
    await expect(invoke('rein:mcpReconnect', { name: 'my.server-1' })).resolves.toMatchObject({ ok: true });
    expect(calls).toEqual([
      { name: 'mcpServers', input: undefined },
      { name: 'mcpServers', input: { agent: 'ops' } },
      { name: 'mcpLogin', input: { agent: 'ops', name: 'wiki' } },
      { name: 'mcpReconnect', input: { name: 'my.server-1' } },
    ]);
  });

  it('refuses invalid payloads naming the field, without calling the service', async () => {
    const { calls, invoke } = setup();
    await expect(invoke('rein:mcpLogin', { agent: 'Not An Agent', name: 'wiki' })).resolves.toMatchObject({
      ok: false,
      code: 'invalid_input',
      field: 'agent',
    });
    await expect(invoke('rein:mcpLogin', { name: '' })).resolves.toMatchObject({
      ok: false,
      code: 'invalid_input',
      field: 'name',
    });
    await expect(invoke('rein:mcpLogin', { name: 'a\nb' })).resolves.toMatchObject({ ok: false, field: 'name' });
    await expect(invoke('rein:mcpLogin', { name: 'x'.repeat(201) })).resolves.toMatchObject({
      ok: false,
      field: 'name',
    });
    await expect(invoke('rein:mcpLogin', {})).resolves.toMatchObject({ ok: false, field: 'name' });
    await expect(invoke('rein:mcpReconnect', { name: 'wiki', open: 'file:///etc/passwd' })).resolves.toMatchObject({
      ok: false,
      code: 'invalid_input',
    });
    await expect(invoke('rein:mcpServers', { agent: 'ops', all: true })).resolves.toMatchObject({
      ok: false,
      code: 'invalid_input',
    });
    await expect(invoke('rein:mcpServers', 'ops')).resolves.toMatchObject({ ok: false, code: 'invalid_input' });
    expect(calls).toEqual([]);
  });

  it('maps to the daemon’s HTTP calls for the web page', () => {
    expect(httpCalls.mcpServers(undefined)).toEqual({ method: 'GET', path: '/mcp/servers' });
    expect(httpCalls.mcpServers({ agent: 'ops' })).toEqual({ method: 'GET', path: '/mcp/servers?agent=ops' });
    expect(httpCalls.mcpLogin({ name: 'my wiki/1' })).toEqual({
      method: 'POST',
      path: '/mcp/servers/my%20wiki%2F1/login',
      body: {},
    });
    expect(httpCalls.mcpReconnect({ agent: 'ops', name: 'wiki' })).toEqual({
      method: 'POST',
      path: '/mcp/servers/wiki/reconnect',
      body: { agent: 'ops' },
    });
  });
});
