// The loop reads what a tool is like from its traits, through the executor: a tool's name never
// decides the iteration cap or what the loop detector makes of its calls.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { okResult, type Tool, type ToolTraits } from '../../../src-main/core/tools/tool.js';
import { startFakeAnthropic, text, toolCall, tools, type FakeAnthropic } from '../../support/fakeAnthropic.js';
import { runWith } from '../../support/harness.js';

let fake: FakeAnthropic;
beforeEach(async () => {
  fake = await startFakeAnthropic();
});
afterEach(async () => {
  await fake.close();
});

const withTraits = (name: string, traits: ToolTraits | undefined, content: string): Tool => ({
  name,
  description: `${name} test tool`,
  source: 'local',
  input: z.object({ arg: z.string().optional() }),
  isReadOnly: () => true,
  isDestructive: () => false,
  ...(traits ? { traits } : {}),
  call: async () => okResult(content),
});

describe('tool traits in the loop', () => {
  it('raises the iteration cap for a tool of the gui family, and not for one that declares nothing', async () => {
    const script = (name: string) => {
      let n = 0;
      fake.fallback = () => (n++ < 4 ? tools([toolCall(name, { arg: String(n) })]) : text('finished'));
    };
    script('window_peek');
    const gui = await runWith(fake, {
      tools: [withTraits('window_peek', { family: 'gui' }, 'seen')],
      settings: { maxIterations: 3 },
    });
    expect(gui.outcome.stopReason).toBe('final');

    script('window_peek');
    const plain = await runWith(fake, {
      tools: [withTraits('window_peek', undefined, 'seen')],
      settings: { maxIterations: 3 },
    });
    expect(plain.outcome.stopReason).toBe('max_iterations');
  });

  it('hands the detector the traits of each call: fruitless searches of a search-family tool get a nudge', async () => {
    const nudges = async (traits: ToolTraits | undefined) => {
      let n = 0;
      fake.fallback = () => (n++ < 3 ? tools([toolCall('code_search', { arg: `p${n}` })]) : text('gave up'));
      const { events } = await runWith(fake, { tools: [withTraits('code_search', traits, 'No matches found')] });
      return events.filter((e) => e.type === 'loop_nudge').map((e) => (e as { detector: string }).detector);
    };
    expect(await nudges({ family: 'search' })).toEqual(['search_escalation']);
    expect(await nudges(undefined)).toEqual([]);
  });
});
