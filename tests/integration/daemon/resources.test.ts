/**
 * Agents CRUD (validated before any write, rolled back on failure), sessions (list, one, search),
 * skills, named-agent routing, and the generic inbound webhook with its per-source secret.
 */
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../../src-main/core/daemon/webhooks.js';
import { startFakeAnthropic, text, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { http, sse, startTestDaemon, type TestDaemon } from './support.js';
import { useLeakCheck } from '../../support/leaks.js';

useLeakCheck();

let fake: FakeAnthropic;
let d: TestDaemon;

beforeEach(async () => {
  fake = await startFakeAnthropic();
  fake.fallback = () => text('ok');
  d = await startTestDaemon(fake);
});
afterEach(async () => {
  await d.daemon.dispose();
  await fake.close();
});

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );

describe('agents', () => {
  it('creates an agent with persona, config, memory, commands and skills, and reads it back', async () => {
    await mkdir(join(d.home, 'skills', 'triage'), { recursive: true });
    await writeFile(
      join(d.home, 'skills', 'triage', 'SKILL.md'),
      '---\nname: triage\ndescription: Sort incoming issues.\n---\nSort them.\n',
    );
    const res = await http(d, 'POST', '/agents', {
      body: {
        name: 'ops',
        prompt: 'You keep the servers running.',
        memory: '- the db is on host a\n',
        config: { model: 'claude-haiku-5-5', max_iterations: 10 },
        commands: { status: 'Report the status of every server.' },
        skills: ['triage'],
      },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      name: 'ops',
      prompt: 'You keep the servers running.\n',
      memory: '- the db is on host a\n',
      config: { model: 'claude-haiku-5-5', max_iterations: 10 },
      commands: { status: 'Report the status of every server.\n' },
      skills: ['triage'],
    });
    const list = await http(d, 'GET', '/agents');
    expect(list.json.agents).toEqual([
      { name: 'ops', has_memory: true, has_config: true, command_count: 1, skill_count: 1 },
    ]);
    expect((await http(d, 'POST', '/agents', { body: { name: 'ops', prompt: 'again' } })).status).toBe(409);
    const skills = await http(d, 'GET', '/skills?agent=ops');
    expect(skills.json.skills.map((s: { name: string }) => s.name)).toContain('triage');
  });

  it('validates everything before writing: a bad config field leaves no agent folder behind', async () => {
    const res = await http(d, 'POST', '/agents', {
      body: { name: 'bad', prompt: 'p', config: { max_iterations: 'many' } },
    });
    expect(res.status).toBe(400);
    expect(res.json.field).toBe('config.max_iterations');
    expect(await exists(join(d.home, 'agents', 'bad'))).toBe(false);
    const skill = await http(d, 'POST', '/agents', { body: { name: 'bad', prompt: 'p', skills: ['missing'] } });
    expect(skill.status).toBe(400);
    expect(skill.json.field).toBe('skills[0]');
    expect(await exists(join(d.home, 'agents', 'bad'))).toBe(false);
    const name = await http(d, 'POST', '/agents', { body: { name: '../x', prompt: 'p' } });
    expect(name.json.field).toBe('name');
  });

  it('updates only what is given; an invalid part changes nothing; null deletes', async () => {
    await http(d, 'POST', '/agents', { body: { name: 'ops', prompt: 'v1', memory: 'm1', commands: { a: 'do a' } } });
    const bad = await http(d, 'PUT', '/agents/ops', { body: { prompt: 'v2', config: { mode: 'yolo' } } });
    expect(bad.status).toBe(400);
    expect(bad.json.field).toBe('config.mode');
    expect(await readFile(join(d.home, 'agents', 'ops', 'AGENT.md'), 'utf8')).toBe('v1\n');

    const ok = await http(d, 'PUT', '/agents/ops', {
      body: { prompt: 'v2', memory: null, commands: { a: null, b: 'do b' } },
    });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ prompt: 'v2\n', memory: null, commands: { b: 'do b\n' } });
    expect(await exists(join(d.home, 'agents', 'ops', 'MEMORY.md'))).toBe(false);
    expect((await http(d, 'PUT', '/agents/ghost', { body: { prompt: 'x' } })).status).toBe(404);
  });

  it('opens an agent with broken files as written, listing each problem with file, line and field, until a valid save fixes it', async () => {
    const dir = join(d.home, 'agents', 'broken');
    await mkdir(join(dir, 'commands'), { recursive: true });
    await writeFile(join(dir, 'AGENT.md'), '   \n');
    const badConfig = '# tuned by hand\nmax_iterations: lots\nmode: yolo\n';
    await writeFile(join(dir, 'config.yaml'), badConfig);
    await writeFile(join(dir, 'commands', 'ok.md'), 'Do the thing with $ARGUMENTS');

    const list = await http(d, 'GET', '/agents');
    expect(list.json.agents[0]).toMatchObject({ name: 'broken' });
    expect(list.json.agents[0].problem).toContain('config.yaml');

    const res = await http(d, 'GET', '/agents/broken');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      name: 'broken',
      prompt: '   \n',
      config: null,
      config_text: badConfig,
      commands: { ok: 'Do the thing with $ARGUMENTS' },
    });
    expect(res.json.problems).toEqual([
      { file: 'AGENT.md', message: expect.stringContaining('empty') },
      { file: 'config.yaml', line: 2, column: 1, field: 'max_iterations', message: expect.any(String) },
      { file: 'config.yaml', line: 3, column: 1, field: 'mode', message: expect.any(String) },
    ]);
    expect(res.json.slash_commands).toEqual([
      { name: 'ok', description: 'Do the thing with $ARGUMENTS', scope: 'agent' },
    ]);

    // Saving an invalid config is still refused, naming the field; nothing changes on disk.
    const refused = await http(d, 'PUT', '/agents/broken', {
      body: { config: '# tuned by hand\nmax_iterations: 0\n' },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.field).toBe('config.max_iterations');
    expect(await readFile(join(dir, 'config.yaml'), 'utf8')).toBe(badConfig);

    const fixed = await http(d, 'PUT', '/agents/broken', {
      body: { prompt: 'You fix things.', config: '# tuned by hand\nmax_iterations: 12\nmode: plan\n' },
    });
    expect(fixed.status, fixed.text).toBe(200);
    expect(fixed.json).toMatchObject({ config: { max_iterations: 12, mode: 'plan' }, problems: [] });
    expect((await http(d, 'GET', '/agents')).json.agents[0].problem).toBeUndefined();
  });

  it('shows the built-in agent read-only with the commands its chat accepts, global ones included', async () => {
    await mkdir(join(d.home, 'commands'), { recursive: true });
    await writeFile(
      join(d.home, 'commands', 'standup.md'),
      '---\ndescription: Write my standup\nargument_hint: <day>\n---\nWrite the standup for $1.\n',
    );
    const res = await http(d, 'GET', '/agents/default');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: 'default', builtin: true, config: null, commands: {}, skills: [] });
    expect(res.json.slash_commands).toEqual([
      { name: 'standup', description: 'Write my standup', argument_hint: '<day>', scope: 'global' },
    ]);
    expect((await http(d, 'PUT', '/agents/default', { body: { prompt: 'x' } })).status).toBe(404);
  });

  it('deletes an agent into the trash and forgets its route', async () => {
    await http(d, 'POST', '/agents', { body: { name: 'temp', prompt: 'short-lived' } });
    const run = await http(d, 'POST', '/message', { body: { text: 'hi', agent: 'temp' } });
    expect(run.json.route).toBe('agent:temp');
    const del = await http(d, 'DELETE', '/agents/temp');
    expect(del.status).toBe(200);
    expect(del.json.deleted).toBe(true);
    expect(await exists(join(d.home, 'agents', 'temp'))).toBe(false);
    expect(await readdir(join(d.home, 'trash', 'agents'))).toHaveLength(1);
    expect((await http(d, 'GET', '/agents/temp')).status).toBe(404);
    expect((await http(d, 'DELETE', '/agents/default')).status).toBe(400);
  });

  it('routes a named agent to one conversation and uses its persona', async () => {
    await http(d, 'POST', '/agents', { body: { name: 'helper', prompt: 'You are the helper persona.' } });
    const a = await http(d, 'POST', '/message', {
      body: { text: 'first', agent: 'helper', source: 'slack', channel: 'X' },
    });
    const b = await http(d, 'POST', '/message', {
      body: { text: 'second', agent: 'helper', source: 'telegram', channel: 'Y' },
    });
    expect(a.json.route).toBe('agent:helper');
    expect(b.json.session_id).toBe(a.json.session_id);
    expect(JSON.stringify(fake.requests[0]!.body.system)).toContain('You are the helper persona.');
    expect(await exists(join(d.home, 'agents', 'helper', 'sessions', `${a.json.session_id}.json`))).toBe(true);
  });
});

describe('sessions', () => {
  it('lists sessions newest first, filters by source, returns one whole, and searches them', async () => {
    const a = await http(d, 'POST', '/message', {
      body: { text: 'the zebra migration plan', source: 'slack', channel: 'Z' },
    });
    const b = await http(d, 'POST', '/message', { body: { text: 'lunch order for friday' } });
    const all = await http(d, 'GET', '/sessions');
    expect(all.json.sessions.map((s: { id: string }) => s.id)).toEqual([b.json.session_id, a.json.session_id]);
    const slack = await http(d, 'GET', '/sessions?source=slack&limit=5');
    expect(slack.json.sessions).toHaveLength(1);
    expect(slack.json.sessions[0]).toMatchObject({ id: a.json.session_id, source: 'slack', channel: 'Z' });

    const one = await http(d, 'GET', `/sessions/${a.json.session_id}`);
    expect(one.status).toBe(200);
    expect(JSON.stringify(one.json.messages)).toContain('zebra');
    expect((await http(d, 'GET', '/sessions/2020-01-01-aaaaaaaaaaaa')).status).toBe(404);
    expect((await http(d, 'GET', '/sessions/..%2F..%2Fetc')).status).toBe(400);

    const hits = await http(d, 'GET', '/sessions/search?q=zebra');
    expect(hits.status).toBe(200);
    expect(hits.json.results.map((r: { session_id: string }) => r.session_id)).toEqual([a.json.session_id]);
    // A run after the index was opened is searchable too.
    const c = await http(d, 'POST', '/message', { body: { text: 'zebra crossing repaint' } });
    const again = await http(d, 'GET', '/sessions/search?q=zebra');
    expect(again.json.results.map((r: { session_id: string }) => r.session_id)).toContain(c.json.session_id);
    expect((await http(d, 'GET', '/sessions/search')).json.field).toBe('q');
    expect((await http(d, 'GET', '/sessions?limit=0')).json.field).toBe('limit');
  });
});

describe('POST /hooks/{source}', () => {
  const secret = 'relay-secret-0123456789';
  beforeEach(async () => {
    await writeFile(
      join(d.home, 'webhooks.yaml'),
      [
        'sources:',
        '  slack:',
        `    secret: ${secret}`,
        '    map: { text: event.text, channel: event.channel, thread: event.thread_ts, sender: event.user }',
        '    skip_if_present: [event.bot_id]',
        '  ci:',
        '    auth: header',
        `    secret: ${secret}`,
        '    reply: accept',
        '    map: { text: "build.summary", channel: "build.repo" }',
      ].join('\n'),
    );
  });

  it('maps a signed Slack-shaped body to a message on its thread route and answers with the result', async () => {
    const body = JSON.stringify({
      event: { text: 'is the deploy done?', channel: 'C7', thread_ts: '1700.01', user: 'U42' },
    });
    const res = await http(d, 'POST', '/hooks/slack', {
      token: null,
      rawBody: body,
      headers: signedHeaders(secret, body),
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ route: 'slack:C7:1700.01', text: 'ok', stop_reason: 'final' });
    expect(JSON.stringify(fake.requests[0]!.body.system)).toContain('user U42');
  });

  it('refuses a wrong or missing signature (401), an unknown source (404) and a body missing the text (400)', async () => {
    const body = JSON.stringify({ event: { text: 'hi', channel: 'C7' } });
    expect((await http(d, 'POST', '/hooks/slack', { token: null, rawBody: body })).status).toBe(401);
    const forged = await http(d, 'POST', '/hooks/slack', {
      token: null,
      rawBody: body,
      headers: signedHeaders('other-secret-000000', body),
    });
    expect(forged.status).toBe(401);
    expect(forged.json.code).toBe('webhook_unauthorized');
    expect((await http(d, 'POST', '/hooks/telegram', { token: null, rawBody: body })).status).toBe(404);
    const noText = JSON.stringify({ event: { channel: 'C7' } });
    const missing = await http(d, 'POST', '/hooks/slack', {
      token: null,
      rawBody: noText,
      headers: signedHeaders(secret, noText),
    });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toContain('event.text');
    expect(fake.requests).toHaveLength(0);
  });

  it('skips bot messages with 204 and accepts at once with reply: accept', async () => {
    const bot = JSON.stringify({ event: { text: 'echo', channel: 'C7', bot_id: 'B1' } });
    expect(
      (await http(d, 'POST', '/hooks/slack', { token: null, rawBody: bot, headers: signedHeaders(secret, bot) }))
        .status,
    ).toBe(204);
    const ci = await http(d, 'POST', '/hooks/ci', {
      token: null,
      body: { build: { summary: 'build 12 failed', repo: 'rein' } },
      headers: { 'x-rein-secret': secret },
    });
    expect(ci.status).toBe(202);
    expect(ci.json).toMatchObject({ accepted: true, route: 'ci:rein' });
  });
});

describe('switchAgent (PUT /active-agent)', () => {
  it('switches the active agent, tells every client, and refuses an unknown one', async () => {
    await http(d, 'POST', '/agents', { body: { name: 'research', prompt: 'You research things.' } });
    expect((await http(d, 'GET', '/status')).json.active_agent).toBe('default');
    const events = await sse(d, 'GET', '/events');
    const res = await http(d, 'PUT', '/active-agent', { body: { name: 'research' } });
    const changed = await events.next((f) => f.event === 'agent_changed' && f.data.change === 'activated');
    events.close();
    expect(changed.data.agent).toBe('research');
    expect(res.status).toBe(200);
    expect(res.json.active_agent).toBe('research');
    expect((await http(d, 'GET', '/status')).json.active_agent).toBe('research');
    const missing = await http(d, 'PUT', '/active-agent', { body: { name: 'ghost' } });
    expect(missing.status).toBe(404);
    expect((await http(d, 'PUT', '/active-agent', { body: { name: '../x' } })).status).toBe(400);
  });
});
