import { describe, expect, it } from 'vitest';
import { toolTurn } from '../../../../src-main/core/harness/runner/toolTurn.js';
import { appendUser } from '../../../../src-main/core/harness/runner/transcript.js';
import type { ModelResponse } from '../../../../src-main/core/llm/client.js';
import { okResult } from '../../../../src-main/core/tools/tool.js';
import { scriptedLlm } from '../../memory/fakeLlm.js';
import { testTool } from '../../../support/harness.js';
import { drive, stepFixture } from './runStateFixture.js';

const withCalls = (...names: string[]) => {
  const toolUses = names.map((name, i) => ({
    type: 'tool_use' as const,
    id: `t${i}`,
    name,
    input: { arg: String(i) },
  }));
  const response: ModelResponse = {
    content: toolUses,
    stopReason: 'tool_use',
    usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheCreationTokens: 0 },
    model: 'm',
  };
  return { type: 'reply' as const, response, text: '', toolUses };
};

describe('tool turn step', () => {
  it('runs the calls, sends their results as the next user message, saves, and goes on', async () => {
    const tool = testTool('probe');
    const { state, session, saves } = await stepFixture(scriptedLlm(), { tools: [tool] });
    appendUser(state, [{ type: 'text', text: 'hi' }]);
    const { events, value } = await drive(toolTurn(state, withCalls('probe', 'probe')));
    expect(value).toEqual({ type: 'run_again' });
    expect(tool.calls).toEqual([{ arg: '0' }, { arg: '1' }]);
    expect(events.filter((e) => e.type === 'tool_call_end')).toHaveLength(2);
    expect(session.messages.at(-1)).toMatchObject({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 't0' },
        { type: 'tool_result', tool_use_id: 't1' },
      ],
    });
    expect(saves()).toBe(1);
  });

  it('starts no tool once the spending cap is reached', async () => {
    const tool = testTool('probe');
    const { state } = await stepFixture(scriptedLlm(), { tools: [tool], settings: { maxUsdPerRun: 0.5 } });
    state.usage = { ...state.usage, cost_usd: 1 };
    const { value } = await drive(toolTurn(state, withCalls('probe')));
    expect(value).toMatchObject({ type: 'end', end: { reason: 'budget', error: { code: 'budget' } } });
    expect(tool.calls).toEqual([]);
  });

  it('ends with a `final` result of the only call as the answer, told as text', async () => {
    const tool = {
      ...testTool('deliver'),
      call: async () => ({ ...okResult('the whole report'), final: true as const }),
    };
    const { state } = await stepFixture(scriptedLlm(), { tools: [tool] });
    const { events, value } = await drive(toolTurn(state, withCalls('deliver')));
    expect(value).toEqual({ type: 'end', end: { reason: 'final', text: 'the whole report' } });
    expect(events.at(-1)).toMatchObject({ type: 'text_delta', text: 'the whole report' });
  });
});
