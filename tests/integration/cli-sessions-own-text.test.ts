/**
 * `rein sessions search` finds what people and models said, never the block Rein adds to each turn
 * (time, working folder, model, memory): it used to match every session.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { text } from '../support/fakeAnthropic.js';
import type { FakeAnthropic } from '../support/fakeAnthropic.js';
import { cliWorld, rein } from '../support/cli.js';

let world: { fake: FakeAnthropic; home: string; cwd: string; env: NodeJS.ProcessEnv };
beforeEach(async () => {
  world = await cliWorld();
});
afterEach(async () => {
  await world.fake.close();
});

const search = async (query: string) => {
  const r = await rein(['sessions', 'search', '--json', query], { env: world.env, cwd: world.cwd });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Array<{ title: string; snippet: string }>;
};

describe("rein sessions search and Rein's own text", () => {
  it('"working folder" and "Current local time" match nothing; words from the messages still match', async () => {
    world.fake.enqueue(text('Toast the rice before the stock.'));
    expect((await rein(['run', 'a saffron risotto recipe'], { env: world.env, cwd: world.cwd })).code).toBe(0);
    world.fake.enqueue(text('Start before dawn with crampons.'));
    expect((await rein(['run', 'plan a glacier hike'], { env: world.env, cwd: world.cwd })).code).toBe(0);
    // The block was really sent with each turn (so leaving it out of the index is what is tested).
    expect(JSON.stringify(world.fake.requests[0]!.body.messages)).toContain('Working folder:');

    expect(await search('working folder')).toEqual([]);
    expect(await search('Current local time')).toEqual([]);
    expect(await search('context window')).toEqual([]);
    const saffron = await search('saffron');
    expect(saffron.map((h) => h.title)).toEqual(['a saffron risotto recipe']);
    expect((await search('crampons')).map((h) => h.title)).toEqual(['plan a glacier hike']);
  });
});
