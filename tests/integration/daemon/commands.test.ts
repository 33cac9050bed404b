/**
 * Slash commands are expanded by the daemon, so every client (the page, a Slack relay through a
 * webhook, a script, the desktop over IPC) gets the same behaviour as `rein run`: `/name args` becomes
 * the command's prompt, an unknown name is refused naming the commands there are, and text that only
 * looks like a path, or a name the clients keep for themselves, goes through as typed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { eventually, gate, http, openWs, sse, startTestDaemon, type TestDaemon } from './support.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

let fake: FakeAnthropic;
let d: TestDaemon;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  fake.fallback = () => text('done');
  d = await startTestDaemon(fake);
  await http(d, 'POST', '/agents', {
    body: { name: 'ops', prompt: 'You run ops.', commands: { greet: 'Say hello to $1, then read: $ARGUMENTS' } },
  });
  await mkdir(join(d.home, 'commands'), { recursive: true });
  await writeFile(
    join(d.home, 'commands', 'standup.md'),
    '---\ndescription: Write my standup\n---\nWrite the standup for $1.\n',
  );
});
afterEach(async () => {
  await d.daemon.dispose();
  await fake.close();
});

/** The text of the last user turn the model was sent. */
function lastUserText(): string {
  const turn = fake.requests
    .at(-1)!
    .body.messages.filter((m) => m.role === 'user')
    .at(-1)!;
  return JSON.stringify(turn.content);
}

describe('slash commands in POST /message', () => {
  it("expands the agent's command with its arguments before the model sees it", async () => {
    const res = await http(d, 'POST', '/message', { body: { text: '/greet Ann "the weekly report"', agent: 'ops' } });
    expect(res.status, res.text).toBe(200);
    expect(lastUserText()).toContain('Say hello to Ann, then read: Ann \\"the weekly report\\"');
    expect(lastUserText()).not.toContain('/greet');
  });

  it('expands global commands for the built-in agent too', async () => {
    const res = await http(d, 'POST', '/message', {
      body: { text: '/standup friday', source: 'slack', channel: 'C9' },
    });
    expect(res.status, res.text).toBe(200);
    expect(lastUserText()).toContain('Write the standup for friday.');
  });

  it('refuses an unknown command, naming the ones there are, without calling the model', async () => {
    const before = fake.requests.length;
    const res = await http(d, 'POST', '/message', { body: { text: '/deploy now', agent: 'ops' } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ code: 'unknown_command', field: 'text' });
    expect(res.json.error).toContain('/greet');
    expect(res.json.error).toContain('/standup');
    expect(fake.requests.length).toBe(before);
  });

  it('sends text that only looks like a command, and the names clients keep, as typed', async () => {
    await http(d, 'POST', '/message', { body: { text: '/usr/bin/env is broken', agent: 'ops' } });
    expect(lastUserText()).toContain('/usr/bin/env is broken');
    await http(d, 'POST', '/message', { body: { text: '/help me with this', agent: 'ops' } });
    expect(lastUserText()).toContain('/help me with this');
  });

  it('expands a command sent over the WebSocket the same way', async () => {
    const ws = await openWs(d);
    ws.send({ type: 'message', ref: 'r1', text: '/greet Bo', agent: 'ops' });
    const reply = await ws.next((f) => f.frame === 'reply' && f.ref === 'r1');
    expect(reply.ok).toBe(true);
    await eventually(() => fake.requests.length > 0);
    expect(lastUserText()).toContain('Say hello to Bo');
    ws.send({ type: 'message', ref: 'r2', text: '/nope', agent: 'ops' });
    const refused = await ws.next((f) => f.frame === 'reply' && f.ref === 'r2');
    expect(refused).toMatchObject({ ok: false, code: 'unknown_command', status: 400 });
    ws.close();
  });

  it('expands a command injected into a run in flight', async () => {
    const hold = gate();
    let n = 0;
    fake.fallback = async () => {
      n++;
      if (n === 1) {
        await hold.promise;
        return tools([toolCall('think', { thought: 'checking' })]);
      }
      return text('handled both');
    };
    const stream = await sse(d, 'POST', '/message', { body: { text: 'first', agent: 'ops' } });
    await eventually(() => fake.requests.length === 1);
    const second = await http(d, 'POST', '/message', { body: { text: '/greet Cy', agent: 'ops' } });
    expect(second.json).toMatchObject({ injected: true });
    hold.open();
    const frames = await stream.untilEnd();
    expect(frames.find((f) => f.event === 'injected')?.data.texts[0]).toContain('Say hello to Cy');
  });
});
