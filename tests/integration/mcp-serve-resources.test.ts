/**
 * `rein mcp serve` as a full MCP server (issue 28, item 4): the agent's own sessions and memory as
 * read-only resources (list with pagination, transcripts without Rein's injected context, the search
 * template), its commands and skills as prompts, completion, and subscriptions to a session that a real
 * `rein run` writes — driven by the SDK's own Client over stdio against the built CLI, with sessions
 * written by real runs against the fake Messages API.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ErrorCode,
  McpError,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { paths } from '../../src-main/core/config/paths.js';
import { SessionStore } from '../../src-main/core/sessions/store.js';
import { REIN_BIN, cliWorld, rein } from '../support/cli.js';
import { text, toolCall, tools, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { useLeakCheck } from '../support/leaks.js';

useLeakCheck();

let fake: FakeAnthropic;
let home: string;
let cwd: string;
let env: NodeJS.ProcessEnv;
let open: Client[] = [];

beforeEach(async () => {
  const world = await cliWorld();
  ({ fake, home, cwd } = world);
  const userHome = join(cwd, 'user');
  await mkdir(userHome, { recursive: true });
  env = { ...world.env, HOME: userHome };
});

afterEach(async () => {
  for (const c of open) await c.close();
  open = [];
  await fake.close();
});

async function serve(args: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [REIN_BIN, 'mcp', 'serve', ...args],
    env: env as Record<string, string>,
    cwd,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'resources-test', version: '1' });
  const updated: string[] = [];
  let listChanged = 0;
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void listChanged++);
  await client.connect(transport);
  open.push(client);
  return { client, updated, listChanged: () => listChanged };
}

/** One real run of `agent`: the model runs `echo` through bash, then answers. Returns the new session's id. */
async function run(prompt: string, answer: string, agent = 'default'): Promise<string> {
  const dir = paths.sessionsDir(home, agent);
  const before = new Set(await readdir(dir).catch(() => []));
  fake.enqueue(tools([toolCall('bash', { command: 'echo tool-said-hello' })]));
  fake.enqueue(text(answer));
  const r = await rein(['run', ...(agent === 'default' ? [] : ['--agent', agent]), prompt], { env, cwd });
  expect(r.code, r.stderr).toBe(0);
  const added = (await readdir(dir)).filter((n) => n.endsWith('.json') && !before.has(n));
  expect(added).toHaveLength(1);
  return added[0]!.slice(0, -'.json'.length);
}

async function rpcError(p: Promise<unknown>): Promise<McpError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(McpError);
  return e as McpError;
}

const textOf = (r: { contents: ReadonlyArray<object> }): string =>
  String((r.contents[0] as { text?: unknown } | undefined)?.text ?? '');

describe('rein mcp serve: resources', () => {
  it('lists the agent’s sessions and memory, and reads a transcript without Rein’s injected context', async () => {
    const id = await run('what is the answer to the glacier question?', 'The answer is forty-two.');
    // The stored session carries Rein's per-turn block: what the transcript must leave out.
    const raw = await readFile(join(paths.sessionsDir(home), `${id}.json`), 'utf8');
    expect(raw).toContain('<context>');
    await mkdir(join(home, 'memory'), { recursive: true });
    await writeFile(join(home, 'memory', 'MEMORY.md'), '# Memory\n\n- The user likes green tea.\n');

    const { client } = await serve();
    const caps = client.getServerCapabilities();
    expect(caps?.resources).toEqual({ subscribe: true, listChanged: true });
    expect(caps?.prompts).toBeDefined();
    expect(caps?.completions).toBeDefined();

    const { resources, nextCursor } = await client.listResources();
    expect(nextCursor).toBeUndefined();
    expect(resources.map((r) => r.uri)).toEqual([
      'rein://sessions',
      'rein://agents/default/memory',
      `rein://sessions/${id}`,
    ]);
    expect(resources[2]).toMatchObject({ mimeType: 'text/markdown', name: id });

    const transcript = textOf(await client.readResource({ uri: `rein://sessions/${id}` }));
    expect(transcript).toContain('## User');
    expect(transcript).toContain('what is the answer to the glacier question?');
    expect(transcript).toContain('**Tool call:** `bash: echo tool-said-hello`');
    expect(transcript).toContain('tool-said-hello');
    expect(transcript).toContain('The answer is forty-two.');
    expect(transcript).not.toContain('<context>');
    expect(transcript).not.toContain('cache_break');

    const memory = await client.readResource({ uri: 'rein://agents/default/memory' });
    expect(memory.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    expect(textOf(memory)).toContain('likes green tea');

    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'rein://sessions/{id}',
      'rein://sessions{?query}',
      'rein://agents/{agent}/memory',
    ]);

    const found = textOf(await client.readResource({ uri: 'rein://sessions?query=glacier' }));
    expect(found).toContain(`(rein://sessions/${id})`);
    expect(found).toContain('**glacier**');
    expect(textOf(await client.readResource({ uri: 'rein://sessions?query=zeppelin' }))).toContain(
      'No matching sessions found.',
    );
    expect(textOf(await client.readResource({ uri: 'rein://sessions' }))).toContain(`(rein://sessions/${id})`);

    // Each read is in the audit log, as the agent's own calls are.
    await expect
      .poll(
        async () =>
          (await readFile(paths.auditLog(home), 'utf8').catch(() => ''))
            .split('\n')
            .filter((l) => l.includes('"resources/read"')).length,
      )
      .toBe(5);
  });

  it('pages through many sessions with a cursor, most recent first, and refuses a made-up cursor', async () => {
    // A clock a second apart per stamp: two saves in the same millisecond would tie on updated_at (then ordered by id).
    let tick = Date.UTC(2026, 0, 2);
    const store = new SessionStore(paths.sessionsDir(home), { now: () => new Date((tick += 1000)) });
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) {
      const s = store.create({ agent: 'default', cwd, source: 'cli', title: `errand ${i}` });
      const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
      s.messages.push({ role: 'user', content: `errand ${i}` });
      s.message_meta.push({ source: 'cli', timestamp: at });
      await store.save(s);
      ids.push(s.id);
    }
    const { client } = await serve();
    const first = await client.listResources();
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await client.listResources({ cursor: first.nextCursor! });
    expect(second.nextCursor).toBeUndefined();
    const listed = [...first.resources, ...second.resources]
      .map((r) => r.uri)
      .filter((u) => u.startsWith('rein://sessions/'));
    expect(listed).toHaveLength(55);
    expect(new Set(listed).size).toBe(55);
    expect(first.resources[0]!.uri).toBe('rein://sessions');
    // Saved in order, so the last saved is the most recently updated.
    expect(listed[0]).toBe(`rein://sessions/${ids[54]}`);
    const bad = await rpcError(client.listResources({ cursor: 'not-a-cursor' }));
    expect(bad.code).toBe(ErrorCode.InvalidParams);
  });

  it('never hands out another agent’s sessions or memory, nor anything outside: -32602 with the URI', async () => {
    await mkdir(join(home, 'agents', 'other'), { recursive: true });
    await writeFile(join(home, 'agents', 'other', 'AGENT.md'), 'You are the other agent.\n');
    await writeFile(join(home, 'agents', 'other', 'MEMORY.md'), '- other agent private note\n');
    const theirs = await run('the zeppelin plans of the other agent', 'Noted, zeppelin.', 'other');
    const mine = await run('my own question', 'My own answer.');

    const { client } = await serve();
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(uris).toContain(`rein://sessions/${mine}`);
    expect(uris).not.toContain(`rein://sessions/${theirs}`);
    expect(uris).not.toContain('rein://agents/other/memory');

    for (const uri of [
      `rein://sessions/${theirs}`,
      'rein://agents/other/memory',
      'rein://sessions/2026-01-01-000000000000',
      'rein://sessions/../secrets/mcp-serve.token',
      'rein://sessions/..%2Fsecrets%2Fmcp-serve.token',
      'rein://agents/../../etc/memory',
      `file://${join(home, 'agents', 'other', 'MEMORY.md')}`,
      'rein://sessions?query=x&path=/etc/passwd',
    ]) {
      const e = await rpcError(client.readResource({ uri }));
      expect(e.code, uri).toBe(ErrorCode.InvalidParams);
      expect(e.data, uri).toEqual({ uri });
    }
    // The search is the serving agent's too.
    expect(textOf(await client.readResource({ uri: 'rein://sessions?query=zeppelin' }))).toContain(
      'No matching sessions found.',
    );
    // Nor can it be subscribed to.
    expect((await rpcError(client.subscribeResource({ uri: `rein://sessions/${theirs}` }))).code).toBe(
      ErrorCode.InvalidParams,
    );
    // Completion offers only the serving agent's ids and name.
    const ids = await client.complete({
      ref: { type: 'ref/resource', uri: 'rein://sessions/{id}' },
      argument: { name: 'id', value: '' },
    });
    expect(ids.completion.values).toEqual([mine]);
    const agents = await client.complete({
      ref: { type: 'ref/resource', uri: 'rein://agents/{agent}/memory' },
      argument: { name: 'agent', value: '' },
    });
    expect(agents.completion.values).toEqual(['default']);
  });

  it('offers no sessions when the agent may not use session_search', async () => {
    const id = await run('a question', 'an answer');
    await writeFile(join(home, 'config.yaml'), 'tools:\n  denied: [session_search]\n');
    const { client } = await serve();
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(uris.filter((u) => u.startsWith('rein://sessions'))).toEqual([]);
    const e = await rpcError(client.readResource({ uri: `rein://sessions/${id}` }));
    expect(e.code).toBe(ErrorCode.InvalidParams);
    expect(e.message).toMatch(/session_search/);
  });
});

describe('rein mcp serve: subscriptions', () => {
  it('tells a subscriber when a run continues its session, and a lister when a session is added', async () => {
    const id = await run('first question', 'first answer');
    const { client, updated, listChanged } = await serve();
    await client.listResources();
    await client.subscribeResource({ uri: `rein://sessions/${id}` });

    fake.enqueue(text('second answer'));
    const more = await rein(['run', '--session', id, 'second question'], { env, cwd });
    expect(more.code, more.stderr).toBe(0);
    await expect.poll(() => updated.includes(`rein://sessions/${id}`), { timeout: 10_000 }).toBe(true);
    expect(textOf(await client.readResource({ uri: `rein://sessions/${id}` }))).toContain('second answer');

    const added = await run('another question', 'another answer');
    await expect.poll(() => listChanged(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect((await client.listResources()).resources.map((r) => r.uri)).toContain(`rein://sessions/${added}`);
    // Not subscribed to the new one: no update for it.
    expect(updated).not.toContain(`rein://sessions/${added}`);

    await client.unsubscribeResource({ uri: `rein://sessions/${id}` });
    const count = updated.length;
    fake.enqueue(text('third answer'));
    expect((await rein(['run', '--session', id, 'third question'], { env, cwd })).code).toBe(0);
    // The list-change notice for an unrelated session shows the watcher is still alive.
    await run('yet another', 'ok');
    await expect.poll(() => listChanged(), { timeout: 10_000 }).toBeGreaterThan(1);
    expect(updated.length).toBe(count);
  });

  it('refuses to subscribe to what is not a session of the agent', async () => {
    const { client } = await serve();
    for (const uri of ['rein://sessions/2026-01-01-000000000000', 'rein://sessions', 'test://watched-resource']) {
      expect((await rpcError(client.subscribeResource({ uri }))).code, uri).toBe(ErrorCode.InvalidParams);
    }
  });
});

describe('rein mcp serve: prompts and completion', () => {
  beforeEach(async () => {
    await mkdir(join(home, 'commands'), { recursive: true });
    await writeFile(
      join(home, 'commands', 'review.md'),
      '---\ndescription: Review a file\nargument_hint: "<file> [strict|lenient]"\n---\nReview $1 in $2 mode.\n',
    );
    await writeFile(join(home, 'commands', 'standup.md'), 'Write my standup notes.\n');
    await mkdir(join(home, 'skills', 'brew-tea'), { recursive: true });
    await writeFile(
      join(home, 'skills', 'brew-tea', 'SKILL.md'),
      '---\nname: brew-tea\ndescription: Brews tea the right way. Use when asked for tea.\n---\nBoil water, then run scripts/steep.sh.\n',
    );
    await mkdir(join(home, 'skills', 'brew-tea', 'scripts'), { recursive: true });
    await writeFile(join(home, 'skills', 'brew-tea', 'scripts', 'steep.sh'), 'echo steeping\n');
  });

  it('lists commands and skills as prompts and expands them with their arguments', async () => {
    const { client } = await serve();
    const { prompts } = await client.listPrompts();
    const review = prompts.find((p) => p.name === 'review')!;
    expect(review).toMatchObject({ title: '/review', description: 'Review a file' });
    expect(review.arguments).toEqual([expect.objectContaining({ name: 'arguments', required: false })]);
    expect(review.arguments![0]!.description).toContain('<file> [strict|lenient]');
    expect(prompts.find((p) => p.name === 'standup')).toMatchObject({ description: 'Write my standup notes.' });
    expect(prompts.find((p) => p.name === 'skill-brew-tea')).toMatchObject({
      title: 'Skill: brew-tea',
      description: expect.stringContaining('Brews tea'),
    });

    const got = await client.getPrompt({ name: 'review', arguments: { arguments: 'src/app.ts strict' } });
    expect(got.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Review src/app.ts in strict mode.' } },
    ]);
    const plain = await client.getPrompt({ name: 'standup', arguments: { arguments: 'for Monday' } });
    expect((plain.messages[0]!.content as { text: string }).text).toBe(
      'Write my standup notes.\n\nARGUMENTS: for Monday',
    );
    const skill = await client.getPrompt({ name: 'skill-brew-tea', arguments: { arguments: 'green, 80 degrees' } });
    const skillText = (skill.messages[0]!.content as { text: string }).text;
    expect(skillText).toContain('# Skill: brew-tea');
    expect(skillText).toContain(join(home, 'skills', 'brew-tea', 'scripts', 'steep.sh'));
    expect(skillText).toContain('## Request details\ngreen, 80 degrees');

    expect((await rpcError(client.getPrompt({ name: 'no-such-prompt' }))).code).toBe(ErrorCode.InvalidParams);
    expect((await rpcError(client.getPrompt({ name: 'review', arguments: { file: 'x' } }))).code).toBe(
      ErrorCode.InvalidParams,
    );
  });

  it('completes a prompt argument from its hint, and session ids by prefix', async () => {
    const id = await run('a question', 'an answer');
    const { client } = await serve();
    const r = await client.complete({
      ref: { type: 'ref/prompt', name: 'review' },
      argument: { name: 'arguments', value: 'src/app.ts st' },
    });
    expect(r.completion).toEqual({ values: ['src/app.ts strict'], total: 1, hasMore: false });
    const none = await client.complete({
      ref: { type: 'ref/prompt', name: 'standup' },
      argument: { name: 'arguments', value: '' },
    });
    expect(none.completion.values).toEqual([]);
    const ids = await client.complete({
      ref: { type: 'ref/resource', uri: 'rein://sessions/{id}' },
      argument: { name: 'id', value: id.slice(0, 12) },
    });
    expect(ids.completion.values).toEqual([id]);
    const nothing = await client.complete({
      ref: { type: 'ref/resource', uri: 'rein://sessions/{id}' },
      argument: { name: 'id', value: 'zzz' },
    });
    expect(nothing.completion.values).toEqual([]);
    expect(
      (
        await rpcError(
          client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'arguments', value: '' } }),
        )
      ).code,
    ).toBe(ErrorCode.InvalidParams);
    expect(
      (
        await rpcError(
          client.complete({
            ref: { type: 'ref/resource', uri: 'test://template/{id}/data' },
            argument: { name: 'id', value: '' },
          }),
        )
      ).code,
    ).toBe(ErrorCode.InvalidParams);
  });
});
