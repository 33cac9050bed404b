/** Session history from the command line: runs are indexed as they finish; search is per agent. */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text, toolCall, tools, type FakeAnthropic } from '../support/fakeAnthropic.js';
import { cliWorld, rein } from '../support/cli.js';

let fake: FakeAnthropic;
let home: string;
let cwd: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  ({ fake, home, cwd, env } = await cliWorld());
  await mkdir(join(home, 'agents', 'ops'), { recursive: true });
  await writeFile(join(home, 'agents', 'ops', 'AGENT.md'), 'You run operations.\n');
});
afterEach(async () => {
  await fake.close();
});

describe('rein sessions', () => {
  it('finds finished runs by stemmed words and in Chinese, per agent and by source, and survives deleting the index', async () => {
    fake.enqueue(text('The deployment pipelines are running smoothly.'));
    expect((await rein(['run', 'how are the deploys?'], { env, cwd })).code).toBe(0);
    fake.enqueue(text('数据库备份已经完成了。'));
    expect((await rein(['run', '--source', 'schedule', '检查数据库备份'], { env, cwd })).code).toBe(0);
    fake.enqueue(text('ops secret: the pipeline runs at night'));
    expect((await rein(['run', '--agent', 'ops', 'when does the pipeline run?'], { env, cwd })).code).toBe(0);
    // A run does not open the index (SQLite stays unloaded): it notes its session for the next search.
    expect(existsSync(join(home, 'rein.db'))).toBe(false);
    expect(readFileSync(join(home, 'rein.db.pending'), 'utf8').trim().split('\n')).toHaveLength(3);

    const search = async (...args: string[]) =>
      JSON.parse((await rein(['sessions', 'search', '--json', ...args], { env, cwd })).stdout) as Array<{
        title: string;
        snippet: string;
        agent: string;
        source: string;
      }>;
    const stemmed = await search('pipeline');
    expect(stemmed).toHaveLength(1);
    expect(stemmed[0]!.snippet).toMatch(/>>>pipelines?<<</i);
    expect(stemmed[0]!.agent).toBe('default');
    expect((await search('数据库'))[0]?.source).toBe('schedule');
    expect(await search('数据库', '--source', 'cli')).toHaveLength(0);
    const ops = await search('pipeline', '--agent', 'ops');
    expect(ops).toHaveLength(1);
    // The ops agent's own session (its question now ranks first: the row holds only what was said).
    expect(ops[0]!.title).toBe('when does the pipeline run?');

    rmSync(join(home, 'rein.db'));
    expect(await search('pipeline')).toHaveLength(1);

    const list = await rein(['sessions', 'list'], { env, cwd });
    expect(list.stdout.trim().split('\n')).toHaveLength(3);
    const reindex = await rein(['sessions', 'reindex'], { env, cwd });
    expect(reindex.stdout).toMatch(/Indexed 3 session\(s\) of 2 agent\(s\)/);
  });

  it('shows the whole transcript with tools and the cache hit ratio', async () => {
    fake.enqueue(tools([toolCall('think', { thought: 'plan it' })]), text('Planned.'));
    await rein(['run', 'make a plan'], { env, cwd });
    const id = JSON.parse((await rein(['sessions', 'list', '--json'], { env, cwd })).stdout)[0].id as string;
    const show = await rein(['sessions', 'show', id], { env, cwd });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('[user] make a plan');
    expect(show.stdout).toContain('[tool call] think');
    expect(show.stdout).toContain('[assistant] Planned.');
    expect(show.stdout).toMatch(/% from cache/);
  });

  it('the agent only finds its own sessions through session_search', async () => {
    fake.enqueue(text('default agent knows about kumquats'));
    await rein(['run', 'tell me about kumquats'], { env, cwd });
    fake.enqueue(tools([toolCall('session_search', { query: 'kumquats' })]), text('nothing found'));
    await rein(['run', '--agent', 'ops', 'search kumquats'], { env, cwd });
    expect(JSON.stringify(fake.requests[2]!.body.messages.at(-1))).toContain('No matching sessions found.');
    fake.enqueue(tools([toolCall('session_search', { query: 'kumquats' })]), text('found it'));
    await rein(['run', 'search kumquats'], { env, cwd });
    expect(JSON.stringify(fake.requests[4]!.body.messages.at(-1))).toContain('kumquats');
    expect(JSON.stringify(fake.requests[4]!.body.messages.at(-1))).not.toContain('No matching sessions found.');
  });
});
