import { describe, expect, it } from 'vitest';
import { Inbox } from '../../../../src-main/core/harness/inbox.js';
import { prepareRun } from '../../../../src-main/core/harness/runner/prepareRun.js';
import { prepareTurn } from '../../../../src-main/core/harness/runner/prepareTurn.js';
import { RUN_SPENDING } from '../../../../src-main/core/harness/runTypes.js';
import { warn } from '../../../../src-main/core/harness/runState.js';
import { sessionSlots } from '../../../../src-main/core/tools/sessionSlots.js';
import { scriptedLlm } from '../../memory/fakeLlm.js';
import { drive, stepFixture } from './runStateFixture.js';

describe('run and turn preparation steps', () => {
  it('appends the per-turn facts and the prompt as one user message, saves it, and seeds the run spending', async () => {
    const fx = await stepFixture(scriptedLlm());
    const state = await prepareRun(fx.input, fx.state.deps, fx.state.stamp);
    const first = state.session.messages[0]!;
    expect(first.role).toBe('user');
    const blocks = first.content as Array<{ type: string; text: string }>;
    expect(blocks.at(-1)).toEqual({ type: 'text', text: 'do the thing' });
    expect(blocks[0]!.text).toContain(fx.input.toolContext.cwd);
    expect(fx.saves()).toBe(1);
    expect((await fx.store.load(state.session.id)).messages).toHaveLength(1);
    sessionSlots(fx.input.toolContext)
      .slot(RUN_SPENDING, () => {
        throw new Error('not seeded');
      })
      .add('claude-sonnet-5-5', {
        inputTokens: 1_000_000,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheCreationTokens: 0,
      });
    expect(state.usage.cost_usd).toBeGreaterThan(0);
  });

  it('tells the warnings and drains the messages that arrived mid-run into one injected user message', async () => {
    const inbox = new Inbox();
    const fx = await stepFixture(scriptedLlm(), { inbox });
    warn(fx.state, 'a hook said something');
    inbox.push('also do this');
    inbox.push('and that');
    const { events } = await drive(prepareTurn(fx.state));
    expect(events).toMatchObject([
      { type: 'notice', level: 'warning', message: 'a hook said something' },
      { type: 'injected', texts: ['also do this', 'and that'] },
    ]);
    const last = fx.session.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(JSON.stringify(last.content)).toContain('[New message from user]');
    expect(fx.session.message_meta.at(-1)).toMatchObject({ injected: true });
    expect((await drive(prepareTurn(fx.state))).events).toEqual([]);
  });
});
