import { describe, expect, it } from 'vitest';
import { ReinError } from '../../../../src-main/core/errors.js';
import { finish, save } from '../../../../src-main/core/harness/runner/persistence.js';
import { scriptedLlm } from '../../memory/fakeLlm.js';
import { drive, stepFixture } from './runStateFixture.js';

describe('persistence step', () => {
  it('keeps a failed save as a value on the run state and clears it once a save succeeds', async () => {
    let fail = true;
    const { state, store } = await stepFixture(scriptedLlm(), {
      save: async (s) => {
        if (fail) throw new Error('EIO: input/output error');
        await store.save(s);
      },
    });
    await expect(save(state)).resolves.toBeUndefined();
    expect(state.saveFailure).toEqual({
      code: 'session_save_failed',
      message: expect.stringContaining(`could not save session ${state.session.id}: EIO`),
    });
    fail = false;
    await save(state);
    expect(state.saveFailure).toBeUndefined();
    expect((await store.load(state.session.id)).id).toBe(state.session.id);
  });

  it('ends a run whose last save fails with that error (its ReinError code), never a rejection, and no `final`', async () => {
    const { state } = await stepFixture(scriptedLlm(), {
      save: async () => {
        throw new ReinError('disk_full', 'cannot save session S: no space left on device');
      },
    });
    const { events, value } = await drive(finish(state, { reason: 'final', text: 'the answer' }));
    expect(events.map((e) => e.type)).toEqual(['error', 'session_end']);
    expect(events[0]).toMatchObject({ code: 'disk_full' });
    expect(value).toMatchObject({
      stopReason: 'error',
      text: 'the answer',
      error: { code: 'disk_full' },
      started: true,
    });
  });

  it('tells a save failure once when it is also the error the run ends with', async () => {
    const { state } = await stepFixture(scriptedLlm(), {
      save: async () => {
        throw new ReinError('disk_full', 'no space');
      },
    });
    await save(state);
    const { events } = await drive(finish(state, { reason: 'error', text: '', error: state.saveFailure! }));
    expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
  });
});
