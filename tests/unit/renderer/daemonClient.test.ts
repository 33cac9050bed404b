// The page's daemon client against a real daemon on loopback (driving the real runtime and the fake
// Messages API): every HTTP operation, messages and events over the real WebSocket with the token in
// the subprotocol, approvals, and the refusal of a wrong token.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ApiEvent } from '../../../src-main/core/api/index.js';
import { ApiError, fieldProblems, isUnsupported } from '../../../src-renderer/src/api/apiError.js';
import { createDaemonApi, type DaemonApi } from '../../../src-renderer/src/api/daemonApi.js';
import type { ConnectionState, SocketLike } from '../../../src-renderer/src/api/eventSocket.js';
import { chatReducer, emptyChat } from '../../../src-renderer/src/state/chat.js';
import { chatMessage, chatRoute } from '../../../src-renderer/src/state/routes.js';
import { sessionItems } from '../../../src-renderer/src/state/transcript.js';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { eventually, startTestDaemon, type TestDaemon } from '../../integration/daemon/support.js';

let fake: FakeAnthropic;
let d: TestDaemon;
let api: DaemonApi;
let events: ApiEvent[];
let states: ConnectionState[];

const openSocket = (url: string, protocols: string[]) => new WebSocket(url, protocols) as unknown as SocketLike;

function client(token: string): DaemonApi {
  return createDaemonApi({ baseUrl: `http://127.0.0.1:${d.port}`, token, openSocket, retryDelayMs: () => 20 });
}

beforeEach(async () => {
  fake = await startFakeAnthropic();
  d = await startTestDaemon(fake);
  api = client(d.token);
  events = [];
  states = [];
  api.subscribe((e) => events.push(e));
  api.onConnection((s) => states.push(s));
  await eventually(() => states.includes('open'));
});

afterEach(async () => {
  api?.dispose();
  await d?.daemon.dispose();
  await fake?.close();
});

const until = <T extends ApiEvent['type']>(
  type: T,
  pred: (e: Extract<ApiEvent, { type: T }>) => boolean = () => true,
) =>
  eventually(() =>
    events.find(
      (e): e is Extract<ApiEvent, { type: T }> => e.type === type && pred(e as Extract<ApiEvent, { type: T }>),
    ),
  );

describe('daemon client', () => {
  it('creates, reads, edits and deletes an agent; an invalid config comes back as field problems and changes nothing', async () => {
    expect((await api.status()).version).toBeTruthy();
    const created = await api.createAgent({
      name: 'ops',
      prompt: 'You run ops.',
      commands: { hi: 'Say hi to $ARGUMENTS' },
    });
    expect(created).toMatchObject({
      name: 'ops',
      prompt: 'You run ops.\n',
      commands: { hi: 'Say hi to $ARGUMENTS\n' },
      memory: null,
    });
    expect((await api.listAgents()).agents.map((a) => a.name)).toEqual(['ops']);

    const saved = await api.saveAgent({ name: 'ops', config: { max_iterations: 7 }, memory: 'likes tea' });
    expect(saved.config).toEqual({ max_iterations: 7 });

    const err = await api
      .saveAgent({ name: 'ops', config: { max_iterations: 7, heartbeat: { every: '10s' } } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(400);
    expect(Object.keys(fieldProblems((err as ApiError).message, 'config'))).toEqual(['heartbeat.every']);
    expect((await api.getAgent({ name: 'ops' })).config).toEqual({ max_iterations: 7 });

    await api.deleteAgent({ name: 'ops' });
    await expect(api.getAgent({ name: 'ops' })).rejects.toMatchObject({ status: 404, code: 'agent_not_found' });
    await until('agent_changed', (e) => e.change === 'deleted');
  });

  it('sends a message over the WebSocket and gets the run as events on its route', async () => {
    fake.enqueue(tools([toolCall('glob', { pattern: '*.none' })], 'Looking.'), text('Nothing there.'));
    await api.createAgent({ name: 'ops', prompt: 'You run ops.' });
    const sent = await api.sendMessage(chatMessage('ops', 'find files', undefined));
    expect(sent).toMatchObject({ injected: false, route: 'agent:ops' });
    const end = await until('session_end');
    expect(end).toMatchObject({ route: chatRoute('ops'), stop_reason: 'final', text: 'Nothing there.' });

    let chat = emptyChat('ops', chatRoute('ops'));
    for (const event of events) chat = chatReducer(chat, { type: 'event', event });
    expect(chat.items.map((i) => i.kind)).toEqual(['assistant', 'tool', 'assistant']);
    expect(chat.items[1]).toMatchObject({ tool: 'glob', status: 'ok' });

    const { sessions } = await api.listSessions({ agent: 'ops', source: 'chat' });
    expect(sessions).toHaveLength(1);
    const session = await api.getSession({ id: sessions[0]!.id, agent: 'ops' });
    expect(sessionItems(session)[0]).toMatchObject({ kind: 'user', text: 'find files' });
    const { results } = await api.searchSessions({ q: 'Nothing', agent: 'ops' });
    expect(results[0]?.snippet).toContain('>>>Nothing<<<');
  });

  it('answers an approval; the second answer is refused as already decided', async () => {
    fake.enqueue(tools([toolCall('file_write', { path: 'note.txt', content: 'x' })]), text('written'));
    await api.sendMessage(chatMessage('default', 'write it', undefined));
    const ask = await until('approval_request');
    expect(ask.route).toBe('chat:desktop');
    expect((await api.listApprovals()).approvals.map((a) => a.request_id)).toEqual([ask.request_id]);
    await api.answerApproval({ request_id: ask.request_id, decision: 'allow' });
    await expect(api.answerApproval({ request_id: ask.request_id, decision: 'deny' })).rejects.toMatchObject({
      code: 'approval_already_decided',
      status: 409,
    });
    expect(await until('session_end')).toMatchObject({ text: 'written' });
  });

  it('cancels the run on a route', async () => {
    fake.enqueue({ kind: 'stall' });
    await api.sendMessage(chatMessage('default', 'take your time', undefined));
    await until('session_start');
    expect(await api.cancel({ route: chatRoute('default') })).toMatchObject({ cancelled: true });
    expect(await until('session_end')).toMatchObject({ stop_reason: 'cancelled' });
  });

  it('says unsupported for settings while the daemon has no /settings, and for desktop-only calls', async () => {
    const settings = await api.getSettings().then(
      (s) => s,
      (e: unknown) => e,
    );
    if (settings instanceof Error) expect(isUnsupported(settings)).toBe(true);
    else expect(settings).toHaveProperty('platform');
    await expect(api.openPermissionSettings({ permission: 'accessibility' })).rejects.toMatchObject({
      code: 'unsupported',
    });
  });

  it('refuses a wrong token: calls fail with 401 and the connection stops as unauthorized', async () => {
    const wrong = client('not-the-token');
    const seen: ConnectionState[] = [];
    wrong.onConnection((s) => seen.push(s));
    wrong.subscribe(() => undefined);
    await expect(wrong.status()).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    await eventually(() => seen.includes('unauthorized'));
    // Never accepted: a wrong token, not a rotated one (the page tells the two apart).
    expect(seen).not.toContain('rotated');
    wrong.dispose();
  });

  it('a token the daemon took and then replaced (rein daemon rotate-token) ends as rotated, not as wrong', async () => {
    const res = await fetch(`http://127.0.0.1:${d.port}/token/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.token}` },
    });
    expect(res.status).toBe(200);
    await eventually(() => states.includes('rotated'));
    expect(states).not.toContain('unauthorized');
    await expect(api.sendMessage(chatMessage('default', 'hi', undefined))).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringContaining('no longer accepts this token'),
    });
  });
});
