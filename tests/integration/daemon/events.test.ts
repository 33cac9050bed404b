/**
 * The event bus over SSE (`GET /events`, ids and Last-Event-ID replay) and the WebSocket (events plus
 * message / cancel / approval frames with the HTTP schemas).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, text, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { eventually, http, openWs, sse, startTestDaemon, type TestDaemon } from './support.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

let fake: FakeAnthropic;
let d: TestDaemon;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  fake.fallback = () => text('bus reply');
  d = await startTestDaemon(fake);
});
afterEach(async () => {
  await d.daemon.dispose();
  await fake.close();
});

describe('GET /events', () => {
  it('carries every run’s events with ids and replays what a client missed after Last-Event-ID', async () => {
    const events = await sse(d, 'GET', '/events');
    const first = await http(d, 'POST', '/message', { body: { text: 'one', source: 'slack', channel: 'A' } });
    const end1 = await events.next((f) => f.event === 'session_end' && f.data.session_id === first.json.session_id);
    expect(end1.id).toMatch(/^[0-9a-f]+-\d+$/);
    expect(end1.data.route).toBe('slack:A');
    events.close();

    // While nobody listens, another run happens.
    const second = await http(d, 'POST', '/message', { body: { text: 'two', source: 'slack', channel: 'B' } });

    const resumed = await sse(d, 'GET', '/events', { headers: { 'last-event-id': end1.id! } });
    const replayStart = await resumed.next((f) => f.event === 'session_start');
    expect(replayStart.data.session_id).toBe(second.json.session_id);
    await resumed.next((f) => f.event === 'session_end' && f.data.session_id === second.json.session_id);
    // Nothing from before the id comes again.
    expect(resumed.frames.some((f) => f.data.session_id === first.json.session_id)).toBe(false);
    resumed.close();

    // An id from another daemon (or garbage) replays everything still kept.
    const foreign = await sse(d, 'GET', '/events', { headers: { 'last-event-id': 'zzzz-3' } });
    await foreign.next((f) => f.event === 'session_end' && f.data.session_id === second.json.session_id);
    expect(foreign.frames.some((f) => f.data.session_id === first.json.session_id)).toBe(true);
    foreign.close();
  });

  it('publishes agent changes and events from the rest of the app (heartbeats, schedules)', async () => {
    const events = await sse(d, 'GET', '/events');
    const created = await http(d, 'POST', '/agents', { body: { name: 'ops', prompt: 'You run operations.' } });
    expect(created.status).toBe(201);
    expect((await events.next((f) => f.event === 'agent_changed')).data).toMatchObject({
      agent: 'ops',
      change: 'created',
    });
    d.daemon.publish({ type: 'heartbeat_alert', at: new Date().toISOString(), agent: 'ops', text: 'disk is 95% full' });
    expect((await events.next((f) => f.event === 'heartbeat_alert')).data.text).toBe('disk is 95% full');
    events.close();
  });
});

describe('WebSocket /ws', () => {
  it('runs a message frame: acknowledges with the route, streams its events, then sends the result', async () => {
    const ws = await openWs(d);
    ws.send({ type: 'message', ref: 'm1', text: 'hello over ws', source: 'web', channel: 'tab1' });
    const ack = await ws.next((f) => f.frame === 'reply' && f.ref === 'm1');
    expect(ack).toMatchObject({ ok: true, result: { accepted: true, injected: false, route: 'web:tab1' } });
    const start = await ws.next((f) => f.frame === 'event' && f.event.type === 'session_start');
    expect(start.event.route).toBe('web:tab1');
    expect(start.id).toBeDefined();
    const result = await ws.next((f) => f.frame === 'result' && f.ref === 'm1');
    expect(result.result).toMatchObject({ text: 'bus reply', stop_reason: 'final', route: 'web:tab1' });
    ws.close();
  });

  it('answers a bad frame with a reply naming the field, and keeps the socket open', async () => {
    const ws = await openWs(d);
    ws.send({ type: 'message', ref: 'bad', text: '' });
    const reply = await ws.next((f) => f.frame === 'reply' && f.ref === 'bad');
    expect(reply).toMatchObject({ ok: false, status: 400, code: 'invalid_request' });
    expect(reply.error).toContain('text');
    ws.ws.send('not json');
    const parse = await ws.next((f) => f.frame === 'reply' && f.code === 'invalid_json');
    expect(parse.status).toBe(400);
    ws.send({ type: 'launch', ref: 'x' });
    expect(
      (await ws.next((f) => f.frame === 'reply' && f.ref === undefined && f.code === 'invalid_request')).error,
    ).toContain('type');
    ws.send({ type: 'cancel', ref: 'c1', route: 'nothing:here' });
    expect(await ws.next((f) => f.frame === 'reply' && f.ref === 'c1')).toMatchObject({ ok: false, status: 404 });
    expect(ws.closed).toBeUndefined();
    ws.close();
  });

  it('counts connected clients in /status', async () => {
    const ws = await openWs(d);
    const events = await sse(d, 'GET', '/events');
    await eventually(async () => {
      const s = (await http(d, 'GET', '/status')).json;
      return s.clients.ws === 1 && s.clients.events === 1;
    });
    ws.close();
    events.close();
    await eventually(async () => (await http(d, 'GET', '/status')).json.clients.ws === 0);
  });
});
