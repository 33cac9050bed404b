/**
 * Remote approvals: a tool call that needs a person is pushed to every client as `approval_request`,
 * answered by the first POST /approval or WebSocket frame (later answers get 409), kept pending for
 * clients that connect later, and denied when nobody answers in time. Synchronous calls use the same
 * broker: nothing is approved for them.
 */
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { eventually, http, openWs, sse, startTestDaemon, type TestDaemon } from './support.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

let fake: FakeAnthropic;
let d: TestDaemon;

afterEach(async () => {
  await d?.daemon.dispose();
  await fake?.close();
});

async function setup(config: Parameters<typeof startTestDaemon>[1] = {}) {
  fake = await startFakeAnthropic();
  d = await startTestDaemon(fake, config);
  // The model wants to write a file (basic policy: asks); then it reports.
  fake.enqueue(tools([toolCall('file_write', { path: 'note.txt', content: 'approved content' })]), text('finished'));
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

describe('remote approvals', () => {
  it('shows each of two calls in one response with its own input, on the event and in GET /approvals', async () => {
    fake = await startFakeAnthropic();
    d = await startTestDaemon(fake);
    fake.enqueue(
      tools([
        toolCall('file_write', { path: 'first.txt', content: 'one' }),
        toolCall('file_write', { path: 'second.txt', content: 'two sk-ant-abcdefghijklmnopqrstuvwx' }),
      ]),
      text('the first note is there, the second was refused'),
    );
    const events = await sse(d, 'GET', '/events');
    const run = http(d, 'POST', '/message', { body: { text: 'write two notes', source: 'slack', channel: 'C2' } });

    const first = await events.next((f) => f.event === 'approval_request', 'first approval_request');
    expect(first.data).toMatchObject({
      tool: 'file_write',
      origin: 'remote',
      source: 'slack',
      input: { path: 'first.txt', content: 'one' },
    });
    expect((await http(d, 'GET', '/approvals')).json.approvals.map((a: any) => a.input.path)).toEqual(['first.txt']);
    await http(d, 'POST', '/approval', { body: { request_id: first.data.request_id, decision: 'allow' } });

    const second = await events.next(
      (f) => f.event === 'approval_request' && f.data.request_id !== first.data.request_id,
      'second approval_request',
    );
    // Its own input, not the previous call's (which had just started when it was asked); secrets masked.
    expect(second.data.input).toEqual({ path: 'second.txt', content: 'two [REDACTED]' });
    const listed = (await http(d, 'GET', '/approvals')).json.approvals;
    expect(listed).toEqual([
      expect.objectContaining({
        request_id: second.data.request_id,
        input: second.data.input,
        route: 'slack:C2',
        session_id: second.data.session_id,
      }),
    ]);
    // The old camelCase name is still taken for one release.
    expect(
      (await http(d, 'POST', '/approval', { body: { requestId: second.data.request_id, decision: 'deny' } })).status,
    ).toBe(200);

    expect((await run).json).toMatchObject({
      text: 'the first note is there, the second was refused',
      stop_reason: 'final',
    });
    events.close();
  });

  it('denies a schedule run’s call that needs approval at once, over HTTP too: nobody is asked, no timeout is waited for', async () => {
    await setup({ config: { permissions: { approval_timeout_seconds: 3600 } } });
    const events = await sse(d, 'GET', '/events');
    const res = await http(d, 'POST', '/message', { body: { text: 'nightly: write the note', source: 'schedule' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ text: 'finished', stop_reason: 'final' });
    expect(await exists(join(d.cwd, 'note.txt'))).toBe(false);
    await events.next((f) => f.event === 'session_end', 'session_end on the bus');
    const frames = events.frames;
    expect(frames.some((f) => f.event === 'approval_request')).toBe(false);
    expect(frames.find((f) => f.event === 'session_start')!.data).toMatchObject({
      source: 'schedule',
      origin: 'unattended',
    });
    const second = fake.requests[1]!;
    expect(JSON.stringify(second.body.messages)).toContain('denied (origin): nobody is watching this schedule run');
    events.close();
  });

  it('pushes approval_request to event clients and runs the tool after POST /approval allow; a second answer gets 409', async () => {
    await setup();
    const events = await sse(d, 'GET', '/events');
    const run = await sse(d, 'POST', '/message', { body: { text: 'write the note', source: 'slack', channel: 'C1' } });

    const ask = await events.next((f) => f.event === 'approval_request', 'approval_request');
    expect(ask.data.request_id).toMatch(/^apr_[0-9a-f]{16}$/);
    expect(ask.data).toMatchObject({ tool: 'file_write', route: 'slack:C1', agent: 'default' });
    expect(['low', 'medium', 'high']).toContain(ask.data.risk);
    expect(ask.data.summary).toContain('note.txt');
    expect(ask.id).toBeDefined();

    const pending = await http(d, 'GET', '/approvals');
    expect(pending.json.approvals).toHaveLength(1);
    expect(pending.json.approvals[0]).toMatchObject({
      request_id: ask.data.request_id,
      tool: 'file_write',
      route: 'slack:C1',
    });

    const win = await http(d, 'POST', '/approval', { body: { request_id: ask.data.request_id, decision: 'allow' } });
    expect(win.status).toBe(200);
    const lose = await http(d, 'POST', '/approval', { body: { request_id: ask.data.request_id, decision: 'deny' } });
    expect(lose.status).toBe(409);
    expect(lose.json.code).toBe('approval_already_decided');

    const frames = await run.untilEnd();
    expect(frames.find((f) => f.event === 'approval_response')!.data).toMatchObject({
      decision: 'allow',
      by: 'daemon',
    });
    expect(frames.find((f) => f.event === 'tool_call_end')!.data.ok).toBe(true);
    expect(await readFile(join(d.cwd, 'note.txt'), 'utf8')).toBe('approved content');
    await events.next((f) => f.event === 'approval_response', 'approval_response on the bus');
    expect((await http(d, 'GET', '/approvals')).json.approvals).toEqual([]);
    events.close();
  });

  it('takes the answer over the WebSocket; the HTTP answer that comes second gets 409', async () => {
    await setup();
    const ws = await openWs(d);
    const run = http(d, 'POST', '/message', { body: { text: 'write the note' } }); // synchronous caller
    const ask = await ws.next((f) => f.frame === 'event' && f.event.type === 'approval_request', 'approval_request');
    const id = ask.event.request_id;

    ws.send({ type: 'approval', ref: 'r1', request_id: id, decision: 'allow' });
    const reply = await ws.next((f) => f.frame === 'reply' && f.ref === 'r1');
    expect(reply).toMatchObject({ ok: true, result: { request_id: id, decision: 'allow' } });
    const late = await http(d, 'POST', '/approval', { body: { request_id: id, decision: 'deny' } });
    expect(late.status).toBe(409);

    const result = await run;
    expect(result.json).toMatchObject({ text: 'finished', stop_reason: 'final' });
    expect(await exists(join(d.cwd, 'note.txt'))).toBe(true);
    ws.close();
  });

  it('denies when nobody answers before the timeout (a synchronous call is never auto-approved)', async () => {
    await setup({ config: { permissions: { approval_timeout_seconds: 0.3 } } });
    const res = await http(d, 'POST', '/message', { body: { text: 'write the note' } });
    expect(res.status).toBe(200);
    expect(await exists(join(d.cwd, 'note.txt'))).toBe(false);
    const toolResult = JSON.stringify(fake.requests[1]!.body.messages.at(-1));
    expect(toolResult).toContain('DENIED');
    expect(toolResult).toContain('nobody answered');
    // The question is closed: a late answer is a conflict, not a mystery.
    const ask = (await http(d, 'GET', '/approvals')).json.approvals;
    expect(ask).toEqual([]);
  });

  it('waits for a client when none is connected and re-sends pending approvals to one that connects later', async () => {
    await setup();
    const run = http(d, 'POST', '/message', { body: { text: 'write the note', source: 'telegram', channel: 'chat7' } });
    await eventually(async () => (await http(d, 'GET', '/approvals')).json.approvals.length === 1);

    // A WebSocket client that connects now gets the pending question.
    const ws = await openWs(d);
    const ask = await ws.next((f) => f.frame === 'event' && f.event.type === 'approval_request');
    expect(ask.event).toMatchObject({ tool: 'file_write', route: 'telegram:chat7' });
    ws.close();

    // So does a new SSE client (it asked for no replay).
    const first = await sse(d, 'GET', '/events');
    const re = await first.next((f) => f.event === 'approval_request');
    expect(re.id).toBeUndefined(); // re-sends never move the client's Last-Event-ID
    first.close();

    const answer = await http(d, 'POST', '/approval', { body: { request_id: ask.event.request_id, decision: 'deny' } });
    expect(answer.status).toBe(200);
    expect((await run).json.stop_reason).toBe('final');
    expect(await exists(join(d.cwd, 'note.txt'))).toBe(false);
  });

  it('"always allow" over HTTP allows the call but saves nothing: the grant waits for a person, in a shell on this machine or the app', async () => {
    await setup();
    // The first run: no desktop app attached. The grant waits for `rein changes accept` in a shell.
    const events = await sse(d, 'GET', '/events');
    const run = http(d, 'POST', '/message', { body: { text: 'write the note', source: 'slack', channel: 'C1' } });
    const asked = await events.next((f) => f.event === 'approval_request', 'approval_request');
    await http(d, 'POST', '/approval', { body: { request_id: asked.data.request_id, decision: 'always_allow' } });
    expect((await run).json).toMatchObject({ text: 'finished', stop_reason: 'final' });
    expect(await readFile(join(d.cwd, 'note.txt'), 'utf8')).toBe('approved content');
    const notice = await events.next((f) => f.event === 'notice' && /always allow/i.test(f.data.message), 'notice');
    const [first] = (await http(d, 'GET', '/changes')).json.changes;
    expect(first).toMatchObject({
      kind: 'always_allow',
      agent: 'default',
      accept_command: `REIN_HOME=${d.home} rein changes accept ${first.change_id}`,
    });
    expect(notice.data.message).toContain(
      `Nothing is changed until a person confirms it: run \`${first.accept_command}\` in a shell on this machine (change ${first.change_id}`,
    );
    expect(notice.data.message).toContain('file_write on ');
    expect(await exists(join(d.home, 'config.yaml'))).toBe(false);
    await d.daemon.service.answerChange({ change_id: first.change_id, decision: 'reject' }, 'shell');
    expect(await exists(join(d.home, 'config.yaml'))).toBe(false);

    // With the app attached, the grant is a pending change; the person applies it there.
    const desktop = d.daemon.service.attachClient('desktop');
    fake.enqueue(tools([toolCall('file_write', { path: 'note2.txt', content: 'two' })]), text('finished again'));
    const run2 = http(d, 'POST', '/message', { body: { text: 'write another', source: 'slack', channel: 'C1' } });
    const asked2 = await events.next(
      (f) => f.event === 'approval_request' && f.data.request_id !== asked.data.request_id,
      'second approval_request',
    );
    await http(d, 'POST', '/approval', { body: { request_id: asked2.data.request_id, decision: 'always_allow' } });
    expect((await run2).json).toMatchObject({ text: 'finished again' });
    const [change] = (await http(d, 'GET', '/changes')).json.changes;
    // What it adds is the one path the person saw, not the tool.
    expect(change).toMatchObject({
      kind: 'always_allow',
      agent: 'default',
      raises: [{ field: 'permissions.grants', change: expect.stringMatching(/^adds file_write on .*note2\.txt$/) }],
    });
    expect(await exists(join(d.home, 'config.yaml'))).toBe(false);
    await d.daemon.service.answerChange({ change_id: change.change_id, decision: 'apply' }, 'desktop');
    expect(await readFile(join(d.home, 'config.yaml'), 'utf8')).toMatch(
      /grants:\s*\n\s*- tool: file_write\s*\n\s*path: .*note2\.txt/,
    );
    desktop.dispose();
    events.close();
  });

  it('answers 404 for an unknown approval id and 400 for a malformed one', async () => {
    await setup();
    const unknown = await http(d, 'POST', '/approval', {
      body: { request_id: 'apr_0000000000000000', decision: 'allow' },
    });
    expect(unknown.status).toBe(404);
    const bad = await http(d, 'POST', '/approval', { body: { request_id: 'nope', decision: 'allow' } });
    expect(bad.status).toBe(400);
    expect(bad.json.field).toBe('request_id');
    const decision = await http(d, 'POST', '/approval', {
      body: { request_id: 'apr_0000000000000000', decision: 'maybe' },
    });
    expect(decision.json.field).toBe('decision');
  });
});
