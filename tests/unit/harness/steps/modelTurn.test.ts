import { describe, expect, it } from 'vitest';
import { ReinError } from '../../../../src-main/core/errors.js';
import { continueCutReply, forcedAnswer, modelTurn } from '../../../../src-main/core/harness/runner/modelTurn.js';
import { CONTINUE_PROMPT, MAX_CONTINUATIONS } from '../../../../src-main/core/harness/runTypes.js';
import { appendUser } from '../../../../src-main/core/harness/runner/transcript.js';
import type { ModelResponse } from '../../../../src-main/core/llm/client.js';
import { response, scriptedLlm } from '../../memory/fakeLlm.js';
import { drive, stepFixture } from './runStateFixture.js';

const user = (state: Parameters<typeof appendUser>[0]) => appendUser(state, [{ type: 'text', text: 'hi' }]);

describe('model turn step', () => {
  it('streams the reply as text deltas, accounts its usage and keeps its text', async () => {
    const llm = scriptedLlm('hello there');
    const { state } = await stepFixture(llm);
    user(state);
    state.iterations = 1;
    const { events, value } = await drive(modelTurn(state));
    expect(events.map((e) => e.type)).toEqual(['text_delta', 'usage']);
    expect(value).toMatchObject({ type: 'reply', text: 'hello there', toolUses: [] });
    expect(state.lastText).toBe('hello there');
    expect(state.usage.requests).toBe(1);
    expect(llm.requests[0]!.toolChoice).toBeUndefined();
  });

  it('ends with the model error as `error`, the code kept', async () => {
    const { state } = await stepFixture(scriptedLlm(new ReinError('llm_failed', 'bad key')));
    user(state);
    const { value } = await drive(modelTurn(state));
    expect(value).toEqual({
      type: 'end',
      end: { reason: 'error', text: '', error: { code: 'llm_failed', message: 'bad key' } },
    });
  });

  it('warns once after three requests in a row read nothing from the cache', async () => {
    const { state } = await stepFixture(scriptedLlm('a', 'b', 'c', 'd'));
    user(state);
    const notices: string[] = [];
    for (let i = 1; i <= 4; i++) {
      state.iterations = i + 1;
      const { events } = await drive(modelTurn(state));
      for (const e of events) if (e.type === 'notice') notices.push(e.message);
    }
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/three requests in a row read nothing from the prompt cache/);
  });

  it('continues a reply cut by max_tokens up to the limit, carrying its text', async () => {
    const { state, session } = await stepFixture(scriptedLlm());
    const cut = { type: 'reply' as const, response: response('part', 'max_tokens'), text: 'part', toolUses: [] };
    for (let i = 0; i < MAX_CONTINUATIONS; i++) expect(await continueCutReply(state, cut)).toBe(true);
    expect(await continueCutReply(state, cut)).toBe(false);
    expect(state.carried).toBe('part'.repeat(MAX_CONTINUATIONS));
    expect(session.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: CONTINUE_PROMPT }] });
    expect(await continueCutReply(state, { ...cut, response: response('part', 'end_turn') })).toBe(false);
  });

  it('asks the forced answer without tools and ends `final` with it', async () => {
    const llm = scriptedLlm('here is what I have');
    const { state } = await stepFixture(llm);
    user(state);
    const { value } = await drive(forcedAnswer(state));
    expect(llm.requests[0]!.toolChoice).toBe('none');
    expect(value).toEqual({ reason: 'final', text: 'here is what I have' });
    expect(state.iterations).toBe(1);
  });

  it('keeps the streamed text of a cancelled forced answer', async () => {
    const ac = new AbortController();
    const llm = {
      async *turn(): AsyncGenerator<{ type: 'text_delta'; text: string }, ModelResponse> {
        yield { type: 'text_delta', text: 'so far' };
        ac.abort();
        throw new ReinError('llm_cancelled', 'cancelled');
      },
    };
    const { state, session } = await stepFixture(llm, { signal: ac.signal });
    user(state);
    const { value } = await drive(forcedAnswer(state));
    expect(value).toEqual({ reason: 'cancelled', text: 'so far' });
    expect(session.messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'so far' }] });
  });
});
