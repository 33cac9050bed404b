/**
 * The desktop's ReinApi service, with stand-ins for the daemon: which operations go over loopback HTTP
 * (the page's own mapping), which to the router and desk in process, and how settings are split
 * between the daemon and the desktop and merged back.
 */
import { describe, expect, it, vi } from 'vitest';
import { reinOperationNames } from '../../../src-main/core/api/index.js';
import { ApprovalDesk } from '../../../src-main/core/daemon/approvalDesk.js';
import { DaemonCallError, type HttpCall } from '../../../src-main/core/desktop/loopbackClient.js';
import { createReinService, type DesktopSettingsPart } from '../../../src-main/core/desktop/reinService.js';
import { httpCalls } from '../../../src-main/core/api/daemonCalls.js';

function setup(answers: Record<string, unknown> = {}) {
  const calls: HttpCall[] = [];
  const http = vi.fn(async (call: HttpCall) => {
    calls.push(call);
    const answer = answers[`${call.method} ${call.path}`] ?? {};
    if (answer instanceof Error) throw answer;
    return answer;
  });
  const router = { submit: vi.fn(), cancel: vi.fn() };
  const desk = new ApprovalDesk();
  const desktop: DesktopSettingsPart & { saved: unknown[] } = {
    saved: [],
    read: async () => ({ platform: 'darwin', hotkey: 'Alt+Space', api_key: { present: true, source: 'keychain', hint: 'sk-ant-…abcd' } }),
    save: async (part) => void desktop.saved.push(part),
    openPermissionSettings: async () => ({ opened: true }),
    configPart: async () => ({ base_url: null, model: 'from-config', small_model: 'small', permission_mode: 'default' }),
  };
  const service = createReinService({
    router: router as never,
    desk,
    http,
    httpCallFor: (name, input) => (httpCalls as unknown as Record<string, (i: unknown) => HttpCall>)[name]!(input),
    desktop,
  });
  return { service, calls, router, desk, desktop };
}

describe('desktop ReinApi service', () => {
  it('has every operation of the contract', () => {
    expect(Object.keys(setup().service).sort()).toEqual([...reinOperationNames].sort());
  });

  it('answers agents, sessions and status with the daemon HTTP call the page would make', async () => {
    const { service, calls } = setup({ 'GET /agents/ops': { name: 'ops' } });
    await expect(service.getAgent({ name: 'ops' })).resolves.toEqual({ name: 'ops' });
    await service.searchSessions({ q: 'disk usage', agent: 'ops' });
    await service.status(undefined);
    expect(calls).toEqual([
      { method: 'GET', path: '/agents/ops' },
      { method: 'GET', path: '/sessions/search?q=disk+usage&agent=ops' },
      { method: 'GET', path: '/status' },
    ]);
  });

  it('starts a run through the router at once, as source desktop', async () => {
    const { service, router, calls } = setup();
    router.submit.mockResolvedValue({ injected: false, run: { key: 'agent:ops', agent: 'ops', sessionId: undefined } });
    await expect(service.sendMessage({ text: 'hi', agent: 'ops' })).resolves.toEqual({ injected: false, route: 'agent:ops', agent: 'ops' });
    expect(router.submit).toHaveBeenCalledWith({ text: 'hi', agent: 'ops' }, { defaultSource: 'desktop' });
    expect(calls).toEqual([]);
  });

  it('reports cancelling nothing as the daemon would', async () => {
    const { service } = setup();
    await expect(service.cancel({ agent: 'ops' })).rejects.toMatchObject({ code: 'not_running', status: 404 });
  });

  it('answers approvals on the desk, as desktop, with the desk’s conflict codes', async () => {
    const { service, desk } = setup();
    const id = 'apr_00000000000000aa';
    desk.open({ id, sessionId: 's', agent: 'default', source: 'desktop', tool: 'bash', summary: 'ls', input: {}, reason: 'r', layer: 'l', risk: 'low', riskExplanation: '' }, 'desktop');
    await expect(service.listApprovals(undefined)).resolves.toMatchObject({ approvals: [{ request_id: id }] });
    await expect(service.answerApproval({ request_id: id, decision: 'allow' })).resolves.toEqual({ ok: true, request_id: id, decision: 'allow' });
    await expect(service.answerApproval({ request_id: id, decision: 'deny' })).rejects.toBeInstanceOf(DaemonCallError);
    await expect(service.answerApproval({ request_id: id, decision: 'deny' })).rejects.toMatchObject({ code: 'approval_already_decided', status: 409 });
  });

  it('merges the desktop’s settings over the daemon’s', async () => {
    const { service } = setup({ 'GET /settings': { platform: 'linux', model: 'm', api_key: { present: false }, hotkey: null } });
    await expect(service.getSettings(undefined)).resolves.toMatchObject({
      platform: 'darwin',
      model: 'm',
      hotkey: 'Alt+Space',
      api_key: { present: true, source: 'keychain' },
    });
  });

  it('reads the daemon’s part from config.yaml when the daemon has no settings endpoint, so a key can still be entered', async () => {
    const { service, desktop } = setup({
      'GET /settings': new DaemonCallError('GET /settings: this daemon has no such endpoint', 'unsupported', 404),
    });
    await expect(service.saveSettings({ api_key: 'sk-ant-secret-123456' })).resolves.toMatchObject({
      model: 'from-config',
      permission_mode: 'default',
      api_key: { present: true, source: 'keychain' },
    });
    expect(desktop.saved).toEqual([{ api_key: 'sk-ant-secret-123456' }]);
  });

  it('passes other daemon failures on', async () => {
    const { service } = setup({ 'GET /settings': new DaemonCallError('boom', 'internal', 500) });
    await expect(service.getSettings(undefined)).rejects.toMatchObject({ code: 'internal' });
  });

  it('saves the key and the hotkey in the desktop and the rest in the daemon, never sending the key over HTTP', async () => {
    const { service, calls, desktop } = setup({ 'GET /settings': { model: 'm2' } });
    await service.saveSettings({ api_key: 'sk-ant-secret-123456', hotkey: 'Alt+R', model: 'm2' });
    expect(calls[0]).toEqual({ method: 'PUT', path: '/settings', body: { model: 'm2' } });
    expect(JSON.stringify(calls)).not.toContain('sk-ant-secret');
    expect(desktop.saved).toEqual([{ api_key: 'sk-ant-secret-123456', hotkey: 'Alt+R' }]);

    calls.length = 0;
    await service.saveSettings({ api_key: 'sk-ant-secret-123456' });
    expect(calls.map((c) => c.method)).toEqual(['GET']); // no PUT when only desktop fields change
  });
});
