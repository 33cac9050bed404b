import { describe, expect, it } from 'vitest';
import { compactBeforeRequest } from '../../../../src-main/core/harness/runner/compaction.js';
import { appendAssistant, appendUser } from '../../../../src-main/core/harness/runner/transcript.js';
import type { RunState } from '../../../../src-main/core/harness/runState.js';
import { scriptedLlm } from '../../memory/fakeLlm.js';
import { drive, stepFixture } from './runStateFixture.js';

function longHistory(state: RunState, turns: number, size: number): void {
  for (let i = 0; i < turns; i++) {
    appendUser(state, [{ type: 'text', text: `question ${i}: ${'x '.repeat(size)}` }]);
    appendAssistant(state, [{ type: 'text', text: `answer ${i}: ${'y '.repeat(size)}` }]);
  }
  appendUser(state, [{ type: 'text', text: 'and now?' }]);
}

describe('compaction step', () => {
  it('leaves a history well under the window alone: no event, no save', async () => {
    const fx = await stepFixture(scriptedLlm());
    longHistory(fx.state, 2, 10);
    const { events } = await drive(compactBeforeRequest(fx.state));
    expect(events).toEqual([]);
    expect(fx.saves()).toBe(0);
    expect(fx.session.checkpoint).toBeUndefined();
  });

  it('compacts a history past 85% of the window into a checkpoint, saves it, then tells it', async () => {
    const llm = scriptedLlm(...Array.from({ length: 10 }, () => 'summary of the earlier conversation'));
    const fx = await stepFixture(llm, { settings: { contextWindow: 20_000 } });
    longHistory(fx.state, 12, 2_000);
    fx.state.lastUsage = undefined;
    const { events } = await drive(compactBeforeRequest(fx.state));
    expect(events).toMatchObject([{ type: 'compaction' }]);
    expect(fx.session.checkpoint).toBeDefined();
    expect(fx.saves()).toBe(1);
  });
});
