import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import {
  houseKeep,
  IMAGE_NOTE,
  newHouseKeepState,
  raiseTier,
  type HouseKeepState,
} from '../../../src-main/core/context/houseKeep.js';
import { historyShapeProblems } from '../../../src-main/core/context/historyShape.js';
import type { SessionMessage } from '../../../src-main/core/sessions/types.js';
import { big, toolCalls, toolResults, toolSession, user, PNG } from './helpers.js';

/** The tool_result blocks of the result message for call `id`. */
function resultFor(messages: SessionMessage[], id: string): ToolResultBlockParam {
  for (const m of messages) {
    if (typeof m.content === 'string') continue;
    for (const b of m.content) if (b.type === 'tool_result' && b.tool_use_id === id) return b;
  }
  throw new Error(`no result ${id}`);
}
const textOf = (b: ToolResultBlockParam): string =>
  typeof b.content === 'string'
    ? b.content
    : (b.content ?? []).map((p) => (p.type === 'text' ? p.text : `<${p.type}>`)).join('|');

function tierOf(text: string, id: string): 'full' | 'trimmed' | 'meta' {
  if (text.includes('characters omitted to save context')) return 'trimmed';
  if (text.includes('output removed to save context')) return 'meta';
  expect(text).toBe(big(id));
  return 'full';
}

describe('houseKeep: tool results', () => {
  it('keeps the newest 3 result messages whole, cuts the next 7 to head + tail, reduces older ones to a metadata line', () => {
    const history = toolSession(13, 5000);
    const out = houseKeep(history, newHouseKeepState());
    const tiers = Array.from({ length: 13 }, (_, i) => tierOf(textOf(resultFor(out, `t${i}`)), `t${i}`));
    expect(tiers).toEqual(['meta', 'meta', 'meta', ...Array<string>(7).fill('trimmed'), 'full', 'full', 'full']);

    const trimmed = textOf(resultFor(out, 't5'));
    expect(trimmed.startsWith(big('t5').slice(0, 300))).toBe(true);
    expect(trimmed.endsWith(big('t5').slice(-300))).toBe(true);
    expect(trimmed).toContain('[… 4,400 characters omitted to save context …]');
    expect(textOf(resultFor(out, 't0'))).toBe(
      '[file_read {"path":"/work/t0.txt"} → 5,000 characters, ok; output removed to save context]',
    );
    expect(historyShapeProblems(out)).toEqual([]);
  });

  it('never modifies the stored history and shares the messages it leaves alone', () => {
    const history = toolSession(12, 5000);
    const before = JSON.stringify(history);
    const out = houseKeep(history, newHouseKeepState());
    expect(JSON.stringify(history)).toBe(before);
    expect(out).not.toBe(history);
    expect(out[out.length - 1]).toBe(history[history.length - 1]);
    expect(out[0]).toBe(history[0]);
  });

  it('counts messages, not results: parallel results in one message share a tier', () => {
    const history: SessionMessage[] = [user('go')];
    history.push(
      toolCalls([{ id: 'p1' }, { id: 'p2' }]),
      toolResults([
        { id: 'p1', text: big('p1') },
        { id: 'p2', text: big('p2') },
      ]),
    );
    for (let i = 0; i < 3; i++)
      history.push(toolCalls([{ id: `n${i}` }]), toolResults([{ id: `n${i}`, text: big(`n${i}`) }]));
    const out = houseKeep(history, newHouseKeepState(), { slack: 0 });
    expect(tierOf(textOf(resultFor(out, 'p1')), 'p1')).toBe('trimmed');
    expect(tierOf(textOf(resultFor(out, 'p2')), 'p2')).toBe('trimmed');
  });

  it('leaves short results whole, and says "error" in the metadata line of a failed call', () => {
    const history: SessionMessage[] = [
      user('go'),
      toolCalls([{ id: 'e', name: 'bash', input: { command: 'make' } }]),
      toolResults([{ id: 'e', text: '[business error] make failed', isError: true }]),
    ];
    for (let i = 0; i < 10; i++)
      history.push(toolCalls([{ id: `s${i}` }]), toolResults([{ id: `s${i}`, text: `short ${i}` }]));
    const out = houseKeep(history, newHouseKeepState());
    expect(textOf(resultFor(out, 'e'))).toBe(
      '[bash {"command":"make"} → 28 characters, error; output removed to save context]',
    );
    expect(resultFor(out, 'e').is_error).toBe(true);
    expect(textOf(resultFor(out, 's3'))).toBe('short 3'); // trimmed tier, but too short to cut
  });

  it('records decisions by tool_use_id and never reverses them, even when the history shrinks', () => {
    const state = newHouseKeepState();
    const history = toolSession(13, 5000);
    houseKeep(history, state);
    expect(state.results.t0).toBe('meta');
    expect(state.results.t9).toBe('trimmed');
    expect(state.results.t10).toBeUndefined();
    // A compacted history keeps only the newest part: ranks change, decisions do not.
    const shorter = [history[0]!, ...history.slice(1 + 2 * 8)];
    const out = houseKeep(shorter, state);
    expect(tierOf(textOf(resultFor(out, 't8')), 't8')).toBe('trimmed');
    expect(tierOf(textOf(resultFor(out, 't9')), 't9')).toBe('trimmed');
    // Ids no longer in the history are forgotten.
    expect(Object.keys(state.results).sort()).toEqual(['t8', 't9']);
  });

  it('renders an unchanged decision with identical bytes on every call, so the cached prefix stays valid', () => {
    const state = newHouseKeepState();
    let history = toolSession(11, 5000);
    const first = houseKeep(history, state, { slack: 0 });
    history = [...history, toolCalls([{ id: 'x' }]), toolResults([{ id: 'x', text: big('x') }])];
    const second = houseKeep(history, state, { slack: 0 });
    // t0 was meta and stays meta; t1 moves from trimmed to meta (one-way); t2..t7 stay trimmed, byte for byte.
    expect(JSON.stringify(second.slice(0, 3))).toBe(JSON.stringify(first.slice(0, 3)));
    for (let i = 2; i <= 7; i++) expect(textOf(resultFor(second, `t${i}`))).toBe(textOf(resultFor(first, `t${i}`)));
    expect(state.results.t1).toBe('meta');
  });

  it('with slack 0 demotes on every call: exact tiers', () => {
    const state = newHouseKeepState();
    houseKeep(toolSession(3, 5000), state, { slack: 0 });
    expect(state.results).toEqual({});
    houseKeep(toolSession(4, 5000), state, { slack: 0 });
    expect(state.results).toEqual({ t0: 'trimmed' });
  });

  it('batches demotions by default (slack 3): at least the newest 3 stay whole, at most 6', () => {
    const state = newHouseKeepState();
    for (let n = 1; n <= 6; n++) {
      houseKeep(toolSession(n, 5000), state);
      expect(state.results).toEqual({});
    }
    houseKeep(toolSession(7, 5000), state);
    expect(state.results).toEqual({ t0: 'trimmed', t1: 'trimmed', t2: 'trimmed', t3: 'trimmed' });
  });

  it('batches demotions with slack: nothing changes until keepFull + slack results are full', () => {
    const state = newHouseKeepState();
    const outs: SessionMessage[][] = [];
    let history = toolSession(3, 5000);
    outs.push(houseKeep(history, state, { slack: 3 }));
    for (let i = 3; i < 7; i++) {
      history = [...history, toolCalls([{ id: `t${i}` }]), toolResults([{ id: `t${i}`, text: big(`t${i}`) }])];
      outs.push(houseKeep(history, state, { slack: 3 }));
    }
    // 4, 5, 6 full results: every request extends the previous one byte for byte.
    for (let k = 1; k <= 3; k++)
      expect(JSON.stringify(outs[k]!.slice(0, outs[k - 1]!.length))).toBe(JSON.stringify(outs[k - 1]));
    // The 7th full result triggers one batch: t0..t3 trimmed at once, the newest 3 stay full.
    expect(Object.keys(state.results).sort()).toEqual(['t0', 't1', 't2', 't3']);
    expect(tierOf(textOf(resultFor(outs[4]!, 't4')), 't4')).toBe('full');
  });

  it('with a budget, rewrites nothing below half the window: every request is a pure append of the one before', () => {
    // 30 results of 5,000 characters ≈ 43,000 tokens: a fifth of a 200,000-token window.
    const state = newHouseKeepState();
    const budget = { contextWindow: 200_000, fixedTokens: 3_000 };
    let history = toolSession(1, 5000);
    let prev = houseKeep(history, state, { budget });
    for (let i = 1; i < 30; i++) {
      history = [...history, toolCalls([{ id: `t${i}` }]), toolResults([{ id: `t${i}`, text: big(`t${i}`) }])];
      const out = houseKeep(history, state, { budget });
      expect(JSON.stringify(out.slice(0, prev.length))).toBe(JSON.stringify(prev));
      prev = out;
    }
    expect(state.results).toEqual({});
  });

  it('with a budget, demotes in one batch once the request reaches half the window', () => {
    const state = newHouseKeepState();
    // 10 results ≈ 14,300 tokens + 3,000 fixed: above half of a 30,000-token window.
    houseKeep(toolSession(10, 5000), state, { budget: { contextWindow: 40_000, fixedTokens: 3_000 } });
    expect(state.results).toEqual({});
    const out = houseKeep(toolSession(10, 5000), state, { budget: { contextWindow: 30_000, fixedTokens: 3_000 } });
    expect(Object.keys(state.results).length).toBe(7);
    expect(tierOf(textOf(resultFor(out, 't9')), 't9')).toBe('full');
    expect(tierOf(textOf(resultFor(out, 't0')), 't0')).toBe('trimmed');
  });

  it('applies a clipped tier recorded by reactive compaction, one-way', () => {
    const state = newHouseKeepState();
    raiseTier(state, 't1', 'clipped');
    expect(raiseTier(state, 't1', 'trimmed')).toBe(false);
    const out = houseKeep(toolSession(2, 5000), state);
    expect(textOf(resultFor(out, 't1'))).toBe(
      `${big('t1').slice(0, 100)}… [clipped to save context; 5,000 characters in all]`,
    );
    expect(textOf(resultFor(out, 't0'))).toBe(big('t0'));
  });

  it('keeps a clipped result clipped when a later demotion would put it in a milder tier', () => {
    const state = newHouseKeepState();
    raiseTier(state, 't3', 'clipped');
    const out = houseKeep(toolSession(5, 5000), state, { slack: 0 }); // 4 full results: a demotion round runs
    expect(state.results).toEqual({ t0: 'trimmed', t1: 'trimmed', t3: 'clipped' });
    expect(textOf(resultFor(out, 't3'))).toMatch(/clipped to save context/);
  });
});

describe('houseKeep: images', () => {
  it('keeps images only in the 5 newest image-bearing messages, top-level or inside tool results', () => {
    const history: SessionMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ],
      },
    ];
    for (let i = 0; i < 6; i++)
      history.push(
        toolCalls([{ id: `s${i}`, name: 'screenshot' }]),
        toolResults([{ id: `s${i}`, text: `shot ${i}`, image: true }]),
      );
    const state: HouseKeepState = newHouseKeepState();
    const out = houseKeep(history, state);
    const first = out[0]!.content as Array<{ type: string; text?: string }>;
    expect(first.map((b) => b.type)).toEqual(['text', 'text']);
    expect(first[1]!.text).toBe(IMAGE_NOTE);
    expect(textOf(resultFor(out, 's0'))).toBe(`shot 0|${IMAGE_NOTE}`);
    for (let i = 1; i < 6; i++) expect(textOf(resultFor(out, `s${i}`))).toBe(`shot ${i}|<image>`);
    expect(state.strippedImages).toHaveLength(2);
    expect(historyShapeProblems(out)).toEqual([]);
  });

  it('keeps a stripped image stripped when newer images disappear from the history', () => {
    const history: SessionMessage[] = [user('go')];
    for (let i = 0; i < 6; i++)
      history.push(toolCalls([{ id: `s${i}` }]), toolResults([{ id: `s${i}`, text: `shot ${i}`, image: true }]));
    const state = newHouseKeepState();
    houseKeep(history, state);
    const out = houseKeep(history.slice(0, 5), state);
    expect(textOf(resultFor(out, 's0'))).toBe(`shot 0|${IMAGE_NOTE}`);
    expect(textOf(resultFor(out, 's1'))).toBe('shot 1|<image>');
  });
});
