/** The daemon's small parts on their own: bus replay, approval desk, route keys, wire schemas. */
import { describe, expect, it } from 'vitest';
import { AGENT_NAME_RE } from '../../../src-main/core/config/paths.js';
import { ApprovalDesk } from '../../../src-main/core/service/approvalDesk.js';
import { isLoopbackHost } from '../../../src-main/core/daemon/daemon.js';
import { EventBus } from '../../../src-main/core/service/eventBus.js';
import { AGENT_NAME_PATTERN, MessageRequest, SESSION_ID_PATTERN } from '../../../src-main/core/api/protocol.js';
import { routeFor, sessionChannel } from '../../../src-main/core/service/routing.js';
import { newApprovalId } from '../../../src-main/core/permissions/approvalBroker.js';
import type { ApprovalRequest } from '../../../src-main/core/permissions/types.js';
import type { RunRequest } from '../../../src-main/core/runtime/runRequest.js';
import { newSessionId } from '../../../src-main/core/sessions/id.js';

const at = '2026-01-01T00:00:00.000Z';
const queued = (route: string) => ({ type: 'run_queued' as const, at, route, agent: 'default', position: 1 });

describe('EventBus', () => {
  it('gives ids in order and replays only what came after a known id', () => {
    const bus = new EventBus(10);
    const ids = ['a', 'b', 'c', 'd'].map((r) => bus.publish(queued(r)).id);
    expect(bus.since(ids[1]).map((e) => e.event.route)).toEqual(['c', 'd']);
    expect(bus.since(ids[3])).toEqual([]);
    expect(bus.since(undefined)).toEqual([]);
  });

  it('replays everything it kept for an id it does not know or has already dropped', () => {
    const bus = new EventBus(3);
    const first = bus.publish(queued('0')).id;
    for (let i = 1; i <= 5; i++) bus.publish(queued(String(i)));
    expect(bus.since(first).map((e) => e.event.route)).toEqual(['3', '4', '5']);
    expect(bus.since('other-boot-2').map((e) => e.event.route)).toEqual(['3', '4', '5']);
    expect(bus.since('garbage').length).toBe(3);
  });

  it('delivers to every subscriber even when one throws', () => {
    const bus = new EventBus();
    const seen: string[] = [];
    bus.subscribe(() => {
      throw new Error('broken client');
    });
    const off = bus.subscribe((e) => seen.push(e.json));
    bus.publish(queued('x'));
    off();
    bus.publish(queued('y'));
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]!)).toMatchObject({ route: 'x' });
  });
});

function request(request_id = newApprovalId(), route = 'slack:C1'): ApprovalRequest {
  return {
    request_id,
    session_id: 's',
    agent: 'default',
    route,
    source: 'http',
    origin: 'remote',
    tool: 'bash',
    summary: 'bash: ls',
    input: { command: 'ls' },
    reason: 'r',
    layer: 'tool',
    risk: 'medium',
    risk_explanation: 'e',
    asked_at: '2026-01-01T00:00:00.000Z',
  };
}

const event = (req: ApprovalRequest) => ({ type: 'approval_request' as const, seq: 1, at: req.asked_at, ...req });

describe('ApprovalDesk', () => {
  it('lets the first answer win and calls every later one a conflict', async () => {
    const desk = new ApprovalDesk();
    const req = request();
    const asked = desk.face().ask(req, new AbortController().signal);
    expect(desk.list()).toEqual([req]);
    expect(desk.answer(req.request_id, 'allow', 'daemon')).toEqual(req);
    expect(() => desk.answer(req.request_id, 'deny', 'daemon')).toThrow(
      expect.objectContaining({ code: 'approval_already_decided' }),
    );
    expect(await asked).toEqual({ decision: 'allow', by: 'daemon' });
    expect(desk.list()).toEqual([]);
    expect(() => desk.answer(newApprovalId(), 'allow', 'daemon')).toThrow(
      expect.objectContaining({ code: 'approval_not_found' }),
    );
  });

  it('keeps an answer that arrives before the broker asks', async () => {
    const desk = new ApprovalDesk();
    const req = request();
    desk.open(event(req));
    desk.answer(req.request_id, 'always_allow', 'daemon');
    expect(await desk.face().ask(req, new AbortController().signal)).toEqual({
      decision: 'always_allow',
      by: 'daemon',
    });
  });

  it('lists a question as its event carried it, input included, and re-sends that event', () => {
    const desk = new ApprovalDesk();
    const req = request(undefined, 'agent:ops');
    desk.open(event(req));
    expect(desk.list()).toEqual([req]);
    expect(desk.pendingEvents()).toEqual([event(req)]);
  });

  it('closes a question the broker withdrew (timeout): a late answer is a conflict', async () => {
    const desk = new ApprovalDesk();
    const req = request();
    const ac = new AbortController();
    const asked = desk.face().ask(req, ac.signal);
    ac.abort();
    expect((await asked).decision).toBe('deny');
    expect(() => desk.answer(req.request_id, 'allow', 'daemon')).toThrow(
      expect.objectContaining({ code: 'approval_already_decided' }),
    );
  });

  it('denies everything pending at shutdown', async () => {
    const desk = new ApprovalDesk();
    const asked = [request(), request()].map((r) => desk.face().ask(r, new AbortController().signal));
    desk.denyAll('shutdown');
    expect(await Promise.all(asked)).toEqual([
      { decision: 'deny', by: 'shutdown' },
      { decision: 'deny', by: 'shutdown' },
    ]);
  });
});

describe('routeFor', () => {
  const req = (over: Partial<RunRequest>): RunRequest => ({
    agent: 'default',
    text: 'hi',
    source: 'http',
    origin: 'remote',
    entry: 'http',
    session: { kind: 'route' },
    ...over,
  });
  it.each([
    [{ agent: 'ops', source: 'slack', channel: 'C1' }, 'agent:ops'],
    [{ agent: 'default', source: 'slack', channel: 'C1' }, 'slack:C1'],
    [{ source: 'slack', channel: 'C1', thread: '17.5' }, 'slack:C1:17.5'],
    [{ channel: 'tab' }, 'http:tab'],
    [{ session: { kind: 'session', id: '2026-01-01-0123456789ab' } }, 'session:2026-01-01-0123456789ab'],
  ] as Array<[Partial<RunRequest>, string]>)('%j → %s', (over, key) => {
    expect(routeFor(req(over)).key).toBe(key);
  });

  it('gives a message with nothing to route by a one-off lane of its own', () => {
    const a = routeFor(req({}));
    const b = routeFor(req({}));
    expect(a.ephemeral).toBe(true);
    expect(a.key).toMatch(/^once:/);
    expect(a.key).not.toBe(b.key);
  });

  it('gives an ephemeral request a one-off lane even for a named agent', () => {
    const r = routeFor(req({ agent: 'ops', session: { kind: 'ephemeral' } }));
    expect(r).toMatchObject({ ephemeral: true, agent: 'ops' });
    expect(r.key).toMatch(/^once:/);
  });

  it('records the thread with the channel', () => {
    expect(sessionChannel({ channel: 'C1', thread: 'T' })).toBe('C1:T');
    expect(sessionChannel({})).toBeUndefined();
  });
});

describe('protocol', () => {
  it('uses the same agent-name and session-id rules as the core', () => {
    for (const name of ['ops', 'a-b_c', 'default', 'Ops', '-x', '', 'x'.repeat(65)]) {
      expect(AGENT_NAME_PATTERN.test(name), name).toBe(AGENT_NAME_RE.test(name));
    }
    expect(SESSION_ID_PATTERN.test(newSessionId())).toBe(true);
  });

  it('refuses session_id with new_session and a thread without a channel', () => {
    const both = MessageRequest.safeParse({ text: 'x', session_id: newSessionId(), new_session: true });
    expect(both.success).toBe(false);
    expect(both.error?.issues[0]?.path).toEqual(['new_session']);
    const thread = MessageRequest.safeParse({ text: 'x', thread_id: 'T' });
    expect(thread.error?.issues[0]?.path).toEqual(['thread_id']);
    expect(MessageRequest.safeParse({ text: 'x', channel: 'a\nb' }).success).toBe(false);
  });
});

describe('isLoopbackHost', () => {
  it('tells loopback binds (no warning) from ones other machines can reach', () => {
    for (const h of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.0.0.2']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '192.168.1.5', 'my-mac.local']) expect(isLoopbackHost(h), h).toBe(false);
  });
});
