/**
 * POST /message through real HTTP against an in-process daemon running the real runtime and the fake
 * Messages API: streaming and synchronous runs, injection into a busy route, concurrent routes, the
 * queue beyond the concurrency limit, and route → session continuity.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MessageRequest } from '../../../src-main/core/api/protocol.js';
import { runRequestFromMessage } from '../../../src-main/core/runtime/runRequest.js';
import { ReinError } from '../../../src-main/core/errors.js';
import { SessionStore } from '../../../src-main/core/sessions/store.js';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { eventually, gate, http, sse, startTestDaemon, type TestDaemon } from './support.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

let fake: FakeAnthropic;
let d: TestDaemon;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  d = await startTestDaemon(fake);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await d.daemon.dispose();
  await fake.close();
});

describe('POST /message', () => {
  it('streams the run as SSE in the event vocabulary and ends with a result frame', async () => {
    fake.enqueue(text('Hello from the fake model'));
    const stream = await sse(d, 'POST', '/message', { body: { text: 'hi there' } });
    const frames = await stream.untilEnd();
    const types = frames.map((f) => f.event);
    expect(types[0]).toBe('session_start');
    expect(types).toContain('text_delta');
    expect(types).toContain('usage');
    expect(types.at(-2)).toBe('session_end');
    expect(types.at(-1)).toBe('result');
    const end = frames.find((f) => f.event === 'session_end')!.data;
    expect(end).toMatchObject({ stop_reason: 'final', text: 'Hello from the fake model' });
    const result = frames.at(-1)!.data;
    expect(result).toMatchObject({
      injected: false,
      text: 'Hello from the fake model',
      stop_reason: 'final',
      agent: 'default',
    });
    expect(frames.every((f) => f.event === 'result' || f.data.route === result.route)).toBe(true);
  });

  it('numbers the events of a run from 0 with one session_start, though the daemon announces it before building the run', async () => {
    fake.enqueue(tools([toolCall('think', { thought: 'first' })]), text('done'));
    const stream = await sse(d, 'POST', '/message', { body: { text: 'count with me' } });
    const frames = (await stream.untilEnd()).filter((f) => f.event !== 'result');
    expect(frames.filter((f) => f.event === 'session_start')).toHaveLength(1);
    expect(frames[0]).toMatchObject({
      event: 'session_start',
      data: { seq: 0, agent: 'default', resumed: false, cwd: d.cwd },
    });
    expect(frames.map((f) => f.data.seq)).toEqual(frames.map((_, i) => i));
    const ids = new Set(frames.map((f) => f.data.session_id));
    expect(ids.size).toBe(1);
  });

  it('refuses a message the model cannot be reached for before announcing a session, and writes none', async () => {
    const noKey = await startTestDaemon(fake, { daemon: { env: {} } });
    try {
      const stream = await sse(noKey, 'POST', '/message', { body: { text: 'hello?' } });
      const frames = await stream.untilEnd();
      expect(frames.map((f) => f.event)).toEqual(['error']);
      expect(frames[0]!.data).toMatchObject({ code: 'no_api_key' });
      const sync = await http(noKey, 'POST', '/message', { body: { text: 'hello?' } });
      expect(sync.status).toBe(503);
      expect(sync.json.code).toBe('no_api_key');
      await expect(readdir(join(noKey.home, 'sessions'))).rejects.toThrow();
    } finally {
      await noKey.daemon.dispose();
    }
  });

  it('ends an announced run whose runtime cannot be built with error and session_end, streamed or not', async () => {
    const broken = await startTestDaemon(fake, {
      daemon: {
        createRuntime: async () => {
          throw new ReinError('config_invalid', 'tools.allowed: unknown tool "nope"');
        },
      },
    });
    try {
      const stream = await sse(broken, 'POST', '/message', { body: { text: 'hi', channel: 'one' } });
      const frames = await stream.untilEnd();
      expect(frames.map((f) => [f.event, f.data.seq])).toEqual([
        ['session_start', 0],
        ['error', 1],
        ['session_end', 2],
        ['result', undefined],
      ]);
      expect(frames[1]!.data).toMatchObject({ code: 'config_invalid' });
      expect(frames[3]!.data).toMatchObject({ stop_reason: 'error', error: { code: 'config_invalid' } });
      const sync = await http(broken, 'POST', '/message', { body: { text: 'hi', channel: 'two' } });
      expect(sync.status).toBe(200);
      expect(sync.json).toMatchObject({ stop_reason: 'error', error: { code: 'config_invalid' } });
    } finally {
      await broken.daemon.dispose();
    }
  });

  it('answers a synchronous call with the final result as JSON and leaves a valid session file', async () => {
    fake.enqueue(text('sync answer'));
    const res = await http(d, 'POST', '/message', { body: { text: 'what time is it' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ injected: false, text: 'sync answer', stop_reason: 'final' });
    const session = await new SessionStore(join(d.home, 'sessions')).load(res.json.session_id);
    expect(session.messages.at(-1)).toMatchObject({ role: 'assistant' });
    expect(JSON.stringify(session.messages[0])).toContain('what time is it');
  });

  it('hands a finished session back before the answer goes out: a message right after continues that object', async () => {
    fake.enqueue(text('one'), text('two'));
    const released = vi.spyOn(SessionStore.prototype, 'release');
    const loaded = vi.spyOn(SessionStore.prototype, 'load');
    const message = (t: string) =>
      runRequestFromMessage(MessageRequest.parse({ text: t, source: 'test', channel: 'handover' }), 'http', 'http');
    const first = await d.daemon.router.submit(message('first'));
    if (first.injected) throw new Error('expected a run');
    const answer = await first.run.done;
    // No turn of the event loop has passed since the run settled: the session is back in the store.
    expect(released).toHaveBeenCalledTimes(1);
    const session = released.mock.calls[0]![0];
    expect(session.id).toBe(answer.session_id);
    const second = await d.daemon.router.submit(message('second'));
    if (second.injected) throw new Error('expected a run');
    expect((await second.run.done).session_id).toBe(answer.session_id);
    expect(loaded).toHaveBeenCalledTimes(1);
    expect(await loaded.mock.results[0]!.value).toBe(session);
    expect(session.messages.filter((m) => m.role === 'user')).toHaveLength(2);
  });

  it('injects a message for a busy route into the running run instead of starting a second one', async () => {
    const first = gate();
    let n = 0;
    fake.fallback = async () => {
      n++;
      if (n === 1) {
        await first.promise;
        return tools([toolCall('think', { thought: 'checking' })]);
      }
      return text('handled both');
    };
    const stream = await sse(d, 'POST', '/message', {
      body: { text: 'first question', source: 'slack', channel: 'C1' },
    });
    await eventually(() => fake.requests.length === 1);

    const second = await http(d, 'POST', '/message', {
      body: { text: 'and a follow-up', source: 'slack', channel: 'C1' },
    });
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ injected: true, route: 'slack:C1' });

    first.open();
    const frames = await stream.untilEnd();
    const injected = frames.find((f) => f.event === 'injected');
    expect(injected?.data.texts).toEqual(['and a follow-up']);
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain('and a follow-up');
    expect(frames.at(-1)!.data).toMatchObject({ text: 'handled both', session_id: second.json.session_id });
    // One run, one session: no second conversation was started.
    expect(fake.requests).toHaveLength(2);
    const files = (await readdir(join(d.home, 'sessions'))).filter((f) => f.endsWith('.json'));
    expect(files).toHaveLength(1);
  });

  it('gives a message that arrives after the run’s last step a follow-up run on the same route and session', async () => {
    const first = gate();
    let n = 0;
    fake.fallback = async () => {
      n++;
      if (n === 1) {
        await first.promise;
        return text('answer to the first'); // no tools: the loop never looks at its inbox again
      }
      return text('answer to the late one');
    };
    const events = await sse(d, 'GET', '/events');
    const a = http(d, 'POST', '/message', { body: { text: 'first', source: 'slack', channel: 'L' } });
    await eventually(() => fake.requests.length === 1);
    const late = await http(d, 'POST', '/message', { body: { text: 'one more thing', source: 'slack', channel: 'L' } });
    expect(late.json.injected).toBe(true);
    first.open();
    expect((await a).json.text).toBe('answer to the first');
    const followEnd = await events.next(
      (f) => f.event === 'session_end' && f.data.text === 'answer to the late one',
      'follow-up run',
    );
    expect(followEnd.data.session_id).toBe(late.json.session_id);
    const starts = events.frames.filter((f) => f.event === 'session_start');
    expect(starts.map((f) => f.data.resumed)).toEqual([false, true]);
    expect(JSON.stringify(fake.requests[1]!.body.messages.at(-1))).toContain('one more thing');
    events.close();
  });

  it('runs different routes at the same time', async () => {
    const hold = gate();
    fake.fallback = async () => {
      await hold.promise;
      return text('done');
    };
    const a = http(d, 'POST', '/message', { body: { text: 'a', source: 'slack', channel: 'A' } });
    const b = http(d, 'POST', '/message', { body: { text: 'b', source: 'slack', channel: 'B' } });
    // Both model calls are in flight before either gets an answer.
    await eventually(() => fake.requests.length === 2);
    hold.open();
    const [ra, rb] = await Promise.all([a, b]);
    expect(ra.json.route).toBe('slack:A');
    expect(rb.json.route).toBe('slack:B');
    expect(ra.json.session_id).not.toBe(rb.json.session_id);
  });

  it('queues runs beyond five and reports each queued run with its position', async () => {
    const hold = gate();
    fake.fallback = async () => {
      await hold.promise;
      return text('ok');
    };
    const streams = [];
    for (let i = 0; i < 7; i++) {
      streams.push(await sse(d, 'POST', '/message', { body: { text: `job ${i}`, source: 'test', channel: `c${i}` } }));
    }
    const sixth = await streams[5]!.next((f) => f.event === 'run_queued', 'run_queued');
    const seventh = await streams[6]!.next((f) => f.event === 'run_queued', 'run_queued');
    expect(sixth.data).toMatchObject({ route: 'test:c5', position: 1 });
    expect(seventh.data).toMatchObject({ route: 'test:c6', position: 2 });
    await eventually(() => fake.requests.length === 5);
    const status = await http(d, 'GET', '/status');
    expect(status.json.active_runs).toBe(5);
    expect(status.json.queued.map((q: { route: string }) => q.route)).toEqual(['test:c5', 'test:c6']);
    // Queued runs have not reached the model.
    expect(fake.requests).toHaveLength(5);
    expect(streams.slice(0, 5).every((s) => !s.frames.some((f) => f.event === 'run_queued'))).toBe(true);

    hold.open();
    const results = await Promise.all(streams.map(async (s) => (await s.untilEnd()).at(-1)!.data));
    expect(results.map((r) => r.stop_reason)).toEqual(Array(7).fill('final'));
    expect(fake.requests).toHaveLength(7);
  });

  it('keeps one session per route: a thread continues, another thread starts its own', async () => {
    fake.fallback = () => text('noted');
    const t1a = await http(d, 'POST', '/message', {
      body: { text: 'one', source: 'slack', channel: 'C9', thread_id: 'T1' },
    });
    const t1b = await http(d, 'POST', '/message', {
      body: { text: 'two', source: 'slack', channel: 'C9', thread_id: 'T1' },
    });
    const t2 = await http(d, 'POST', '/message', {
      body: { text: 'three', source: 'slack', channel: 'C9', thread_id: 'T2' },
    });
    expect(t1a.json.route).toBe('slack:C9:T1');
    expect(t1b.json.session_id).toBe(t1a.json.session_id);
    expect(t2.json.session_id).not.toBe(t1a.json.session_id);
    const session = await new SessionStore(join(d.home, 'sessions')).load(t1a.json.session_id);
    expect(session.channel).toBe('C9:T1');
    expect(session.source).toBe('slack');
    expect(JSON.stringify(session.messages)).toContain('one');
    expect(JSON.stringify(session.messages)).toContain('two');
    // Without a channel or session id every message is a fresh conversation.
    const x = await http(d, 'POST', '/message', { body: { text: 'alone' } });
    const y = await http(d, 'POST', '/message', { body: { text: 'alone again' } });
    expect(x.json.session_id).not.toBe(y.json.session_id);
  });

  it('continues an explicit session_id and starts over with new_session', async () => {
    fake.fallback = () => text('ok');
    const first = await http(d, 'POST', '/message', { body: { text: 'remember 42' } });
    const again = await http(d, 'POST', '/message', {
      body: { text: 'what number?', session_id: first.json.session_id },
    });
    expect(again.json.session_id).toBe(first.json.session_id);
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain('remember 42');

    const routed = await http(d, 'POST', '/message', { body: { text: 'x', source: 'slack', channel: 'N' } });
    const fresh = await http(d, 'POST', '/message', {
      body: { text: 'y', source: 'slack', channel: 'N', new_session: true },
    });
    expect(fresh.json.session_id).not.toBe(routed.json.session_id);
  });

  it('puts the sticky conversation facts into the system prompt', async () => {
    fake.enqueue(text('hi alice'));
    await http(d, 'POST', '/message', {
      body: { text: 'hello', source: 'slack', channel: 'C42', thread_id: '171.5', sender: 'alice' },
    });
    const system = JSON.stringify(fake.requests[0]!.body.system);
    expect(system).toContain('Source: Slack, channel C42, user alice, thread 171.5');
  });

  it('uses what was edited on disk between two messages: the agent, a skill, an instruction file, the session', async () => {
    const { mkdir, writeFile } = await import('node:fs/promises');
    await http(d, 'POST', '/agents', { body: { name: 'ops', prompt: 'You keep servers running.' } });
    fake.enqueue(text('first'), text('second'));
    const first = await http(d, 'POST', '/message', { body: { text: 'status?', agent: 'ops' } });
    expect(first.json.text).toBe('first');
    expect(JSON.stringify(fake.requests[0]!.body.system)).toContain('You keep servers running.');

    // Edited behind the daemon's back, the way a person with an editor would.
    await writeFile(join(d.home, 'agents', 'ops', 'AGENT.md'), 'You watch the backups.\n');
    await mkdir(join(d.home, 'agents', 'ops', 'skills', 'restore'), { recursive: true });
    await writeFile(
      join(d.home, 'agents', 'ops', 'skills', 'restore', 'SKILL.md'),
      '---\nname: restore\ndescription: Restore a backup\n---\nSteps.\n',
    );
    await writeFile(join(d.cwd, 'AGENTS.md'), 'Answer in one line.\n');
    const file = join(d.home, 'agents', 'ops', 'sessions', `${first.json.session_id}.json`);
    const onDisk = JSON.parse(await (await import('node:fs/promises')).readFile(file, 'utf8'));
    onDisk.messages[0].content = [{ type: 'text', text: 'a question edited elsewhere' }];
    await writeFile(file, JSON.stringify(onDisk, null, 2));

    const second = await http(d, 'POST', '/message', { body: { text: 'and now?', agent: 'ops' } });
    expect(second.json).toMatchObject({ text: 'second', session_id: first.json.session_id });
    const req = JSON.stringify(fake.requests[1]!.body);
    expect(req).toContain('You watch the backups.');
    expect(req).not.toContain('You keep servers running.');
    expect(req).toContain('Restore a backup');
    expect(req).toContain('Answer in one line.');
    expect(req).toContain('a question edited elsewhere');
  });

  it('refuses an unknown agent or session with 404 and a bad body with 400 naming the field', async () => {
    const agent = await http(d, 'POST', '/message', { body: { text: 'x', agent: 'nobody' } });
    expect(agent.status).toBe(404);
    expect(agent.json.code).toBe('agent_not_found');
    const session = await http(d, 'POST', '/message', { body: { text: 'x', session_id: '2025-01-01-000000000000' } });
    expect(session.status).toBe(404);
    expect(session.json.code).toBe('session_not_found');
    const blank = await http(d, 'POST', '/message', { body: { text: '   ' } });
    expect(blank.status).toBe(400);
    expect(blank.json).toMatchObject({ code: 'invalid_request', field: 'text' });
    const typo = await http(d, 'POST', '/message', { body: { text: 'x', chanel: 'C1' } });
    expect(typo.status).toBe(400);
    expect(typo.json.field).toBe('chanel');
    const missing = await http(d, 'POST', '/message', { body: { source: 'slack' } });
    expect(missing.json.field).toBe('text');
    const wrongType = await http(d, 'POST', '/message', { body: { text: 'x', new_session: 'yes' } });
    expect(wrongType.json.field).toBe('new_session');
    expect(fake.requests).toHaveLength(0);
  });

  it('cancels a running route on POST /cancel and the session stays valid', async () => {
    fake.enqueue({ kind: 'stall' });
    const stream = await sse(d, 'POST', '/message', { body: { text: 'long job', source: 'cli', channel: 'K' } });
    await eventually(() => fake.requests.length === 1);
    const res = await http(d, 'POST', '/cancel', { body: { route: 'cli:K' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ cancelled: true, route: 'cli:K' });
    const frames = await stream.untilEnd();
    expect(frames.find((f) => f.event === 'session_end')!.data.stop_reason).toBe('cancelled');
    const id = frames.at(-1)!.data.session_id;
    await expect(new SessionStore(join(d.home, 'sessions')).load(id)).resolves.toMatchObject({ id });
    const none = await http(d, 'POST', '/cancel', { body: { route: 'cli:K' } });
    expect(none.status).toBe(404);
    const empty = await http(d, 'POST', '/cancel', { body: {} });
    expect(empty.status).toBe(400);
  });
});
