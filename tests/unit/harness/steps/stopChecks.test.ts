import { describe, expect, it } from 'vitest';
import {
  answerWithoutTools,
  beforeIteration,
  DENIAL_NUDGE,
  iterationCap,
} from '../../../../src-main/core/harness/runner/stopChecks.js';
import { GUI_ITERATION_FLOOR } from '../../../../src-main/core/harness/runTypes.js';
import { response, scriptedLlm } from '../../memory/fakeLlm.js';
import { drive, stepFixture } from './runStateFixture.js';

const reply = (text: string) => ({ type: 'reply' as const, response: response(text), text, toolUses: [] });

describe('stop checks', () => {
  it('ends at the iteration cap with the partial answer, and a GUI tool raises the cap', async () => {
    const { state } = await stepFixture(scriptedLlm(), { settings: { maxIterations: 2 } });
    state.iterations = 2;
    state.lastText = 'half';
    expect(beforeIteration(state)).toMatchObject({
      reason: 'max_iterations',
      text: 'half',
      error: { code: 'max_iterations', message: expect.stringContaining('max_iterations = 2') },
    });
    state.guiUsed = true;
    expect(iterationCap(state)).toBe(GUI_ITERATION_FLOOR);
    expect(beforeIteration(state)).toBeUndefined();
  });

  it('puts a failed save before a cancel, and a cancel before the spending cap', async () => {
    const ac = new AbortController();
    const { state } = await stepFixture(scriptedLlm(), { signal: ac.signal, settings: { maxUsdPerRun: 1 } });
    state.usage = { ...state.usage, cost_usd: 2 };
    expect(beforeIteration(state)?.reason).toBe('budget');
    ac.abort();
    expect(beforeIteration(state)?.reason).toBe('cancelled');
    state.saveFailure = { code: 'disk_full', message: 'full' };
    expect(beforeIteration(state)).toMatchObject({ reason: 'error', error: { code: 'disk_full' } });
  });

  it('nudges once when the model claims success after a denial, then accepts the answer', async () => {
    const { state, session } = await stepFixture(scriptedLlm());
    state.approvals.deniedCount = 1;
    const first = await drive(answerWithoutTools(state, reply('Done! I have created the file.')));
    expect(first.value).toEqual({ type: 'run_again' });
    expect(first.events).toMatchObject([
      { type: 'loop_nudge', detector: 'success_after_denial', message: DENIAL_NUDGE },
    ]);
    expect(session.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: DENIAL_NUDGE }] });
    const second = await drive(answerWithoutTools(state, reply('Done.')));
    expect(second.value).toEqual({ type: 'end', end: { reason: 'final', text: 'Done.' } });
    expect(session.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
  });
});
