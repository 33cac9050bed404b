/**
 * The desktop window's ReinApi: every operation answered by the service in this process, with the
 * desktop's own part of the settings laid over it. No call opens a socket — no loopback HTTP, no token.
 */
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BusEvent } from '../../../src-main/core/api/events.js';
import { reinOperationNames } from '../../../src-main/core/api/index.js';
import { GlobalConfig } from '../../../src-main/core/config/schema.js';
import { createDesktopReinApi, type DesktopSettingsPart } from '../../../src-main/core/desktop/desktopApi.js';
import { createRuntime, type RuntimeOptions } from '../../../src-main/core/runtime/runtime.js';
import { ReinService } from '../../../src-main/core/service/reinService.js';
import { scriptedLlm } from '../memory/fakeLlm.js';

let service: ReinService;
let home: string;
let connect: ReturnType<typeof vi.spyOn>;
let fetchSpy: ReturnType<typeof vi.spyOn>;

async function setup(...replies: string[]) {
  const root = await mkdtemp(join(tmpdir(), 'rein-desktop-api-'));
  home = join(root, 'home');
  await mkdir(home, { recursive: true });
  const llm = scriptedLlm(...replies);
  service = await ReinService.create({
    home,
    cwd: root,
    env: {},
    config: GlobalConfig.parse({}),
    version: 'test',
    // The model is in process too, so a socket could only come from the service itself.
    createRuntime: (o: RuntimeOptions) => createRuntime({ ...o, llm }),
  });
  const desktop: DesktopSettingsPart & { saved: unknown[] } = {
    saved: [],
    read: async () => ({
      platform: 'darwin',
      hotkey: 'Alt+Space',
      api_key: { present: true, source: 'keychain', hint: 'sk-ant-…abcd' },
    }),
    save: async (part) => void desktop.saved.push(part),
    openPermissionSettings: async () => ({ opened: true }),
  };
  return { api: createDesktopReinApi(service, desktop), desktop };
}

function eventsUntilEnd(): Promise<BusEvent[]> {
  const seen: BusEvent[] = [];
  return new Promise((resolve) => {
    const sub = service.subscribe((e) => {
      seen.push(e.event);
      if (e.event.type === 'session_end') {
        sub.dispose();
        resolve(seen);
      }
    });
  });
}

beforeEach(() => {
  connect = vi.spyOn(net.Socket.prototype, 'connect');
  fetchSpy = vi.spyOn(globalThis, 'fetch');
});

afterEach(async () => {
  // Nothing the desktop's calls did went through a socket.
  expect(connect).not.toHaveBeenCalled();
  expect(fetchSpy).not.toHaveBeenCalled();
  vi.restoreAllMocks();
  await service.dispose();
});

describe('desktop ReinApi, in process', () => {
  it('has every operation of the contract', async () => {
    const { api } = await setup();
    expect(Object.keys(api).sort()).toEqual([...reinOperationNames].sort());
  });

  it('creates, reads, lists and deletes agents through the service', async () => {
    const { api } = await setup();
    await expect(api.createAgent({ name: 'ops', prompt: 'You run ops.' })).resolves.toMatchObject({
      name: 'ops',
      prompt: 'You run ops.\n',
    });
    await expect(api.listAgents(undefined)).resolves.toMatchObject({ agents: [{ name: 'ops' }] });
    await expect(api.getAgent({ name: 'ops' })).resolves.toMatchObject({ name: 'ops' });
    await expect(api.switchAgent({ name: 'ops' })).resolves.toMatchObject({ active_agent: 'ops' });
    await expect(api.status(undefined)).resolves.toMatchObject({ active_agent: 'ops', agents: ['default', 'ops'] });
    await expect(api.deleteAgent({ name: 'ops' })).resolves.toMatchObject({ deleted: true, name: 'ops' });
    await expect(api.getAgent({ name: 'ops' })).rejects.toMatchObject({ code: 'agent_not_found' });
  });

  it('runs a message from the window as an attended run of source desktop, and finds it in the sessions', async () => {
    const { api } = await setup('hello from the model');
    const events = eventsUntilEnd();
    const sent = await api.sendMessage({ text: 'hi', agent: 'default' });
    expect(sent).toMatchObject({ injected: false, agent: 'default' });
    const seen = await events;
    expect(seen[0]).toMatchObject({ type: 'session_start', source: 'desktop', origin: 'attended' });
    expect(seen.at(-1)).toMatchObject({ type: 'session_end', stop_reason: 'final', text: 'hello from the model' });
    const { sessions } = await api.listSessions({});
    expect(sessions).toHaveLength(1);
    await expect(api.getSession({ id: sessions[0]!.id })).resolves.toMatchObject({ source: 'desktop' });
  });

  it('reports cancelling nothing and answering an unknown approval with the service’s codes', async () => {
    const { api } = await setup();
    await expect(api.cancel({ agent: 'ops' })).rejects.toMatchObject({ code: 'not_running' });
    await expect(api.answerApproval({ request_id: 'apr_00000000000000aa', decision: 'allow' })).rejects.toMatchObject({
      code: 'approval_not_found',
    });
    await expect(api.listApprovals(undefined)).resolves.toEqual({ approvals: [] });
  });

  it('answers an approval on the desk as the desktop', async () => {
    const { api } = await setup();
    const request = {
      request_id: 'apr_00000000000000ab',
      session_id: 's',
      agent: 'default',
      route: 'desktop',
      source: 'desktop',
      origin: 'attended' as const,
      tool: 'bash',
      input: { command: 'touch a' },
      summary: '$ touch a',
      reason: 'r',
      layer: 'tool',
      risk: 'low' as const,
      risk_explanation: '',
      asked_at: '2026-01-01T00:00:00.000Z',
    };
    const asked = service.desk.face().ask(request, new AbortController().signal);
    await expect(api.listApprovals(undefined)).resolves.toEqual({ approvals: [request] });
    await expect(api.answerApproval({ request_id: request.request_id, decision: 'allow' })).resolves.toEqual({
      ok: true,
      request_id: request.request_id,
      decision: 'allow',
    });
    await expect(asked).resolves.toEqual({ decision: 'allow', by: 'desktop' });
    await expect(api.answerApproval({ request_id: request.request_id, decision: 'deny' })).rejects.toMatchObject({
      code: 'approval_already_decided',
    });
  });

  it('merges the desktop’s settings over the service’s', async () => {
    const { api } = await setup();
    await expect(api.getSettings(undefined)).resolves.toMatchObject({
      platform: 'darwin',
      model: GlobalConfig.parse({}).model,
      hotkey: 'Alt+Space',
      api_key: { present: true, source: 'keychain' },
    });
  });

  it('keeps the key and the hotkey in the desktop and saves the rest in config.yaml, never handing the key to the service', async () => {
    const { api, desktop } = await setup();
    const saved = vi.spyOn(service, 'saveSettings');
    await api.saveSettings({ api_key: 'sk-ant-secret-123456', hotkey: 'Alt+R', model: 'claude-x' });
    expect(desktop.saved).toEqual([{ api_key: 'sk-ant-secret-123456', hotkey: 'Alt+R' }]);
    // A person at the window: applied at once, never left for confirmation.
    expect(saved).toHaveBeenCalledWith({ model: 'claude-x' }, 'person');
    expect(await readFile(join(home, 'config.yaml'), 'utf8')).toContain('model: claude-x');
    expect(service.config.model).toBe('claude-x');

    saved.mockClear();
    await api.saveSettings({ api_key: 'sk-ant-secret-123456' });
    expect(saved).not.toHaveBeenCalled(); // only desktop fields changed
  });

  it('applies a change that raises permissions at once (the window is a person); the same change over the API waits for it', async () => {
    const { api } = await setup();
    const created = await api.createAgent({
      name: 'ops',
      prompt: 'Run ops.',
      config: { mode: 'bypassPermissions', auto_approve: true },
    });
    expect(created.config).toMatchObject({ mode: 'bypassPermissions', auto_approve: true });
    await api.saveSettings({ permission_mode: 'acceptEdits' });
    expect(service.config.permissions.mode).toBe('acceptEdits');

    const window = service.attachClient('desktop');
    const pending = await service.saveAgent(
      { name: 'ops', config: { mode: 'bypassPermissions', permissions: { allowed_commands: ['*'] } } },
      'remote',
    );
    expect(pending).toMatchObject({
      pending: true,
      kind: 'save_agent',
      agent: 'ops',
      raises: [{ field: 'permissions.allowed_commands', change: 'adds "*"' }],
    });
    expect((await api.listChanges(undefined)).changes.map((c) => c.agent)).toEqual(['ops']);
    expect((await api.getAgent({ name: 'ops' })).config).toEqual({ mode: 'bypassPermissions', auto_approve: true });
    window.dispose();
  });
});
